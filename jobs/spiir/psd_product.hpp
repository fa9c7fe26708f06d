#pragma once
// The PSD spiir whitened a detector's strain with, in its product (docs/spiir.md, "The trigger
// product"): /detectors/<IFO>/psd/frequency and value in the astrosweep.gwstrain file's layout
// (gw_strain.hpp), so `spiirbank --psd` reads either file, and attributes on the psd group saying
// how it was estimated (psd_welch.hpp) and which stretch of the strain it covers; or, with a PSD
// per stretch, a 2-D value (stretch × frequency).

#include <hdf5.h>

#include <string>
#include <vector>

#include "gw_strain.hpp"
#include "psd_welch.hpp"

namespace astrosweep::spiir {

/// Writes `estimate`, made from `strain` (its start and rate give the span's GPS times), as
/// /detectors/<ifo>/psd of `file`, creating /detectors and /detectors/<ifo> as needed.
void write_estimated_psd(hid_t file, const DetectorStrain& strain, const WelchPsd& estimate);

/// One PSD per stretch (--psd-stretch-seconds, stretch_whitening.hpp): value becomes stretch ×
/// frequency, with the stretches' GPS start times (stretch_start) and frequency as its dimension
/// scales, and each stretch's n_segments and median_bias as datasets.
void write_stretch_psds(hid_t file, const DetectorStrain& strain, double stretch_seconds,
                        const std::vector<std::size_t>& starts, const std::vector<WelchPsd>& estimates);

}  // namespace astrosweep::spiir
