#include "io/time_series_inputs.hpp"

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <set>

#include "core/error.hpp"
#include "io/binary_file.hpp"
#include "io/catalog.hpp"
#include "io/h5.hpp"
#include "io/presto_dat.hpp"
#include "io/sigproc_tim.hpp"

namespace astrosweep::io {

namespace fs = std::filesystem;

TimeSeriesFormat parse_time_series_format(const std::string& name) {
  if (name == "auto") return TimeSeriesFormat::automatic;
  if (name == "tim") return TimeSeriesFormat::tim;
  if (name == "presto") return TimeSeriesFormat::presto;
  if (name == "hdf5") return TimeSeriesFormat::hdf5;
  throw UsageError("unknown time-series format '" + name + "'", "use one of auto, tim, presto, hdf5");
}

const char* time_series_format_name(TimeSeriesFormat format) {
  switch (format) {
    case TimeSeriesFormat::automatic: return "auto";
    case TimeSeriesFormat::tim: return "tim";
    case TimeSeriesFormat::presto: return "presto";
    case TimeSeriesFormat::hdf5: return "hdf5";
  }
  return "?";
}

std::string TimeSeriesInputs::length_note() const {
  if (!lengths_differ()) return {};
  const auto shortest = std::find_if(series.begin(), series.end(), [&](auto& s) { return s.n_samples == min_samples; });
  const auto longest = std::find_if(series.begin(), series.end(), [&](auto& s) { return s.n_samples == max_samples; });
  return "series lengths differ: " + std::to_string(min_samples) + " to " + std::to_string(max_samples) +
         " samples (shortest '" + shortest->path + "', longest '" + longest->path + "')";
}

std::string TimeSeriesInputs::source_paths() const {
  std::string out;
  std::set<std::string> seen;
  for (const auto& s : series)
    if (seen.insert(s.path).second) out += (out.empty() ? "" : "\n") + s.path;
  return out;
}

namespace {

std::string extension(const std::string& path) { return fs::path(path).extension().string(); }

bool starts_like_sigproc(const std::string& path) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec) || fs::file_size(path, ec) < 16) return false;
  try {
    const auto head = read_file_range(path, 0, 16);
    return std::string(reinterpret_cast<const char*>(head.data()) + 4, 12) == "HEADER_START";
  } catch (const InputError&) {
    return false;  // unreadable: the reader says so later
  }
}

// The format of one path given alone (no --format): by name, then by content.
TimeSeriesFormat format_of_file(const std::string& path) {
  const auto ext = extension(path);
  if (ext == ".tim") return TimeSeriesFormat::tim;
  if (ext == ".dat" || ext == ".inf") return TimeSeriesFormat::presto;
  if (h5::is_hdf5(path) || ext == ".h5" || ext == ".hdf5") return TimeSeriesFormat::hdf5;
  if (starts_like_sigproc(path)) return TimeSeriesFormat::tim;
  throw InputError("cannot tell the format of '" + path +
                       "': neither a SIGPROC .tim, a PRESTO .dat/.inf nor an HDF5 time-series batch",
                   "name the files *.tim or *.dat (with *.inf), or pass --format tim|presto");
}

// The series files of a directory, sorted by name: *.tim for tim, *.dat for presto, either for
// automatic (the format is then the one found; both at once is refused).
std::vector<std::string> list_directory(const std::string& dir, TimeSeriesFormat& format) {
  std::vector<std::string> tim, dat;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (!entry.is_regular_file(ec)) continue;
    const auto ext = entry.path().extension().string();
    if (ext == ".tim") tim.push_back(entry.path().string());
    if (ext == ".dat") dat.push_back(entry.path().string());
  }
  AS_EXPECTS(!ec, InputError, "cannot list directory '" + dir + "': " + ec.message(),
             "check that the directory is readable by the user running astrosweep");
  if (format == TimeSeriesFormat::tim) dat.clear();
  if (format == TimeSeriesFormat::presto) tim.clear();
  AS_EXPECTS(!tim.empty() || !dat.empty(), InputError,
             "directory '" + dir + "' contains no time series (" +
                 (format == TimeSeriesFormat::tim      ? std::string("*.tim")
                  : format == TimeSeriesFormat::presto ? std::string("*.dat")
                                                       : std::string("*.tim, *.dat")) +
                 ")",
             "give a directory of SIGPROC .tim files or PRESTO .dat/.inf pairs, or the files themselves");
  AS_EXPECTS(tim.empty() || dat.empty(), UsageError,
             "directory '" + dir + "' holds both SIGPROC .tim and PRESTO .dat files",
             "give one format per run (--format tim or --format presto picks one)");
  if (format == TimeSeriesFormat::automatic) format = tim.empty() ? TimeSeriesFormat::presto : TimeSeriesFormat::tim;
  auto& found = tim.empty() ? dat : tim;
  std::sort(found.begin(), found.end());
  return found;
}

