#include "io/h5_catalog.hpp"

#include <filesystem>

#include "core/error.hpp"

namespace astrosweep::io {

void write_h5_catalog(const std::string& path, const LightCurveBlock& block, const std::string& time_reference,
                      const InputIdentity& source) {
  const CatalogIndex index = index_of(block, time_reference);
  h5::Id file = h5::open_file(path, h5::Access::create_truncate);
  h5::set_attribute(file.get(), "format", std::string(catalog_format_name));
  h5::set_attribute(file.get(), "format_version", catalog_format_version);
  h5::set_attribute(file.get(), "time_unit", std::string("d"));
  h5::set_attribute(file.get(), "time_reference", time_reference);
  h5::set_attribute(file.get(), "source_format", source.format);
  h5::set_attribute(file.get(), "source_paths", source.paths);
  h5::set_attribute(file.get(), "source_digest", source.digest);

  const std::uint64_t n = block.n_objects();
  std::vector<std::uint64_t> offsets(n);
  std::uint64_t row = 0;
  for (std::uint64_t i = 0; i < n; ++i) {
    offsets[i] = row;
    row += block.counts[i];
  }
  h5::Id objects = h5::create_group(file.get(), "objects");
  auto put = [&](hid_t loc, const char* name, auto const& v) {
    using T = typename std::decay_t<decltype(v)>::value_type;
    h5::Id ds = h5::create_dataset(loc, name, h5::native_type<T>(), {v.size()});
    h5::write_rows<T>(ds.get(), 0, std::span<const T>(v));
    return ds;
  };
  put(objects.get(), "id", block.ids);
  put(objects.get(), "offset", offsets);
  put(objects.get(), "count", block.counts);
  put(objects.get(), "t_min", index.t_min);
  put(objects.get(), "t_max", index.t_max);
  put(objects.get(), "n_flagged", block.n_flagged);
  if (block.has_time_references()) {
    h5::described(put(objects.get(), "bjdrefi", block.bjdrefi), "d",
                  "integer part of the BJD the object's times count from (FITS BJDREFI)");
    h5::described(put(objects.get(), "bjdreff", block.bjdreff), "d",
                  "fractional part of the BJD the object's times count from (FITS BJDREFF; NaN: the input gave none)");
  }
  h5::Id points = h5::create_group(file.get(), "points");
  put(points.get(), "t", block.t);
  put(points.get(), "y", block.y);
  if (block.has_errors()) put(points.get(), "dy", block.dy);
}

namespace {

constexpr const char* rebuild_hint =
    "re-create the catalog with 'astrosweep convert' (docs/formats.md has the layout other writers must follow)";

// A catalog dataset must be a 1-D column of numbers: anything else would be read into the wrong
// amount of memory or converted into garbage. Returns its length.
std::uint64_t column_length(const std::string& path, hid_t dataset, const std::string& name) {
  const auto d = h5::dims(dataset);
  AS_EXPECTS(d.size() == 1, InputError,
             "'" + path + "': catalog dataset /" + name + " has " + std::to_string(d.size()) + " dimensions, not 1",
             rebuild_hint);
  h5::Id type(H5Dget_type(dataset));
  const auto type_class = H5Tget_class(type.get());
  AS_EXPECTS(type_class == H5T_INTEGER || type_class == H5T_FLOAT, InputError,
             "'" + path + "': catalog dataset /" + name + " does not hold numbers", rebuild_hint);
  return d[0];
}

}  // namespace

H5Catalog::H5Catalog(const std::string& path, MPI_Comm comm)
    : path_(path), file_(h5::open_file(path, h5::Access::read, comm)) {
  const auto format = h5::string_attribute(file_.get(), "format");
  AS_EXPECTS(format && *format == catalog_format_name, InputError,
             "'" + path + "' is an HDF5 file but not an astrosweep light-curve catalog",
             "convert CSV or FITS inputs with 'astrosweep convert' (docs/formats.md has the layout)");
  const auto version = h5::int_attribute(file_.get(), "format_version");
  AS_EXPECTS(version && *version == catalog_format_version, InputError,
             "'" + path + "': unsupported catalog format_version", "re-create it with this astrosweep's convert");
  for (const char* name :
       {"objects/id", "objects/offset", "objects/count", "objects/t_min", "objects/t_max", "points/t", "points/y"})
    AS_EXPECTS(h5::exists(file_.get(), name), InputError,
               "'" + path + "': catalog dataset /" + std::string(name) + " is missing", rebuild_hint);
  ids_ = h5::open_dataset(file_.get(), "objects/id");
  counts_ = h5::open_dataset(file_.get(), "objects/count");
  if (h5::exists(file_.get(), "objects/n_flagged")) n_flagged_ = h5::open_dataset(file_.get(), "objects/n_flagged");
  // Per-object references (FITS inputs, possibly of several missions) or none: one root label.
  const bool has_refi = h5::exists(file_.get(), "objects/bjdrefi");
  AS_EXPECTS(has_refi == h5::exists(file_.get(), "objects/bjdreff"), InputError,
             "'" + path + "': the catalog has one of /objects/bjdrefi and /objects/bjdreff but not the other",
             "write both (each object's time reference is their sum) or neither");
  if (has_refi) {
    bjdrefi_ = h5::open_dataset(file_.get(), "objects/bjdrefi");
    bjdreff_ = h5::open_dataset(file_.get(), "objects/bjdreff");
  }
  t_ = h5::open_dataset(file_.get(), "points/t");
  y_ = h5::open_dataset(file_.get(), "points/y");
  if (h5::exists(file_.get(), "points/dy")) dy_ = h5::open_dataset(file_.get(), "points/dy");
}

void H5Catalog::check_layout() const {
  const std::uint64_t n_objects = column_length(path_, ids_.get(), "objects/id");
  for (const char* name : {"objects/offset", "objects/count", "objects/t_min", "objects/t_max", "objects/n_flagged",
                           "objects/bjdrefi", "objects/bjdreff"}) {
    if (!h5::exists(file_.get(), name)) continue;
    h5::Id column = h5::open_dataset(file_.get(), name);
    AS_EXPECTS(column_length(path_, column.get(), name) == n_objects, InputError,
               "'" + path_ + "': /" + name + " and /objects/id have different lengths", rebuild_hint);
  }
  const std::uint64_t n_rows = column_length(path_, t_.get(), "points/t");
  for (const auto& [column, name] : {std::pair{&y_, "points/y"}, std::pair{&dy_, "points/dy"}})
    if (column->valid())
      AS_EXPECTS(column_length(path_, column->get(), name) == n_rows, InputError,
                 "'" + path_ + "': /" + name + " and /points/t have different lengths", rebuild_hint);
}

CatalogIndex H5Catalog::read_index() const {
  check_layout();
  CatalogIndex index;
  index.ids = h5::read_all<std::int64_t>(file_.get(), "objects/id");
  index.counts = h5::read_all<std::uint64_t>(file_.get(), "objects/count");
  index.t_min = h5::read_all<double>(file_.get(), "objects/t_min");
  index.t_max = h5::read_all<double>(file_.get(), "objects/t_max");
  const auto offsets = h5::read_all<std::uint64_t>(file_.get(), "objects/offset");
  index.has_errors = dy_.valid();
  index.has_time_references = bjdrefi_.valid();
  index.time_reference = h5::string_attribute(file_.get(), "time_reference").value_or("");
  const std::size_t n = index.ids.size();
  AS_EXPECTS(n > 0, InputError, "'" + path_ + "' is a catalog without objects",
             "convert an input that has light curves in it");
  AS_EXPECTS(index.counts.size() == n && offsets.size() == n && index.t_min.size() == n && index.t_max.size() == n &&
                 (!n_flagged_.valid() || h5::column_length(n_flagged_.get()) == n),
             InputError, "'" + path_ + "': the /objects datasets have different lengths");
  // Checked against the rows there are as it goes, so a huge count cannot wrap the sum around.
  const std::uint64_t rows = h5::column_length(t_.get());
  std::uint64_t row = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const std::string object = "object " + std::to_string(i) + " (id " + std::to_string(index.ids[i]) + ")";
    AS_EXPECTS(offsets[i] == row, InputError,
               "'" + path_ + "': " + object + " does not start where the previous one ends",
               "objects must be stored contiguously in order; re-create the catalog with 'astrosweep convert'");
    AS_EXPECTS(index.counts[i] <= rows - row, InputError,
               "'" + path_ + "': " + object + " counts " + std::to_string(index.counts[i]) +
                   " rows, but /points/t has " + std::to_string(rows - row) + " left");
    row += index.counts[i];
  }
  AS_EXPECTS(
      row == rows, InputError,
      "'" + path_ + "': /points/t has " + std::to_string(rows) + " rows but the objects count " + std::to_string(row),
      rebuild_hint);
  AS_EXPECTS(h5::column_length(y_.get()) == rows && (!dy_.valid() || h5::column_length(dy_.get()) == rows), InputError,
             "'" + path_ + "': the /points datasets have different lengths", rebuild_hint);
  require_unique_ids(index.ids, path_);
  return index;
}

