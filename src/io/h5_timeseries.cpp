#include "io/h5_timeseries.hpp"

#include <cmath>
#include <filesystem>

#include "core/error.hpp"

namespace astrosweep::io {

namespace {

// Rows per chunk of the growing datasets: 256 KiB of samples (a chunk is the unit HDF5 reads, so
// a rank reading one series touches at most one partial chunk at each end).
constexpr std::uint64_t sample_chunk_rows = 1 << 16;
constexpr std::uint64_t series_chunk_rows = 1 << 10;

constexpr const char* rebuild_hint =
    "re-create the batch with 'astrosweep convert' (docs/formats.md has the layout other writers must follow)";

}  // namespace

H5TimeSeriesWriter::H5TimeSeriesWriter(const std::string& path, const std::string& source_format,
                                       const std::string& source_paths)
    : path_(path), file_(h5::open_file(path, h5::Access::create_truncate)) {
  h5::set_attribute(file_.get(), "format", std::string(timeseries_format_name));
  h5::set_attribute(file_.get(), "format_version", timeseries_format_version);
  h5::set_attribute(file_.get(), "source_format", source_format);
  h5::set_attribute(file_.get(), "source_paths", source_paths);
  h5::Id series = h5::create_group(file_.get(), "series");
  auto column = [&](const char* name, hid_t type, const char* units, const char* description) {
    return h5::described(h5::create_growing_dataset(series.get(), name, type, series_chunk_rows), units, description);
  };
  dm_ = column("dm", H5T_NATIVE_DOUBLE, "pc cm^-3", "dispersion measure of the series (DM trial)");
  tsamp_ = column("tsamp", H5T_NATIVE_DOUBLE, "s", "sampling interval");
  tstart_ = column("tstart_mjd", H5T_NATIVE_DOUBLE, "d", "epoch of the first sample, MJD");
  offset_ = column("offset", H5T_NATIVE_UINT64, "1", "first row of the series in /samples/x");
  count_ = column("count", H5T_NATIVE_UINT64, "1", "number of samples of the series (rows of /samples/x)");
  h5::Id samples = h5::create_group(file_.get(), "samples");
  x_ = h5::described(h5::create_growing_dataset(samples.get(), "x", H5T_NATIVE_FLOAT, sample_chunk_rows), "arbitrary",
                     "samples of every series, series after series (rows offset .. offset + count - 1 of /series)");
}

H5TimeSeriesWriter::~H5TimeSeriesWriter() {
  if (finished_) return;
  // Every identifier closed before the file is removed (h5::Id closes on assignment).
  for (h5::Id* id : {&dm_, &tsamp_, &tstart_, &offset_, &count_, &x_, &file_}) *id = h5::Id();
  std::error_code ec;
  std::filesystem::remove(path_, ec);
}

std::uint64_t H5TimeSeriesWriter::append(const SeriesInfo& info, std::span<const float> samples) {
  AS_ASSERT(!finished_);
  AS_ASSERT(!samples.empty());  // a series has samples (the listing refuses empty ones; the reader too)
  // The samples first: a failure there leaves /series one row shorter, never pointing past /samples.
  const std::uint64_t offset = h5::append_rows(x_.get(), H5T_NATIVE_FLOAT, samples.size(), samples.data());
  AS_ASSERT(offset == n_rows_);
  const std::uint64_t count = samples.size();
  h5::append_rows(dm_.get(), H5T_NATIVE_DOUBLE, 1, &info.dm);
  h5::append_rows(tsamp_.get(), H5T_NATIVE_DOUBLE, 1, &info.tsamp);
  h5::append_rows(tstart_.get(), H5T_NATIVE_DOUBLE, 1, &info.tstart_mjd);
  h5::append_rows(offset_.get(), H5T_NATIVE_UINT64, 1, &offset);
  h5::append_rows(count_.get(), H5T_NATIVE_UINT64, 1, &count);
  n_rows_ += count;
  return n_series_++;
}

void H5TimeSeriesWriter::finish() {
  AS_ASSERT(!finished_);
  for (h5::Id* id : {&dm_, &tsamp_, &tstart_, &offset_, &count_, &x_}) *id = h5::Id();
  h5::close_file(file_);
  finished_ = true;
}

H5TimeSeries::H5TimeSeries(const std::string& path, MPI_Comm comm)
    : path_(path), file_(h5::open_file(path, h5::Access::read, comm)) {
  const auto format = h5::string_attribute(file_.get(), "format");
  AS_EXPECTS(format && *format == timeseries_format_name, InputError,
             "'" + path + "' is an HDF5 file but not an astrosweep time-series batch (format = \"" +
                 std::string(timeseries_format_name) + "\")",
             "convert SIGPROC .tim or PRESTO .dat/.inf files with 'astrosweep convert' (docs/formats.md has the "
             "layout)");
  const auto version = h5::int_attribute(file_.get(), "format_version");
  AS_EXPECTS(version && *version == timeseries_format_version, InputError,
             "'" + path + "': unsupported time-series batch format_version (this astrosweep reads " +
                 std::to_string(timeseries_format_version) + ")",
             "re-create it with this astrosweep's convert");
  for (const char* name :
       {"series/dm", "series/tsamp", "series/tstart_mjd", "series/offset", "series/count", "samples/x"})
    AS_EXPECTS(h5::exists(file_.get(), name), InputError,
               "'" + path + "': time-series batch dataset /" + std::string(name) + " is missing", rebuild_hint);
  dm_ = h5::open_dataset(file_.get(), "series/dm");
  tsamp_ = h5::open_dataset(file_.get(), "series/tsamp");
  tstart_ = h5::open_dataset(file_.get(), "series/tstart_mjd");
  offset_ = h5::open_dataset(file_.get(), "series/offset");
  count_ = h5::open_dataset(file_.get(), "series/count");
  x_ = h5::open_dataset(file_.get(), "samples/x");
}

namespace {

// A batch dataset must be a 1-D column of numbers: anything else would be read into the wrong
// amount of memory or converted into garbage. Returns its length.
std::uint64_t column_length(const std::string& path, hid_t dataset, const std::string& name) {
  const auto d = h5::dims(dataset);
  AS_EXPECTS(
      d.size() == 1, InputError,
      "'" + path + "': time-series batch dataset /" + name + " has " + std::to_string(d.size()) + " dimensions, not 1",
      rebuild_hint);
  h5::Id type(H5Dget_type(dataset));
  const auto type_class = H5Tget_class(type.get());
  AS_EXPECTS(type_class == H5T_INTEGER || type_class == H5T_FLOAT, InputError,
             "'" + path + "': time-series batch dataset /" + name + " does not hold numbers", rebuild_hint);
  return d[0];
}

}  // namespace

void H5TimeSeries::check_layout() const {
  const std::uint64_t n = column_length(path_, dm_.get(), "series/dm");
  for (const auto& [column, name] : {std::pair{&tsamp_, "series/tsamp"}, std::pair{&tstart_, "series/tstart_mjd"},
                                     std::pair{&offset_, "series/offset"}, std::pair{&count_, "series/count"}})
    AS_EXPECTS(column_length(path_, column->get(), name) == n, InputError,
               "'" + path_ + "': /" + std::string(name) + " and /series/dm have different lengths", rebuild_hint);
  column_length(path_, x_.get(), "samples/x");
}

TimeSeriesIndex H5TimeSeries::read_index() const {
  check_layout();
  TimeSeriesIndex index;
  index.dm = h5::read_all<double>(file_.get(), "series/dm");
  index.tsamp = h5::read_all<double>(file_.get(), "series/tsamp");
  index.tstart_mjd = h5::read_all<double>(file_.get(), "series/tstart_mjd");
  index.offset = h5::read_all<std::uint64_t>(file_.get(), "series/offset");
  index.count = h5::read_all<std::uint64_t>(file_.get(), "series/count");
  index.source_format = h5::string_attribute(file_.get(), "source_format").value_or("");
  index.source_paths = h5::string_attribute(file_.get(), "source_paths").value_or("");
  const std::size_t n = index.n_series();
  AS_EXPECTS(n > 0, InputError, "'" + path_ + "' is a time-series batch without series",
             "convert inputs that hold time series");
  // Checked against the rows there are as it goes, so a huge count cannot wrap the sum around.
  const std::uint64_t rows = h5::column_length(x_.get());
  std::uint64_t row = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const std::string series = "series " + std::to_string(i);
    AS_EXPECTS(index.offset[i] == row, InputError,
               "'" + path_ + "': " + series + " starts at row " + std::to_string(index.offset[i]) +
                   " of /samples/x, not " + std::to_string(row) + " where the previous one ends",
               "series must be stored contiguously in order; " + std::string(rebuild_hint));
    AS_EXPECTS(index.count[i] > 0, InputError, "'" + path_ + "': " + series + " has no samples (count 0)",
               rebuild_hint);
    AS_EXPECTS(index.count[i] <= rows - row, InputError,
               "'" + path_ + "': " + series + " counts " + std::to_string(index.count[i]) +
                   " samples, but /samples/x has " + std::to_string(rows - row) + " rows left",
               rebuild_hint);
    AS_EXPECTS(std::isfinite(index.tsamp[i]) && index.tsamp[i] > 0, InputError,
               "'" + path_ + "': " + series + " has tsamp = " + std::to_string(index.tsamp[i]) +
                   " s: the sampling interval must be a positive number",
               rebuild_hint);
    row += index.count[i];
  }
  AS_EXPECTS(
      row == rows, InputError,
      "'" + path_ + "': /samples/x has " + std::to_string(rows) + " rows but the series count " + std::to_string(row),
      rebuild_hint);
  return index;
}

