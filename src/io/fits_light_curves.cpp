#include "io/fits_light_curves.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <numeric>
#include <optional>

#include "core/error.hpp"
#include "io/fits.hpp"
#include "io/fits_header_check.hpp"

namespace astrosweep::io {

namespace {

bool has_fits_extension(const std::filesystem::path& p) {
  const std::string name = p.filename().string();
  auto ends_with = [&](const std::string& s) {
    return name.size() >= s.size() && name.compare(name.size() - s.size(), s.size(), s) == 0;
  };
  return ends_with(".fits") || ends_with(".fit") || ends_with(".fits.gz") || ends_with(".fts");
}

// The BJD a file's TIME counts from: BJDREFI + BJDREFF, kept apart so nothing is rounded.
struct TimeReference {
  bool known = false;  ///< the file has BJDREFI
  std::int64_t days = 0;
  double fraction = 0;
  std::string timesys;

  bool operator==(const TimeReference&) const = default;
  [[nodiscard]] std::string label() const {
    if (!known) return "unknown (no BJDREFI)";
    char buf[96];
    std::snprintf(buf, sizeof buf, "BJD - %.6f (%s)", static_cast<double>(days) + fraction, timesys.c_str());
    return buf;
  }
};

struct OneFile {
  std::int64_t id = 0;
  bool has_id = false;
  std::vector<double> t, y, dy;
  std::uint32_t flagged = 0;
  std::string path;
  TimeReference reference;
};

TimeReference time_reference_of(const fits::File& f) {
  TimeReference ref;
  const auto refi = f.keyword_double("BJDREFI");
  if (!refi || !std::isfinite(*refi)) return ref;
  // Beyond any Julian date (and beyond int64: the conversion below would be undefined).
  AS_EXPECTS(
      std::fabs(*refi) < 1e9, InputError,
      "'" + f.path() + "': BJDREFI = " + std::to_string(*refi) + " is not a Julian date",
      "check the file's header: BJDREFI is the integer part of the BJD reference (2454833 Kepler, 2457000 TESS)");
  ref.known = true;
  // A BJDREFI written with a fraction (2454833.5) keeps it: floor and remainder are both exact.
  const double whole = std::floor(*refi);
  ref.days = static_cast<std::int64_t>(whole);
  ref.fraction = (*refi - whole) + f.keyword_double("BJDREFF").value_or(0.0);
  ref.timesys = f.keyword("TIMESYS").value_or("TDB");
  return ref;
}

int find_column(const fits::File& f, const std::string& name) {
  int status = 0;
  int col = 0;
  fits_get_colnum(f.get(), CASEINSEN, const_cast<char*>(name.c_str()), &col, &status);
  if (status != 0) {
    fits_clear_errmsg();
    return 0;
  }
  return col;
}

// A column of one value per row (a vector or variable-length column would be read across rows).
void require_scalar_column(const fits::File& f, int col, const std::string& name) {
  int status = 0, type = 0;
  long repeat = 0, width = 0;
  fits_get_coltype(f.get(), col, &type, &repeat, &width, &status);
  f.check(status, "reading the type of column " + name);
  AS_EXPECTS(type > 0 && repeat == 1, InputError,
             f.path() + ": column " + name + " holds " +
                 (type < 0 ? "variable-length arrays" : std::to_string(repeat) + " values") + " per row, not one",
             "give TESS/Kepler light-curve files (*_lc.fits, *llc.fits), not target pixel files or images");
}

// Rows are read a piece at a time, so a header that promises more rows than the file holds (a
// corrupt NAXIS2, a file cut short) ends in CFITSIO's end-of-file error instead of an allocation
// for all of them first.
constexpr long rows_per_read = 1L << 20;

template <class T>
std::vector<T> read_column(const fits::File& f, int col, int fits_type, long n_rows, T null_value,
                           const std::string& name) {
  require_scalar_column(f, col, name);
  std::vector<T> v;
  for (long first = 0; first < n_rows; first += rows_per_read) {
    const long n = std::min(rows_per_read, n_rows - first);
    v.resize(static_cast<std::size_t>(first + n));
    int status = 0;
    int any_null = 0;
    fits_read_col(f.get(), fits_type, col, first + 1, 1, n, &null_value, v.data() + first, &any_null, &status);
    f.check(status, "reading column " + name);
  }
  return v;
}

std::vector<double> read_double_column(const fits::File& f, int col, long n_rows, const std::string& name) {
  int status = 0;
  int type = 0;
  long repeat = 0, width = 0;
  fits_get_eqcoltype(f.get(), col, &type, &repeat, &width, &status);
  f.check(status, "reading the type of column " + name);
  AS_EXPECTS(type != TSTRING && type != TLOGICAL && type != TBIT, InputError,
             f.path() + ": " + f.hdu_name() + ": column " + name + " holds " + (type == TSTRING ? "text" : "flags") +
                 " (TFORM" + std::to_string(col) + " = " + f.keyword("TFORM" + std::to_string(col)).value_or("?") +
                 "), not numbers",
             "the file is not a TESS/Kepler light curve, or the column was written wrongly; check --flux-column");
  return read_column<double>(f, col, TDOUBLE, n_rows, std::nan(""), name);
}

// The message when no light-curve table can be found: a file that goes on after the HDUs CFITSIO
// could read has a damaged extension header (a missing END card, an invalid NAXIS), which is not
// the same as a file that simply has no table.
std::string missing_table_message(const fits::File& f, int n_hdus) {
  int status = 0, type = 0;
  LONGLONG header_start = 0, data_start = 0, data_end = 0;
  fits_movabs_hdu(f.get(), n_hdus, &type, &status);
  fits_get_hduaddrll(f.get(), &header_start, &data_start, &data_end, &status);
  fits_clear_errmsg();
  std::error_code ec;
  const bool plain = !f.path().ends_with(".gz") && std::filesystem::is_regular_file(f.path(), ec);
  const auto bytes = plain ? std::filesystem::file_size(f.path(), ec) : 0;
  if (status == 0 && plain && !ec && bytes > static_cast<std::uintmax_t>(data_end))
    return f.path() + ": no light-curve table can be read: the file goes on for " +
           std::to_string(bytes - static_cast<std::uintmax_t>(data_end)) + " bytes after its last readable HDU (" +
           std::to_string(n_hdus) + "), so an extension header is damaged (a missing END card or an invalid " +
           "keyword such as NAXIS)";
  return f.path() + ": no binary table (light-curve extension) found";
}

OneFile read_one(const std::string& path, const FitsReadOptions& options) {
  fits::check_column_string_cards(path);  // before CFITSIO parses the table header
  fits::File f(path);
  f.check_header_cards();
  OneFile out;
  out.path = path;
  // Target id lives in the primary header.
  for (const char* key : {"TICID", "KEPLERID"}) {
    if (auto v = f.keyword_integer(key)) {
      out.id = *v;
      out.has_id = true;
      break;
    }
  }
  int status = 0;
  int n_hdus = 0;
  fits_get_num_hdus(f.get(), &n_hdus, &status);
  f.check(status, "reading the HDU list");
  int table_hdu = 0;
  for (int h = 2; h <= n_hdus && table_hdu == 0; ++h) {
    int type = 0;
    fits_movabs_hdu(f.get(), h, &type, &status);
    f.check(status, "moving to HDU " + std::to_string(h));
    if (type == BINARY_TBL) table_hdu = h;
  }
  AS_EXPECTS(table_hdu != 0, InputError, missing_table_message(f, n_hdus),
             "give complete TESS/Kepler light-curve files (*_lc.fits, *llc.fits), not target pixel files or images");
  f.check_header_cards();

  const int time_col = find_column(f, "TIME");
  AS_EXPECTS(time_col != 0, InputError, path + ": the light-curve table has no TIME column",
             "astrosweep reads TESS/Kepler light curves with TIME, PDCSAP_FLUX or SAP_FLUX and their _ERR columns");
  std::string flux_name = options.flux_column;
  if (flux_name.empty()) flux_name = find_column(f, "PDCSAP_FLUX") != 0 ? "PDCSAP_FLUX" : "SAP_FLUX";
  const int flux_col = find_column(f, flux_name);
  AS_EXPECTS(flux_col != 0, InputError, path + ": the light-curve table has no " + flux_name + " column",
             options.flux_column.empty() ? "expected PDCSAP_FLUX or SAP_FLUX" : "check --flux-column");
  const int err_col = find_column(f, flux_name + "_ERR");
  AS_EXPECTS(err_col != 0, InputError, path + ": the light-curve table has no " + flux_name + "_ERR column",
             "the generalized periodogram needs flux uncertainties");
  const int quality_col = options.use_quality ? find_column(f, "QUALITY") : 0;

  long n_rows = 0;
  fits_get_num_rows(f.get(), &n_rows, &status);
  f.check(status, "reading the number of rows");
  auto t = read_double_column(f, time_col, n_rows, "TIME");
  auto y = read_double_column(f, flux_col, n_rows, flux_name);
  auto dy = read_double_column(f, err_col, n_rows, flux_name + "_ERR");
  const std::vector<int> quality =
      quality_col != 0 ? read_column<int>(f, quality_col, TINT, n_rows, 0, "QUALITY") : std::vector<int>{};
  for (std::size_t r = 0; r < t.size(); ++r) {
    if (!quality.empty() && quality[r] != 0) {
      ++out.flagged;
      continue;
    }
    out.t.push_back(t[r]);
    out.y.push_back(y[r]);
    out.dy.push_back(dy[r]);
  }
  out.reference = time_reference_of(f);
  return out;
}

}  // namespace

std::vector<std::string> expand_fits_inputs(const std::vector<std::string>& inputs) {
  namespace fs = std::filesystem;
  std::vector<std::string> files;
  for (const auto& in : inputs) {
    std::error_code ec;
    AS_EXPECTS(fs::exists(in, ec), InputError, "input '" + in + "' does not exist", "check the path given to --input");
    if (!fs::is_directory(in, ec)) {
      files.push_back(in);
      continue;
    }
    std::vector<std::string> found;
    for (const auto& entry : fs::directory_iterator(in, ec))
      if (entry.is_regular_file() && has_fits_extension(entry.path())) found.push_back(entry.path().string());
    AS_EXPECTS(!ec, InputError, "cannot list directory '" + in + "': " + ec.message(),
               "check that the directory is readable by the user running astrosweep");
    AS_EXPECTS(!found.empty(), InputError, "directory '" + in + "' contains no FITS files (*.fits, *.fit, *.fits.gz)",
               "give a directory of TESS/Kepler light curves, or a file (CSV: one file, with --format csv)");
    std::sort(found.begin(), found.end());
    files.insert(files.end(), found.begin(), found.end());
  }
  return files;
}

namespace {

// What is kept of an object while the files are read: 40-odd bytes and its first file.
struct ObjectInfo {
  std::int64_t id = 0;
  std::size_t first_file = 0;
  TimeReference reference;
  std::uint32_t flagged = 0;
};

// Sectors/quarters may arrive in any order: the object's cadences sorted by time (stable for equal
// times, NaN times last), appended to the block with its reference.
void pass_on(ObjectBatcher& out, const ObjectInfo& info, const OneFile& rows) {
  std::vector<std::size_t> order(rows.t.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](auto a, auto b) {
    if (std::isnan(rows.t[a])) return false;  // NaN times last: a strict weak order
    return std::isnan(rows.t[b]) || rows.t[a] < rows.t[b];
  });
  std::vector<double> t(order.size()), y(order.size()), dy(order.size());
  for (std::size_t k = 0; k < order.size(); ++k) {
    t[k] = rows.t[order[k]];
    y[k] = rows.y[order[k]];
    dy[k] = rows.dy[order[k]];
  }
  auto& block = out.block();
  block.append(info.id, t, y, dy, info.flagged);
  block.bjdrefi.push_back(info.reference.days);
  block.bjdreff.push_back(info.reference.known ? info.reference.fraction : std::nan(""));
  out.object_done();
}

void append_rows(OneFile& to, const OneFile& from) {
  to.t.insert(to.t.end(), from.t.begin(), from.t.end());
  to.y.insert(to.y.end(), from.y.begin(), from.y.end());
  to.dy.insert(to.dy.end(), from.dy.begin(), from.dy.end());
}

}  // namespace

