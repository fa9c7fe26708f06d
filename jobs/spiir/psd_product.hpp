#pragma once
// The PSD spiir whitened a detector's strain with, in its product (docs/spiir.md, "The trigger
// product"): /detectors/<IFO>/psd/frequency and value in the astrosweep.gwstrain file's layout
// (gw_strain.hpp), so `spiirbank --psd` reads either file, and attributes on the psd group saying
// how it was estimated (psd_welch.hpp) and which stretch of the strain it covers.

#include <hdf5.h>

#include <string>

#include "gw_strain.hpp"
#include "psd_welch.hpp"

namespace astrosweep::spiir {

/// Writes `estimate`, made from `strain` (its start and rate give the span's GPS times), as
/// /detectors/<ifo>/psd of `file`, creating /detectors and /detectors/<ifo> as needed.
void write_estimated_psd(hid_t file, const DetectorStrain& strain, const WelchPsd& estimate);

}  // namespace astrosweep::spiir
