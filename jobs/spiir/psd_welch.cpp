#include "psd_welch.hpp"

#include <algorithm>
#include <cmath>
#include <complex>
#include <numbers>
#include <vector>

#include "fft.hpp"

namespace astrosweep::spiir {

double median_bias(std::size_t n) {
  double bias = 1;
  for (std::size_t i = 1; i <= (n > 0 ? (n - 1) / 2 : 0); ++i) {
    const auto two_i = static_cast<double>(2 * i);
    bias += 1 / (two_i + 1) - 1 / two_i;
  }
  return bias;
}

std::size_t welch_segment_samples(double sample_rate, double segment_seconds) {
  const auto n = static_cast<std::size_t>(std::llround(segment_seconds * sample_rate));
  return std::max<std::size_t>(2, n / 2 * 2);
}

std::optional<WelchPsd> welch_median_estimate(std::span<const double> x, double sample_rate, double segment_seconds) {
  const std::size_t n = welch_segment_samples(sample_rate, segment_seconds);
  const std::size_t n_bins = n / 2 + 1;
  // Periodic Hann (scipy's get_window('hann', N)): its N-sample period tiles at 50 % overlap.
  std::vector<double> window(n);
  double sum_squares = 0;
  for (std::size_t i = 0; i < n; ++i) {
    window[i] = 0.5 * (1 - std::cos(2 * std::numbers::pi * static_cast<double>(i) / static_cast<double>(n)));
    sum_squares += window[i] * window[i];
  }
  std::vector<std::vector<double>> periodograms;  // one per usable segment
  std::vector<std::complex<double>> buffer(n);
  WelchPsd out;
  out.segment_samples = n;
  for (std::size_t start = 0; start + n <= x.size(); start += n / 2) {
    const auto segment = x.subspan(start, n);
    if (!std::all_of(segment.begin(), segment.end(), [](double v) { return std::isfinite(v); })) continue;
    if (periodograms.empty()) out.first_sample = start;
    out.end_sample = start + n;
    for (std::size_t i = 0; i < n; ++i) buffer[i] = segment[i] * window[i];
    fft_in_place(buffer, FftDirection::forward);
    std::vector<double> p(n_bins);
    for (std::size_t k = 0; k < n_bins; ++k) {
      const double one_sided = (k == 0 || k == n / 2) ? 1.0 : 2.0;
      p[k] = one_sided * std::norm(buffer[k]) / (sample_rate * sum_squares);
    }
    periodograms.push_back(std::move(p));
  }
  if (periodograms.empty()) return std::nullopt;
  const std::size_t count = periodograms.size();
  const double bias = median_bias(count);
  out.n_segments = count;
  out.bias = bias;
  SampledPsd& psd = out.psd;
  psd.frequency.resize(n_bins);
  psd.value.resize(n_bins);
  std::vector<double> column(count);
  for (std::size_t k = 0; k < n_bins; ++k) {
    for (std::size_t s = 0; s < count; ++s) column[s] = periodograms[s][k];
    std::sort(column.begin(), column.end());
    const double median = count % 2 ? column[count / 2] : 0.5 * (column[count / 2 - 1] + column[count / 2]);
    psd.frequency[k] = static_cast<double>(k) * sample_rate / static_cast<double>(n);
    psd.value[k] = median / bias;
  }
  return out;
}

std::optional<SampledPsd> welch_median_psd(std::span<const double> x, double sample_rate, double segment_seconds) {
  auto estimate = welch_median_estimate(x, sample_rate, segment_seconds);
  if (!estimate) return std::nullopt;
  return std::move(estimate->psd);
}

}  // namespace astrosweep::spiir
