#pragma once
// The HDF5 time-series batch `astrosweep.timeseries` (docs/formats.md), the scalable input of fdas:
//   /                  attrs format="astrosweep.timeseries", format_version=1, source_format,
//                            source_paths (newline-separated)
//   /series/dm         float64 [n]  DM of each trial (pc cm^-3)
//   /series/tsamp      float64 [n]  sampling interval (s)
//   /series/tstart_mjd float64 [n]  epoch of the first sample (MJD)
//   /series/offset     uint64  [n]  first row of the series in /samples/x
//   /series/count      uint64  [n]  rows of the series
//   /samples/x         float32 [Σcount] the samples, series after series
// Series are contiguous and in order: offset[0] = 0, offset[i+1] = offset[i] + count[i]. Every
// dataset has the attributes `units` and `description`.

#include <mpi.h>

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "io/h5.hpp"

namespace astrosweep::io {

inline constexpr const char* timeseries_format_name = "astrosweep.timeseries";
inline constexpr std::int64_t timeseries_format_version = 1;

/// One series' metadata (what a row of /series holds, less its rows).
struct SeriesInfo {
  double dm = 0;          ///< pc cm^-3
  double tsamp = 0;       ///< s
  double tstart_mjd = 0;  ///< MJD of the first sample
};

/// Writes a batch series by series (one process): only the series being appended is in memory.
/// A writer destroyed before finish() (an error while reading the inputs) removes its file, so a
/// failed conversion leaves no batch that could be mistaken for a whole one.
class H5TimeSeriesWriter {
 public:
  /// Creates `path` (replacing a file there); OutputError when it cannot.
  H5TimeSeriesWriter(const std::string& path, const std::string& source_format, const std::string& source_paths);
  ~H5TimeSeriesWriter();
  H5TimeSeriesWriter(const H5TimeSeriesWriter&) = delete;
  H5TimeSeriesWriter& operator=(const H5TimeSeriesWriter&) = delete;

  /// Appends one series; returns its index.
  std::uint64_t append(const SeriesInfo& info, std::span<const float> samples);
  /// Closes the file (OutputError when its last writes fail). Nothing may be appended afterwards.
  void finish();

  [[nodiscard]] std::uint64_t n_series() const noexcept { return n_series_; }
  [[nodiscard]] std::uint64_t n_rows() const noexcept { return n_rows_; }

 private:
  std::string path_;
  h5::Id file_;
  h5::Id dm_, tsamp_, tstart_, offset_, count_, x_;
  std::uint64_t n_series_ = 0;
  std::uint64_t n_rows_ = 0;
  bool finished_ = false;
};

/// The index rank 0 plans with: one entry per series.
struct TimeSeriesIndex {
  std::vector<double> dm, tsamp, tstart_mjd;
  std::vector<std::uint64_t> offset, count;
  std::string source_format, source_paths;

  [[nodiscard]] std::size_t n_series() const noexcept { return dm.size(); }
};

/// Series [first_series, first_series + counts.size()), their samples one after the other.
struct TimeSeriesBlock {
  std::uint64_t first_series = 0;
  std::vector<double> dm, tsamp, tstart_mjd;
  std::vector<std::uint64_t> counts;
  std::vector<float> samples;

  [[nodiscard]] std::size_t n_series() const noexcept { return counts.size(); }
};

/// A batch opened serially (MPI_COMM_NULL) or by every rank of `comm` through MPI-IO; each rank
/// then reads only its series, with independent reads (as H5Catalog does).
class H5TimeSeries {
 public:
  /// InputError naming the file when it is not an HDF5 file or not this format (version).
  H5TimeSeries(const std::string& path, MPI_Comm comm);
  /// InputError naming the file and dataset when a dataset is missing, not a 1-D column of
  /// numbers, or the /series columns differ in length (metadata only).
  void check_layout() const;
  /// Reads and checks the index: at least one series, offsets contiguous from 0 in order, the
  /// counts adding up to the length of /samples/x (checked without wrapping around), each tsamp
  /// finite and > 0. InputError naming the file and the series otherwise.
  [[nodiscard]] TimeSeriesIndex read_index() const;
  /// Series [first_series, first_series + n_series): their /series rows and their samples only.
  /// InputError when the range is beyond the batch or their offsets and counts are inconsistent.
  [[nodiscard]] TimeSeriesBlock read(std::uint64_t first_series, std::uint64_t n_series) const;
  [[nodiscard]] const std::string& path() const noexcept { return path_; }

 private:
  std::string path_;
  h5::Id file_;
  h5::Id dm_, tsamp_, tstart_, offset_, count_, x_;
};

}  // namespace astrosweep::io