// The shortest text that reads back as the same double: two different tsamps never look equal.
std::string seconds(double tsamp) {
  char text[32];
  const auto end = std::to_chars(text, text + sizeof text, tsamp).ptr;
  return {text, end};
}

bool same_tsamp(double a, double b) { return std::fabs(a - b) <= 1e-9 * std::max(std::fabs(a), std::fabs(b)); }

}  // namespace

bool looks_like_time_series(const std::vector<std::string>& paths) {
  if (paths.empty()) return false;
  const auto& first = paths.front();
  std::error_code ec;
  if (fs::is_directory(first, ec)) {
    for (const auto& entry : fs::directory_iterator(first, ec)) {
      const auto ext = entry.path().extension().string();
      if (ext == ".tim" || ext == ".dat") return true;
    }
    return false;
  }
  const auto ext = extension(first);
  if (ext == ".dat") {
    // Light curves are sometimes named .dat too: a .dat is PRESTO's when its .inf is beside it or
    // its first bytes are not text (float32 samples hold control bytes; a CSV does not).
    if (fs::exists(fs::path(first).replace_extension(".inf"), ec)) return true;
    try {
      const auto head = read_file_range(first, 0, std::min<std::uint64_t>(512, input_file_size(first)));
      return std::any_of(head.begin(), head.end(), [](std::byte b) {
        const auto c = std::to_integer<unsigned char>(b);
        return c < 32 && c != '\n' && c != '\r' && c != '\t';
      });
    } catch (const InputError&) {
      return false;  // unreadable: the reader of the format chosen says so
    }
  }
  return ext == ".tim" || ext == ".inf" || starts_like_sigproc(first);
}

TimeSeriesInputs list_time_series_inputs(const std::vector<std::string>& inputs, TimeSeriesFormat format) {
  AS_EXPECTS(!inputs.empty(), UsageError, "no input given", "pass --input PATH (see --help)");
  const auto paths = expand_input_lists(inputs);
  TimeSeriesInputs out;
  out.format = format;
  // Expand directories and settle the format of every path; one format per run.
  std::vector<std::string> files;
  for (const auto& p : paths) {
    std::error_code ec;
    AS_EXPECTS(fs::exists(p, ec), InputError, "input '" + p + "' does not exist", "check the path given to --input");
    TimeSeriesFormat found = format;
    if (fs::is_directory(p, ec)) {
      AS_EXPECTS(format != TimeSeriesFormat::hdf5, UsageError,
                 "input '" + p + "' is a directory, but an HDF5 batch is one file", "give the batch file");
      const auto listed = list_directory(p, found);
      files.insert(files.end(), listed.begin(), listed.end());
    } else {
      if (found == TimeSeriesFormat::automatic) found = format_of_file(p);
      files.push_back(p);
    }
    AS_EXPECTS(out.format == TimeSeriesFormat::automatic || out.format == found, UsageError,
               "the inputs mix time-series formats (" + std::string(time_series_format_name(out.format)) + " and " +
                   time_series_format_name(found) + ", at '" + p + "')",
               "give one format per run: convert the others, or search them in separate runs");
    out.format = found;
  }
  AS_EXPECTS(
      out.format != TimeSeriesFormat::hdf5 || files.size() == 1, UsageError,
      "an HDF5 time-series batch is the only input of a run; " + std::to_string(files.size()) + " inputs were given",
      "give the batch alone, or convert every series into one batch with 'astrosweep convert'");

  if (out.format == TimeSeriesFormat::hdf5) {
    const auto& path = files.front();
    const auto index = H5TimeSeries(path, MPI_COMM_NULL).read_index();
    for (std::uint64_t i = 0; i < index.n_series(); ++i)
      out.series.push_back(
          {TimeSeriesFormat::hdf5, path, i, {index.dm[i], index.tsamp[i], index.tstart_mjd[i]}, index.count[i], ""});
  } else {
    for (const auto& file : files) {
      TimeSeriesSource s;
      s.format = out.format;
      if (out.format == TimeSeriesFormat::tim) {
        const auto header = read_sigproc_header(file);
        const auto info = sigproc_time_series_info(header, input_file_size(file), file);
        s.path = file;
        s.info = {info.dm, info.tsamp, info.tstart_mjd};
        s.n_samples = info.n_samples;
        s.source_name = info.source_name;
      } else {
        const auto pair = presto_paths(file);
        const auto inf = read_presto_inf(pair.inf);
        check_presto_dat_size(pair, inf);
        s.path = pair.dat;
        s.info = {inf.dm, inf.tsamp, inf.epoch_mjd};
        s.n_samples = inf.n_samples;
        s.source_name = inf.object;
      }
      out.series.push_back(std::move(s));
    }
  }

  const auto& first = out.series.front();
  out.min_samples = out.max_samples = first.n_samples;
  for (const auto& s : out.series) {
    const bool batch = out.format == TimeSeriesFormat::hdf5;
    const std::string here = batch ? "'" + s.path + "': series " + std::to_string(s.batch_index) : "'" + s.path + "'";
    const std::string there = batch ? "series " + std::to_string(first.batch_index) : "'" + first.path + "'";
    AS_EXPECTS(same_tsamp(s.info.tsamp, first.info.tsamp), InputError,
               here + " has tsamp = " + seconds(s.info.tsamp) + " s, but " + there +
                   " has tsamp = " + seconds(first.info.tsamp) + " s: all series of one run must share tsamp",
               "the series of one run come from one dedispersion plan; search series of another tsamp in a "
               "separate run");
    out.min_samples = std::min(out.min_samples, s.n_samples);
    out.max_samples = std::max(out.max_samples, s.n_samples);
  }
  return out;
}

