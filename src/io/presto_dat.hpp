#pragma once
// Reader of PRESTO time series (docs/formats.md): `NAME.dat`, raw little-endian float32 samples,
// and its text header `NAME.inf`, lines `label = value` (PRESTO pads the labels to one column).
// The labels read: "Number of bins in the time series", "Width of each time series bin (sec)",
// "Epoch of observation (MJD)" and "Dispersion measure (cm-3 pc)" (absent for X-ray and gamma-ray
// data: DM 0). Everything after "Any additional notes:" is free text.

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace astrosweep::io {

struct PrestoInf {
  std::uint64_t n_samples = 0;  ///< "Number of bins in the time series"
  double tsamp = 0;             ///< "Width of each time series bin (sec)"
  double epoch_mjd = 0;         ///< "Epoch of observation (MJD)"
  double dm = 0;                ///< "Dispersion measure (cm-3 pc)"; 0 when absent
  bool has_dm = false;
  std::string object;  ///< "Object being observed" (may be empty)
  /// Every `label = value` line in file order (labels and values trimmed), kept for provenance.
  std::vector<std::pair<std::string, std::string>> fields;
  std::string notes;  ///< the lines after "Any additional notes:"
};

/// Parses an .inf file. Throws InputError naming FILE:LINE for a line that is not `label = value`
/// or a value that is not a number where one is needed, and naming the file for a missing label.
PrestoInf read_presto_inf(const std::string& inf_path);

/// The .dat and .inf of one PRESTO time series, from either path (NAME.dat or NAME.inf). Throws
/// InputError when the path has neither extension or the other file is not beside it.
struct PrestoPaths {
  std::string dat;
  std::string inf;
};
PrestoPaths presto_paths(const std::string& dat_or_inf);

struct PrestoTimeSeries {
  PrestoPaths paths;
  PrestoInf inf;
  std::vector<float> samples;
};

/// The size of the .dat must be exactly 4 × the .inf's count (InputError saying both numbers).
void check_presto_dat_size(const PrestoPaths& paths, const PrestoInf& inf);

/// Reads the .inf and the .dat (given either). Non-finite samples are returned as they are
/// (time_series_inputs.hpp refuses them).
PrestoTimeSeries read_presto_dat(const std::string& dat_or_inf);

}  // namespace astrosweep::io