InputIdentity H5Catalog::identity(const CatalogIndex& index) const {
  InputIdentity id;
  id.format = "hdf5";
  id.paths = path_;
  std::error_code ec;
  id.bytes = std::filesystem::file_size(path_, ec);
  Fnv1a64 digest;
  digest.update(index.ids.data(), index.ids.size() * sizeof(std::int64_t));
  digest.update(index.counts.data(), index.counts.size() * sizeof(std::uint64_t));
  id.digest = digest.hex();
  return id;
}

LightCurveBlock H5Catalog::read(std::uint64_t first_object, std::uint64_t n_objects, std::uint64_t first_row,
                                std::uint64_t n_rows) const {
  LightCurveBlock block;
  read(first_object, n_objects, first_row, n_rows, block);
  return block;
}

void H5Catalog::read(std::uint64_t first_object, std::uint64_t n_objects, std::uint64_t first_row, std::uint64_t n_rows,
                     LightCurveBlock& into) const {
  // resize() keeps a vector's memory when it shrinks or stays: only growth allocates and zeroes.
  auto rows = [](hid_t dataset, auto& v, std::uint64_t first, std::uint64_t n) {
    using T = typename std::decay_t<decltype(v)>::value_type;
    h5::column_length(dataset);
    v.resize(n);
    h5::read_rows(dataset, h5::native_type<T>(), first, n, v.data());
  };
  rows(ids_.get(), into.ids, first_object, n_objects);
  rows(counts_.get(), into.counts, first_object, n_objects);
  if (n_flagged_.valid())
    rows(n_flagged_.get(), into.n_flagged, first_object, n_objects);
  else
    into.n_flagged.assign(n_objects, 0);
  rows(t_.get(), into.t, first_row, n_rows);
  rows(y_.get(), into.y, first_row, n_rows);
  if (dy_.valid())
    rows(dy_.get(), into.dy, first_row, n_rows);
  else
    into.dy.clear();
  if (bjdrefi_.valid()) {
    rows(bjdrefi_.get(), into.bjdrefi, first_object, n_objects);
    rows(bjdreff_.get(), into.bjdreff, first_object, n_objects);
  } else {
    into.bjdrefi.clear();
    into.bjdreff.clear();
  }
}

}  // namespace astrosweep::io
