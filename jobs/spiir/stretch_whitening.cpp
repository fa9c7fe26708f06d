#include "stretch_whitening.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "core/error.hpp"

namespace astrosweep::spiir {

std::vector<std::size_t> psd_stretch_starts(std::size_t n, double sample_rate, double stretch_seconds) {
  const auto length = std::max<std::size_t>(1, static_cast<std::size_t>(std::llround(stretch_seconds * sample_rate)));
  std::vector<std::size_t> starts{0};
  while (starts.back() + 2 * length <= n) {
    starts.push_back(starts.back() + length);
  }
  return starts;
}

std::vector<double> whiten_by_stretch(std::span<const double> x, double sample_rate,
                                      const std::vector<std::size_t>& starts, const std::vector<SampledPsd>& psds,
                                      const WhiteningSettings& settings) {
  const std::size_t n = x.size();
  AS_ASSERT(!starts.empty() && starts.size() == psds.size() && starts.front() == 0);
  const auto half_fade = static_cast<std::size_t>(std::llround(0.5 * stretch_crossfade_seconds * sample_rate));
  const auto pad = static_cast<std::size_t>(std::llround(stretch_pad_seconds * sample_rate));
  std::vector<double> out(n, 0.0);
  for (std::size_t k = 0; k < starts.size(); ++k) {
    const std::size_t begin = starts[k];
    const std::size_t end = k + 1 < starts.size() ? starts[k + 1] : n;
    // What this stretch contributes to: itself and half a cross-fade beyond each inner edge.
    const std::size_t keep_begin = k > 0 ? begin - half_fade : 0;
    const std::size_t keep_end = k + 1 < starts.size() ? end + half_fade : n;
    const std::size_t from = keep_begin > pad ? keep_begin - pad : 0;
    const std::size_t to = std::min(n, keep_end + pad);
    const auto white = whiten(x.subspan(from, to - from), sample_rate, psds[k], settings);
    for (std::size_t i = keep_begin; i < keep_end; ++i) {
      // The weight rises as sin² over the fade before `begin`'s edge and falls as cos² after `end`'s;
      // a neighbour's complementary weight makes the sum 1 (0 × NaN would be NaN: the gap stays).
      double w = 1;
      if (k > 0 && i < begin + half_fade) {
        const double t = (static_cast<double>(i - keep_begin) + 0.5) / static_cast<double>(2 * half_fade);
        w = std::sin(0.5 * std::numbers::pi * t);
        w *= w;
      } else if (k + 1 < starts.size() && i >= end - half_fade) {
        const double t = (static_cast<double>(i - (end - half_fade)) + 0.5) / static_cast<double>(2 * half_fade);
        w = std::cos(0.5 * std::numbers::pi * t);
        w *= w;
      }
      out[i] += w * white[i - from];
    }
  }
  return out;
}

}  // namespace astrosweep::spiir