void require_finite_samples(std::span<const float> samples, const std::string& where, std::uint64_t first_index) {
  // Chunks of samples tested without a branch per sample (a loop the compiler vectorises: a 2^23
  // series in a millisecond or two), the first bad sample looked for only in a chunk that has one.
  constexpr std::size_t chunk = 4096;
  std::size_t from = 0;
  for (; from < samples.size(); from += chunk) {
    const std::size_t to = std::min(samples.size(), from + chunk);
    std::uint32_t any_bad = 0;
    for (std::size_t i = from; i < to; ++i) {
      // Exponent bits all set: NaN or infinite.
      const auto bits = std::bit_cast<std::uint32_t>(samples[i]);
      any_bad |= static_cast<std::uint32_t>((bits & 0x7f800000U) == 0x7f800000U);
    }
    if (any_bad != 0) break;
  }
  if (from >= samples.size()) return;
  const auto bad = std::find_if(samples.begin() + static_cast<std::ptrdiff_t>(from), samples.end(),
                                [](float v) { return !std::isfinite(v); });
  const auto i = first_index + static_cast<std::uint64_t>(bad - samples.begin());
  throw InputError(where + ": sample " + std::to_string(i) + " is " + (std::isnan(*bad) ? "NaN" : "infinite") +
                       ": fdas needs finite samples (a single NaN makes the whole spectrum NaN)",
                   "replace the gaps (with the series' mean, or zero after mean subtraction) when dedispersing, and "
                   "convert again");
}

std::vector<float> read_time_series_samples(const TimeSeriesSource& source) {
  std::vector<float> samples;
  std::string where = "'" + source.path + "'";
  switch (source.format) {
    case TimeSeriesFormat::tim: samples = read_sigproc_tim(source.path).samples; break;
    case TimeSeriesFormat::presto: samples = read_presto_dat(source.path).samples; break;
    case TimeSeriesFormat::hdf5:
      samples = H5TimeSeries(source.path, MPI_COMM_NULL).read(source.batch_index, 1).samples;
      where += ": series " + std::to_string(source.batch_index);
      break;
    case TimeSeriesFormat::automatic: throw InternalError("read_time_series_samples: a source without a format");
  }
  // The file may have changed since its header was listed.
  AS_EXPECTS(samples.size() == source.n_samples, InputError,
             where + " changed while it was read: " + std::to_string(samples.size()) + " samples, " +
                 std::to_string(source.n_samples) + " when it was listed",
             "do not modify the inputs during a run");
  require_finite_samples(samples, where);
  return samples;
}

}  // namespace astrosweep::io