StreamedInput stream_fits_light_curves(const std::vector<std::string>& files, const FitsReadOptions& options,
                                       LightCurveSink& sink, std::uint64_t block_rows) {
  AS_EXPECTS(!files.empty(), InputError, "no FITS light-curve files given");
  StreamedInput result;
  result.identity.format = "fits";
  Fnv1a64 digest;
  ObjectBatcher out(sink, block_rows);
  // Objects in order of first appearance; files of one target are merged.
  std::vector<ObjectInfo> objects;
  std::map<std::int64_t, std::size_t> slot_of;
  std::vector<std::size_t> object_of_file(files.size());
  // The rows of the last object while its files come one after another.
  OneFile current;
  // The first object one of whose files came after another object's: it and the objects after it
  // are read again once every file has been checked.
  std::optional<std::size_t> gathered_later;

  // Every file once, in the order given: the checks, the messages and the digest as they always
  // were, whatever the files' order.
  for (std::size_t i = 0; i < files.size(); ++i) {
    OneFile one = read_one(files[i], options);
    std::error_code ec;
    result.identity.bytes += std::filesystem::file_size(files[i], ec);
    result.identity.paths += (i ? "\n" : "") + files[i];
    digest.update(one.t.data(), one.t.size() * sizeof(double));
    digest.update(one.y.data(), one.y.size() * sizeof(double));
    if (!one.has_id) one.id = static_cast<std::int64_t>(i);  // no TICID/KEPLERID: position in the list
    auto [it, inserted] = slot_of.emplace(one.id, objects.size());
    const std::size_t slot = it->second;
    object_of_file[i] = slot;
    if (inserted) {
      if (!gathered_later && !objects.empty()) pass_on(out, objects.back(), current);
      objects.push_back({one.id, i, one.reference, one.flagged});
      if (!gathered_later) current = std::move(one);
      continue;
    }
    ObjectInfo& target = objects[slot];
    // Kepler and TESS count from different days (BJD 2454833 and 2457000): one object's cadences
    // must share a reference, and two missions' ids (KEPLERID, TICID) that coincide are two stars.
    AS_EXPECTS(one.reference == target.reference, InputError,
               files[i] + " and " + files[target.first_file] + " both hold object " + std::to_string(one.id) +
                   " but their times count from different references (" + one.reference.label() + ", " +
                   target.reference.label() + ")",
               "a KEPLERID and a TICID that coincide are different stars: give the missions' files in separate runs");
    target.flagged += one.flagged;
    if (gathered_later) {
      if (slot < *gathered_later) {  // an object passed on before the first one taken back
        gathered_later = slot;
        out.truncate(slot);
      }
      continue;
    }
    if (slot + 1 == objects.size()) {
      append_rows(current, one);  // the object being gathered goes on
      continue;
    }
    gathered_later = slot;
    out.truncate(slot);
    current = OneFile();
  }

  if (!gathered_later) {
    pass_on(out, objects.back(), current);
  } else {
    // Each remaining object from its files, in the order given; they were all read and checked.
    const std::size_t first = *gathered_later;
    std::vector<std::vector<std::size_t>> files_of(objects.size() - first);
    for (std::size_t i = 0; i < files.size(); ++i)
      if (object_of_file[i] >= first) files_of[object_of_file[i] - first].push_back(i);
    for (std::size_t k = 0; k < files_of.size(); ++k) {
      OneFile rows;
      for (const std::size_t i : files_of[k]) append_rows(rows, read_one(files[i], options));
      pass_on(out, objects[first + k], rows);
    }
  }
  out.flush();
  result.identity.digest = digest.hex();

  // One label when every object counts from the same day (a one-mission input); otherwise each
  // object's reference is in /objects/bjdrefi + /objects/bjdreff and the label says so.
  const bool any_reference = std::any_of(objects.begin(), objects.end(), [](auto& o) { return o.reference.known; });
  const bool one_reference =
      std::all_of(objects.begin(), objects.end(), [&](auto& o) { return o.reference == objects.front().reference; });
  if (any_reference) {
    const auto& known = *std::find_if(objects.begin(), objects.end(), [](auto& o) { return o.reference.known; });
    const bool one_timesys = std::all_of(objects.begin(), objects.end(), [&](auto& o) {
      return !o.reference.known || o.reference.timesys == known.reference.timesys;
    });
    result.time_reference = one_reference ? known.reference.label()
                                          : "BJD - (bjdrefi + bjdreff) of each object (" +
                                                (one_timesys ? known.reference.timesys : "TIMESYS differs") + ")";
  }
  result.has_time_references = any_reference;
  return result;
}

FitsRead read_fits_light_curves(const std::vector<std::string>& files, const FitsReadOptions& options) {
  BlockCollector all;
  auto streamed = stream_fits_light_curves(files, options, all, default_block_rows);
  FitsRead result{all.take(), std::move(streamed.identity), std::move(streamed.time_reference)};
  if (!streamed.has_time_references) {
    result.block.bjdrefi.clear();
    result.block.bjdreff.clear();
  }
  return result;
}

}  // namespace astrosweep::io
