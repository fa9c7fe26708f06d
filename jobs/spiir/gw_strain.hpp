#pragma once
// Detector strain in the `astrosweep.gwstrain` HDF5 layout (spec §6, docs/spiir.md#strain-files):
// /detectors/<IFO>/strain (float32) with gps_start_s, gps_start_ns, sample_rate, whitened, f_low.
// The reader checks what the filtering relies on and names the file in every message.

#include <cstdint>
#include <string>
#include <vector>

#include "io/h5.hpp"

namespace astrosweep::spiir {

inline constexpr const char* strain_format_name = "astrosweep.gwstrain";

struct DetectorStrain {
  std::string ifo;
  std::int64_t gps_start_s = 0;
  std::int32_t gps_start_ns = 0;
  double sample_rate = 0;
  bool whitened = true;
  double f_low = 0;
  std::vector<float> strain;  ///< NaN marks a gap
  /// Data quality per second from the start (1 usable, 0 not), /detectors/<IFO>/dq; empty: all
  /// usable. Applied by read_strain_inputs (strain_input.hpp), which empties it.
  std::vector<std::uint8_t> dq;
};

/// Every detector of the file, in name order. Throws InputError naming the file when it is not
/// such a file, a detector lacks an attribute, the detectors differ in rate, start or length, a
/// detector holds no sample, or its dq does not hold one value per (started) second.
std::vector<DetectorStrain> read_gw_strain(const std::string& path);

/// A one-sided PSD sampled at increasing frequencies: Hz and strain²/Hz.
struct SampledPsd {
  std::vector<double> frequency, value;
  /// Linear interpolation; the caller keeps f within [frequency.front(), frequency.back()].
  [[nodiscard]] double operator()(double f) const;
};

/// /detectors/<IFO>/psd/frequency and value of a strain file (spec §6) or of a spiir product that
/// whitened the strain itself (the same group). Throws InputError naming the
/// file when they are missing, of different lengths, not increasing, not positive and finite, or
/// do not cover [f_low, f_high].
SampledPsd read_psd(const std::string& path, const std::string& ifo, double f_low, double f_high);

/// Creates `psd` in a detector's group (/detectors/<IFO>) with its frequency and value, described,
/// frequency the dimension scale of value: the layout of a gwstrain file and of spiir's product.
h5::Id write_psd_group(hid_t detector_group, const SampledPsd& psd);

/// Writes a file in that layout (tests and tools); the root's "format" is astrosweep.gwstrain.
/// `psds` (optional, one per detector or none) are written as each detector's psd group.
void write_gw_strain(const std::string& path, const std::vector<DetectorStrain>& detectors,
                     const std::vector<SampledPsd>& psds = {});

}  // namespace astrosweep::spiir
