#pragma once
// What `spiir` filters, from the --strain files (spec §6, docs/spiir.md#strain-files): astrosweep.gwstrain
// files (any number of detectors each) and GWOSC files (one detector each), their detectors put
// together and checked to share rate, start and length; the data-quality flags applied (samples of
// unusable seconds become NaN, a gap); every detector not yet whitened whitened by its own
// median-Welch PSD. Afterwards every strain is whitened and NaN marks every gap.

#include <optional>
#include <string>
#include <vector>

#include "gw_strain.hpp"
#include "psd_welch.hpp"

namespace astrosweep::spiir {

struct StrainInput {
  DetectorStrain strain;              ///< whitened; NaN marks a gap; dq applied (empty)
  std::string path;                   ///< the file it came from, for messages and the product
  std::size_t masked_seconds = 0;     ///< seconds holding an unusable sample (DQ flag or NaN)
  std::size_t injection_seconds = 0;  ///< seconds with a hardware injection (GWOSC Injmask)
  bool whitened_here = false;         ///< whitened by this job
  double whitening_seconds = 0;       ///< wall time of the PSD estimate and the whitening
  std::optional<WelchPsd> psd{};      ///< the PSD the whitening used (whitened_here, one PSD)
  /// With PSDs per stretch (whitened_here): each stretch's first sample and its PSD.
  std::vector<std::size_t> psd_stretch_starts{};
  std::vector<WelchPsd> stretch_psds{};
};

/// Reads, checks and masks. Throws InputError naming the file(s) when a file cannot be read, two
/// files hold the same detector or differ in rate, start or length, or a detector has no usable
/// sample. Detectors may still be unwhitened: see whiten_inputs.
std::vector<StrainInput> read_strain_inputs(const std::vector<std::string>& paths);

/// Whitens every detector not yet whitened by its own median-Welch PSD, band [f_low, 0.9·f_s/2]
/// (spec §6): one PSD for the whole series, or with psd_stretch_seconds > 0 one per stretch of
/// that length (stretch_whitening.hpp; the caller keeps it >= min_stretch_seconds). Throws
/// InputError naming the file (and the stretch) when the series (a stretch) holds no 4-s stretch
/// without a gap (the PSD needs one Welch segment).
void whiten_inputs(std::vector<StrainInput>& inputs, double f_low, double psd_stretch_seconds = 0);

/// Sets the samples of seconds whose dq is 0 to NaN and clears dq; returns the seconds that hold
/// an unusable sample afterwards (flagged or NaN). Seconds count from the strain's first sample.
std::size_t apply_data_quality(DetectorStrain& d);

}  // namespace astrosweep::spiir
