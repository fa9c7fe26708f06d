#pragma once
// Whitening of a strain series by a PSD (spec §6): overlapping blocks (32 s, hop 16 s) are
// transformed, divided by √(S(f)·f_s/2), cut to [f_low, 0.9·f_s/2], transformed back, and only
// each block's middle half is kept, so the wrap-around of the circular transform never reaches the
// output. White noise of variance σ² has S = 2σ²/f_s, so whitened noise has the in-band PSD of
// unit-variance white noise, 2/f_s: what the bank's SNR normalisation (§7) assumes. Its variance
// per sample is the kept fraction of the band, (0.9·f_s/2 − f_low)/(f_s/2).
//
// The series' ends: the series is extended at each end by a quarter block of its mirror image
// (x[−k] = x[k]), so that every sample lies in some block's middle half and the extension has no
// step for the transform to ring on. Series shorter than twice a block use blocks of
// 4·⌊n/2⌋ samples (at least one Welch segment is needed for the PSD anyway).
//
// Gaps (NaN samples): zeroed, the data on either side rolled off to zero by a cos² over
// `gap_taper_seconds` (a step from coloured noise to zero would ring through the whole kernel),
// and the gap together with both tapers comes back NaN, so the filtering treats it as a gap.

#include <cstddef>
#include <span>
#include <vector>

#include "gw_strain.hpp"

namespace astrosweep::spiir {

struct WhiteningSettings {
  double f_low = 15;               ///< Hz; below it the whitened data are zero
  double block_seconds = 32;       ///< the transform's length; its middle half is kept
  double gap_taper_seconds = 0.5;  ///< roll-off on each side of a gap, returned as NaN too
};

/// Whitened `x` (same length, at least 2 samples): see above. Bins where `psd` is not positive
/// and finite are zeroed like those outside the band.
std::vector<double> whiten(std::span<const double> x, double sample_rate, const SampledPsd& psd,
                           const WhiteningSettings& settings);

/// The block length whiten uses for n samples (a multiple of 4).
std::size_t whitening_block_samples(std::size_t n, double sample_rate, double block_seconds);

}  // namespace astrosweep::spiir
