#pragma once
// Whitening of a strain series by a PSD (spec §6): overlapping blocks (32 s, hop 16 s) are
// transformed, divided by √(S(f)·f_s/2), cut to [f_low, 0.9·f_s/2], transformed back, and only
// each block's middle half is kept, so the wrap-around of the circular transform never reaches the
// output. White noise of variance σ² has S = 2σ²/f_s, so whitened noise has the in-band PSD of
// unit-variance white noise, 2/f_s: what the bank's SNR normalisation (§7) assumes. Its variance
// per sample is the kept fraction of the band, (0.9·f_s/2 − f_low)/(f_s/2).
//
// Each block is multiplied by a window that rises and falls as cos² over its outer quarters (not
// kept) and is 1 over its middle half: without it a strong line off the blocks' frequency grid
// leaks over the whole band through a rectangular window's sidelobes.
//
// The series' ends: the series is extended at each end by a quarter block of its point reflection
// (x[−k] = 2x[0] − x[k]), so that every sample lies in some block's middle half, and the extension
// continues value and slope (a zero extension puts a step at the end, a mirror a kink, which
// strong below-band power turns into a loud transient). The jump in curvature remains: with
// below-band power 1e3 times the in-band noise, the first and last half second carry about twice
// the variance (test_whitening.cpp). Series shorter than 16 s use blocks of 4·⌊n/2⌋ samples
// (the PSD needs one 4-s Welch segment anyway).
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
