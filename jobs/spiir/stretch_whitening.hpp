#pragma once
// Whitening by one PSD per stretch (spiir --psd-stretch-seconds, docs/spiir.md#strain-files): a
// detector's PSD drifts over a long file (a 4096-s open-data file is not stationary), so the
// series is cut into stretches of S seconds (the last takes the remainder), each stretch's PSD is
// estimated from its own samples (psd_welch.hpp), and each stretch is whitened by its PSD
// (whitening.hpp) over itself and `stretch_pad_seconds` of its neighbours on either side, so the
// whitening's own end effects fall outside what is kept. Adjacent stretches' whitened series are
// cross-faded over `stretch_crossfade_seconds` centred on their common edge (weights cos² and sin²,
// summing to 1): in stationary noise the two whitened series nearly agree and the edge leaves no
// transient; where the PSD changes, the output passes smoothly from one whitening to the other.

#include <cstddef>
#include <span>
#include <vector>

#include "gw_strain.hpp"
#include "whitening.hpp"

namespace astrosweep::spiir {

/// Seconds over which two adjacent stretches' whitened series are cross-faded (centred on the edge).
inline constexpr double stretch_crossfade_seconds = 1.0;
/// Seconds of neighbouring data whitened with a stretch beyond the cross-fade, on each side.
inline constexpr double stretch_pad_seconds = 8.0;
/// The shortest stretch: two Welch segments (psd_welch.hpp's 4 s).
inline constexpr double min_stretch_seconds = 8.0;

/// The first sample of each stretch of `stretch_seconds` in n samples: 0, L, 2L, … with
/// L = round(stretch_seconds · rate); the last stretch runs to n (it holds the remainder, so it is
/// between L and 2L long). One stretch when n < 2L.
std::vector<std::size_t> psd_stretch_starts(std::size_t n, double sample_rate, double stretch_seconds);

/// `x` whitened stretch by stretch: stretch k = [starts[k], starts[k+1]) (the last to x.size())
/// by psds[k], the edges cross-faded as above. NaN gaps as whiten().
std::vector<double> whiten_by_stretch(std::span<const double> x, double sample_rate,
                                      const std::vector<std::size_t>& starts, const std::vector<SampledPsd>& psds,
                                      const WhiteningSettings& settings);

}  // namespace astrosweep::spiir
