#include "whitening.hpp"

#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>
#include <numbers>

#include "core/error.hpp"
#include "fft.hpp"

namespace astrosweep::spiir {

namespace {

// Zeroes the gaps of `x`, rolls the data off towards each gap, and returns which samples the
// output must mark as a gap (the gap and its tapers).
std::vector<bool> prepare_gaps(std::vector<double>& x, std::size_t taper) {
  const std::size_t n = x.size();
  std::vector<bool> flagged(n, false);
  for (std::size_t i = 0; i < n; ++i) {
    if (std::isfinite(x[i])) continue;
    x[i] = 0;
    flagged[i] = true;
  }
  // Distance to the nearest gap sample, forwards and backwards, to shape the roll-off.
  std::vector<std::size_t> distance(n, SIZE_MAX);
  std::size_t last = SIZE_MAX;
  for (std::size_t i = 0; i < n; ++i) {
    if (flagged[i]) last = i;
    if (last != SIZE_MAX) distance[i] = i - last;
  }
  last = SIZE_MAX;
  for (std::size_t i = n; i-- > 0;) {
    if (flagged[i]) last = i;
    if (last != SIZE_MAX) distance[i] = std::min(distance[i], last - i);
  }
  std::vector<bool> out = flagged;
  for (std::size_t i = 0; i < n; ++i) {
    if (flagged[i] || distance[i] > taper) continue;
    const double s =
        std::sin(0.5 * std::numbers::pi * static_cast<double>(distance[i]) / static_cast<double>(taper + 1));
    x[i] *= s * s;
    out[i] = true;
  }
  return out;
}

}  // namespace

std::size_t whitening_block_samples(std::size_t n, double sample_rate, double block_seconds) {
  const auto full = static_cast<std::size_t>(std::llround(block_seconds * sample_rate)) / 4 * 4;
  return std::max<std::size_t>(4, std::min(full, n / 2 * 4));
}

std::vector<double> whiten(std::span<const double> input, double sample_rate, const SampledPsd& psd,
                           const WhiteningSettings& settings) {
  const std::size_t n = input.size();
  AS_ASSERT(n >= 2 && sample_rate > 0);
  std::vector<double> x(input.begin(), input.end());
  const auto taper = static_cast<std::size_t>(std::llround(settings.gap_taper_seconds * sample_rate));
  const std::vector<bool> flagged = prepare_gaps(x, taper);

  const std::size_t block = whitening_block_samples(n, sample_rate, settings.block_seconds);
  const std::size_t quarter = block / 4;  // ≤ n/2 by construction, so the reflection stays inside x
  // Extended series e[j] = x[j − quarter], point-reflected about the end samples outside.
  const std::size_t n_ext = n + 2 * quarter;
  const auto extended = [&](std::size_t j) {
    if (j < quarter) return 2 * x[0] - x[quarter - j];
    if (j - quarter < n) return x[j - quarter];
    return 2 * x[n - 1] - x[2 * (n - 1) - (j - quarter)];
  };
  // The gain per bin: 1/√(S(f)·f_s/2) in the band, 0 outside.
  const double f_high = 0.9 * sample_rate / 2;
  std::vector<double> gain(block / 2 + 1, 0.0);
  for (std::size_t k = 0; k < gain.size(); ++k) {
    const double f = static_cast<double>(k) * sample_rate / static_cast<double>(block);
    if (f < settings.f_low || f > f_high) continue;
    const double s = psd(f);
    if (s > 0 && std::isfinite(s)) gain[k] = 1 / std::sqrt(s * sample_rate / 2);
  }
  // The block's outer quarters, which are not kept, rise and fall as cos²; the middle half is
  // untouched. Without it a strong line off the blocks' frequency grid leaks over the whole band
  // through the rectangular window's slowly falling sidelobes (the PSD, Hann-windowed, does not
  // see that leakage, so whitening cannot undo it).
  std::vector<double> window(block, 1.0);
  for (std::size_t i = 0; i < quarter; ++i) {
    const double s = std::sin(0.5 * std::numbers::pi * (static_cast<double>(i) + 0.5) / static_cast<double>(quarter));
    window[i] = window[block - 1 - i] = s * s;
  }
  std::vector<double> out(n, 0.0);
  std::vector<std::complex<double>> buffer(block);
  std::size_t written = quarter;  // next extended index to produce
  for (std::size_t start = 0; written < n + quarter; start += 2 * quarter) {
    start = std::min(start, n_ext - block);  // the last block ends with the extended series
    for (std::size_t i = 0; i < block; ++i) buffer[i] = extended(start + i) * window[i];
    fft_in_place(buffer, FftDirection::forward);
    for (std::size_t k = 0; k < block; ++k) buffer[k] *= gain[std::min(k, block - k)];
    fft_in_place(buffer, FftDirection::backward);
    const std::size_t keep_end = std::min(start + 3 * quarter, n + quarter);
    for (; written < keep_end; ++written)
      out[written - quarter] = buffer[written - start].real() / static_cast<double>(block);
  }
  for (std::size_t i = 0; i < n; ++i)
    if (flagged[i]) out[i] = std::numeric_limits<double>::quiet_NaN();
  return out;
}

}  // namespace astrosweep::spiir
