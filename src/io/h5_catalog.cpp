#include "io/h5_catalog.hpp"

#include <fcntl.h>

#include <algorithm>
#include <filesystem>
#include <span>

#include "core/error.hpp"

namespace astrosweep::io {

namespace {

// Rows per chunk of the growing datasets. Points: 2 MiB, more than HDF5's default chunk cache
// (1 MiB), so a read of whole chunks goes straight into the reader's buffer as from a contiguous
// dataset; 512 KiB chunks went through the cache and were read 1.5x slower (docs/performance.md).
// A per-object column: 128 KiB.
constexpr std::uint64_t point_chunk_rows = 1 << 18;
constexpr std::uint64_t object_chunk_rows = 1 << 14;

template <class T>
void append_column(const h5::Id& dataset, const std::vector<T>& values) {
  if (!values.empty()) h5::append_rows(dataset.get(), h5::native_type<T>(), values.size(), values.data());
}

}  // namespace

H5CatalogWriter::H5CatalogWriter(const std::string& path)
    : path_(path), part_(path + ".part"), file_(h5::open_file(part_, h5::Access::create_truncate)) {
  // The datasets in the order the one-block writer created them: /objects, then /points.
  objects_ = h5::create_group(file_.get(), "objects");
  auto column = [](const h5::Id& group, const char* name, hid_t type, std::uint64_t chunk) {
    return h5::create_growing_dataset(group.get(), name, type, chunk);
  };
  id_ = column(objects_, "id", H5T_NATIVE_INT64, object_chunk_rows);
  offset_ = column(objects_, "offset", H5T_NATIVE_UINT64, object_chunk_rows);
  count_ = column(objects_, "count", H5T_NATIVE_UINT64, object_chunk_rows);
  t_min_ = column(objects_, "t_min", H5T_NATIVE_DOUBLE, object_chunk_rows);
  t_max_ = column(objects_, "t_max", H5T_NATIVE_DOUBLE, object_chunk_rows);
  n_flagged_ = column(objects_, "n_flagged", H5T_NATIVE_UINT32, object_chunk_rows);
  points_ = h5::create_group(file_.get(), "points");
  t_ = column(points_, "t", H5T_NATIVE_DOUBLE, point_chunk_rows);
  y_ = column(points_, "y", H5T_NATIVE_DOUBLE, point_chunk_rows);
}

H5CatalogWriter::~H5CatalogWriter() {
  if (finished_) return;
  // Every identifier closed before the file is removed (h5::Id closes on assignment).
  for (h5::Id* id :
       {&id_, &offset_, &count_, &t_min_, &t_max_, &n_flagged_, &t_, &y_, &dy_, &objects_, &points_, &file_})
    *id = h5::Id();
  std::error_code ec;
  std::filesystem::remove(part_, ec);
}

void H5CatalogWriter::append(const LightCurveBlock& block) {
  AS_ASSERT(!finished_);
  const std::uint64_t n = block.n_objects();
  if (n == 0) return;
  AS_ASSERT(block.counts.size() == n && block.n_flagged.size() == n && block.y.size() == block.t.size());
  // Uncertainties for every row or for none: /points/dy begins with the first block that has them,
  // before which no row was written (FITS objects whose cadences were all flagged have none).
  if (block.has_errors() && !dy_.valid()) {
    AS_ASSERT(n_rows_ == 0);
    dy_ = h5::create_growing_dataset(points_.get(), "dy", H5T_NATIVE_DOUBLE, point_chunk_rows);
    has_errors_ = true;
  }
  AS_ASSERT(block.t.empty() || block.has_errors() == dy_.valid());
  AS_ASSERT(block.has_time_references() ? bjdrefi_.size() == n_objects_ : bjdrefi_.empty());

  const CatalogIndex index = index_of(block, {});
  std::vector<std::uint64_t> offsets(n);
  std::uint64_t row = n_rows_;
  for (std::uint64_t i = 0; i < n; ++i) {
    offsets[i] = row;
    row += block.counts[i];
  }
  AS_ASSERT(row - n_rows_ == block.t.size());
  // The rows first: a failure there leaves /objects shorter, never pointing past /points.
  append_column(t_, block.t);
  append_column(y_, block.y);
  if (dy_.valid()) append_column(dy_, block.dy);
  append_column(id_, block.ids);
  append_column(offset_, offsets);
  append_column(count_, block.counts);
  append_column(t_min_, index.t_min);
  append_column(t_max_, index.t_max);
  append_column(n_flagged_, block.n_flagged);
  bjdrefi_.insert(bjdrefi_.end(), block.bjdrefi.begin(), block.bjdrefi.end());
  bjdreff_.insert(bjdreff_.end(), block.bjdreff.begin(), block.bjdreff.end());
  n_objects_ += n;
  n_rows_ = row;
}

void H5CatalogWriter::truncate(std::uint64_t n_objects) {
  AS_ASSERT(!finished_ && n_objects <= n_objects_);
  if (n_objects == n_objects_) return;
  const std::uint64_t rows = h5::read_rows<std::uint64_t>(offset_.get(), n_objects, 1).front();
  for (const h5::Id* column : {&id_, &offset_, &count_, &t_min_, &t_max_, &n_flagged_})
    h5::truncate_rows(column->get(), n_objects);
  for (const h5::Id* column : {&t_, &y_, &dy_})
    if (column->valid()) h5::truncate_rows(column->get(), rows);
  bjdrefi_.resize(std::min<std::size_t>(bjdrefi_.size(), n_objects));
  bjdreff_.resize(std::min<std::size_t>(bjdreff_.size(), n_objects));
  n_objects_ = n_objects;
  n_rows_ = rows;
}

void H5CatalogWriter::finish(const StreamedInput& input) {
  AS_ASSERT(!finished_);
  h5::set_attribute(file_.get(), "format", std::string(catalog_format_name));
  h5::set_attribute(file_.get(), "format_version", catalog_format_version);
  h5::set_attribute(file_.get(), "time_unit", std::string("d"));
  h5::set_attribute(file_.get(), "time_reference", input.time_reference);
  h5::set_attribute(file_.get(), "source_format", input.identity.format);
  h5::set_attribute(file_.get(), "source_paths", input.identity.paths);
  h5::set_attribute(file_.get(), "source_digest", input.identity.digest);
  if (input.has_time_references) {
    AS_ASSERT(bjdrefi_.size() == n_objects_ && bjdreff_.size() == n_objects_);
    auto put = [&](const char* name, auto const& v) {
      using T = typename std::decay_t<decltype(v)>::value_type;
      h5::Id ds = h5::create_dataset(objects_.get(), name, h5::native_type<T>(), {v.size()});
      h5::write_rows<T>(ds.get(), 0, std::span<const T>(v));
      return ds;
    };
    h5::described(put("bjdrefi", bjdrefi_), "d",
                  "integer part of the BJD the object's times count from (FITS BJDREFI)");
    h5::described(put("bjdreff", bjdreff_), "d",
                  "fractional part of the BJD the object's times count from (FITS BJDREFF; NaN: the input gave none)");
  }
  for (h5::Id* id : {&id_, &offset_, &count_, &t_min_, &t_max_, &n_flagged_, &t_, &y_, &dy_, &objects_, &points_})
    *id = h5::Id();
  h5::close_file(file_);
  std::error_code ec;
  std::filesystem::rename(part_, path_, ec);
  finished_ = true;  // whole, under one name or the other: kept
  if (ec)
    throw OutputError("cannot rename '" + part_ + "' to '" + path_ + "': " + ec.message(),
                      "the complete catalog is in '" + part_ + "'; rename it yourself");
}

void write_h5_catalog(const std::string& path, const LightCurveBlock& block, const std::string& time_reference,
                      const InputIdentity& source) {
  H5CatalogWriter writer(path);
  writer.append(block);
  writer.finish({source, time_reference, block.has_time_references()});
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
  // Raw reads where the file can be opened a second time; HDF5's own reads otherwise.
  try {
    raw_file_ = PosixFile(path, O_RDONLY);
    raw_t_ = RawColumn(t_.get());
    raw_y_ = RawColumn(y_.get());
    if (dy_.valid()) raw_dy_ = RawColumn(dy_.get());
  } catch (const Error&) {
    raw_t_ = raw_y_ = raw_dy_ = RawColumn();
  }
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
                     LightCurveBlock& into, std::mutex* hdf5_lock) const {
  std::unique_lock<std::mutex> hdf5;
  if (hdf5_lock) hdf5 = std::unique_lock(*hdf5_lock);
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
  if (bjdrefi_.valid()) {
    rows(bjdrefi_.get(), into.bjdrefi, first_object, n_objects);
    rows(bjdreff_.get(), into.bjdreff, first_object, n_objects);
  } else {
    into.bjdrefi.clear();
    into.bjdreff.clear();
  }
  // The points: chunk addresses looked up now (HDF5), the bytes read after the lock is released.
  std::vector<std::pair<const RawColumn*, std::vector<double>*>> raw;
  auto points = [&](const h5::Id& dataset, RawColumn& column, std::vector<double>& v) {
    if (column.locate(dataset.get(), first_row, n_rows)) {
      v.resize(n_rows);
      raw.emplace_back(&column, &v);
    } else {
      rows(dataset.get(), v, first_row, n_rows);
    }
  };
  points(t_, raw_t_, into.t);
  points(y_, raw_y_, into.y);
  if (dy_.valid())
    points(dy_, raw_dy_, into.dy);
  else
    into.dy.clear();
  if (hdf5) hdf5.unlock();
  for (const auto& [column, v] : raw) column->read(raw_file_, first_row, n_rows, v->data());
}

}  // namespace astrosweep::io
