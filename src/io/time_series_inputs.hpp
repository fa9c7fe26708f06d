#pragma once
// The inputs of fdas (and of `astrosweep convert` for time series): --input arguments expanded
// into a list of series, from SIGPROC .tim files, PRESTO .dat/.inf pairs, directories of either
// (sorted by name), @LIST files, or one HDF5 batch (h5_timeseries.hpp). Only headers are read
// here; read_time_series_samples reads one series' samples when it is needed.
//
// What a run requires of its series (docs/fdas.md, section 1): one tsamp for all (they come from
// one dedispersion plan; a mismatch names both files); lengths may differ (reported, see
// TimeSeriesInputs::length_note); every sample finite (a NaN or infinity names the file and the
// sample's index: the spectrum of a series with one NaN is NaN everywhere, and replacing gaps is
// the dedispersion tool's choice, not ours).

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "io/h5_timeseries.hpp"

namespace astrosweep::io {

enum class TimeSeriesFormat { automatic, tim, presto, hdf5 };
/// "auto", "tim", "presto", "hdf5"; UsageError otherwise.
TimeSeriesFormat parse_time_series_format(const std::string& name);
const char* time_series_format_name(TimeSeriesFormat format);

/// One series: where it is and what its header says.
struct TimeSeriesSource {
  TimeSeriesFormat format = TimeSeriesFormat::tim;
  std::string path;               ///< the .tim, the .dat of a PRESTO pair, or the HDF5 batch
  std::uint64_t batch_index = 0;  ///< hdf5: the series' index in the batch
  SeriesInfo info;                ///< dm, tsamp, tstart
  std::uint64_t n_samples = 0;
  std::string source_name;  ///< SIGPROC source_name, PRESTO "Object being observed" (may be empty)
};

struct TimeSeriesInputs {
  TimeSeriesFormat format = TimeSeriesFormat::automatic;  ///< never automatic after listing
  std::vector<TimeSeriesSource> series;
  std::uint64_t min_samples = 0, max_samples = 0;

  [[nodiscard]] bool lengths_differ() const noexcept { return min_samples != max_samples; }
  /// "series lengths differ: 1000 to 1024 samples (shortest 'a.tim', longest 'b.tim')", or empty.
  [[nodiscard]] std::string length_note() const;
  /// The paths of the series' files, newline-separated, in order (once each).
  [[nodiscard]] std::string source_paths() const;
};

/// True when the arguments (after @LIST expansion) look like time series rather than light
/// curves: the first names a .tim or .inf file, a SIGPROC file by content, a .dat with its .inf
/// beside it or whose first bytes are not text (a CSV named .dat stays a CSV), or a directory
/// holding .tim or .dat files. For convert's automatic format.
bool looks_like_time_series(const std::vector<std::string>& paths);

/// Expands --input arguments and reads every header. InputError for a missing or unreadable
/// path, a directory without .tim/.dat files, a bad header (the readers' messages), a tsamp that
/// differs from the first series' (naming both files); UsageError for inputs of several formats,
/// or an HDF5 batch given with other inputs.
TimeSeriesInputs list_time_series_inputs(const std::vector<std::string>& inputs,
                                         TimeSeriesFormat format = TimeSeriesFormat::automatic);

/// InputError naming `where` and the index (first_index + i) of the first sample that is not finite.
void require_finite_samples(std::span<const float> samples, const std::string& where, std::uint64_t first_index = 0);

/// One series' samples, read and checked: as many as its header said, every one finite.
std::vector<float> read_time_series_samples(const TimeSeriesSource& source);

}  // namespace astrosweep::io
