#pragma once
// LIGO/Virgo open-data (GWOSC) HDF5 strain files, read directly (spec §6, docs/spiir.md#strain-files):
// /strain/Strain (float64 strain; attributes Xstart = GPS start, Xspacing = 1/f_s, Npoints),
// /meta/Detector, /meta/GPSstart, /meta/Duration, /quality/simple/DQmask (int32 per second; bit 0
// = data present, the bits named by DQShortnames) and /quality/injections/Injmask. One detector per
// file. The strain comes back unwhitened (whitened = false) with the DQmask's bit 0 as its dq.

#include <string>
#include <vector>

#include "gw_strain.hpp"

namespace astrosweep::spiir {

/// True when `path` is an HDF5 file with a '/strain' or '/meta' group (GWOSC's layout), so the
/// caller knows which reader's messages to give.
bool looks_like_gwosc(const std::string& path);

/// The detector of a GWOSC file. Throws InputError naming the file when /strain/Strain or one of
/// its attributes is missing, Npoints differs from the dataset's length, Xspacing is not
/// positive, /meta disagrees with the strain (detector name, GPSstart, Duration × rate ≠ Npoints),
/// or the DQmask does not hold one value per second.
DetectorStrain read_gwosc_strain(const std::string& path);

/// The seconds of a GWOSC file with any bit of /quality/injections/Injmask set (hardware
/// injections: real signals to the filter, worth knowing about); 0 without an Injmask. Throws
/// InputError naming the file when it cannot be read.
std::size_t gwosc_injection_seconds(const std::string& path);

/// What a test writes as a GWOSC file: strain (float64), and optionally a DQmask per second
/// (empty: none written) and the Npoints attribute to write (0: the true length).
struct GwoscFile {
  std::string ifo;
  double gps_start = 0;
  double sample_rate = 4096;
  std::vector<double> strain;
  std::vector<std::int32_t> dq_mask;
  std::vector<std::int32_t> injection_mask;  ///< empty: all zero (written with the DQmask)
  std::size_t npoints = 0;
  bool with_strain = true;  ///< false: no /strain/Strain (a damaged file)
};

/// Writes `file` in GWOSC's layout (tests and tools).
void write_gwosc_strain(const std::string& path, const GwoscFile& file);

}  // namespace astrosweep::spiir