TimeSeriesBlock H5TimeSeries::read(std::uint64_t first_series, std::uint64_t n_series) const {
  const std::uint64_t n = h5::column_length(count_.get());
  AS_EXPECTS(first_series <= n && n_series <= n - first_series, InputError,
             "'" + path_ + "': series " + std::to_string(first_series) + " to " +
                 std::to_string(first_series + n_series) + " asked for, but the batch has " + std::to_string(n));
  TimeSeriesBlock block;
  block.first_series = first_series;
  block.dm = h5::read_rows<double>(dm_.get(), first_series, n_series);
  block.tsamp = h5::read_rows<double>(tsamp_.get(), first_series, n_series);
  block.tstart_mjd = h5::read_rows<double>(tstart_.get(), first_series, n_series);
  block.counts = h5::read_rows<std::uint64_t>(count_.get(), first_series, n_series);
  const auto offsets = h5::read_rows<std::uint64_t>(offset_.get(), first_series, n_series);
  if (n_series == 0) return block;
  // The rows of this range only; contiguous, and within /samples/x (checked without wrapping).
  const std::uint64_t rows = h5::column_length(x_.get());
  const std::uint64_t first_row = offsets.front();
  std::uint64_t row = first_row;
  for (std::uint64_t i = 0; i < n_series; ++i) {
    AS_EXPECTS(offsets[i] == row && row <= rows && block.counts[i] <= rows - row, InputError,
               "'" + path_ + "': series " + std::to_string(first_series + i) + " (offset " +
                   std::to_string(offsets[i]) + ", count " + std::to_string(block.counts[i]) +
                   ") is not stored where the previous one ends, or runs past /samples/x (" + std::to_string(rows) +
                   " rows)",
               rebuild_hint);
    row += block.counts[i];
  }
  block.samples.resize(row - first_row);
  h5::read_rows(x_.get(), H5T_NATIVE_FLOAT, first_row, row - first_row, block.samples.data());
  return block;
}

}  // namespace astrosweep::io
