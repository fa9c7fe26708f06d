#include "multirate_filter.hpp"

#include <cmath>
#include <numbers>

#include "core/error.hpp"

namespace astrosweep::spiir {

std::vector<double> halfband_taps(int half_length, double beta) {
  AS_ASSERT(half_length > 0);
  std::vector<double> taps(static_cast<std::size_t>(2 * half_length + 1));
  const double norm = std::cyl_bessel_i(0.0, beta);
  for (int k = -half_length; k <= half_length; ++k) {
    const double x = 0.5 * k;
    const double sinc = k == 0 ? 1.0 : std::sin(std::numbers::pi * x) / (std::numbers::pi * x);
    const double r = static_cast<double>(k) / half_length;
    const double window = std::cyl_bessel_i(0.0, beta * std::sqrt(1 - r * r)) / norm;
    taps[static_cast<std::size_t>(k + half_length)] = 0.5 * sinc * window;
  }
  // DC gain exactly 1 despite the window.
  double sum = 0;
  for (double t : taps) sum += t;
  for (double& t : taps) t /= sum;
  return taps;
}

std::vector<double> decimate2(std::span<const double> x, const std::vector<double>& taps) {
  const auto half = static_cast<std::ptrdiff_t>(taps.size() / 2);
  const auto n = static_cast<std::ptrdiff_t>(x.size());
  std::vector<double> out(static_cast<std::size_t>((n + 1) / 2));
  for (std::ptrdiff_t m = 0; m < static_cast<std::ptrdiff_t>(out.size()); ++m) {
    double sum = 0;
    for (std::ptrdiff_t k = -half; k <= half; ++k) {
      const std::ptrdiff_t i = 2 * m - k;
      if (i >= 0 && i < n) sum += taps[static_cast<std::size_t>(k + half)] * x[static_cast<std::size_t>(i)];
    }
    out[static_cast<std::size_t>(m)] = std::numbers::sqrt2 * sum;
  }
  return out;
}

std::vector<std::complex<double>> interpolate2(std::span<const std::complex<double>> z, std::size_t n_out,
                                               const std::vector<double>& taps) {
  const auto half = static_cast<std::ptrdiff_t>(taps.size() / 2);
  std::vector<std::complex<double>> out(n_out);
  for (std::ptrdiff_t n = 0; n < static_cast<std::ptrdiff_t>(n_out); ++n) {
    std::complex<double> sum = 0;
    // Only the even positions n − k of the zero-stuffed series hold samples.
    for (std::ptrdiff_t k = -half; k <= half; ++k) {
      const std::ptrdiff_t i = n - k;
      if (i < 0 || i % 2 != 0 || i / 2 >= static_cast<std::ptrdiff_t>(z.size())) continue;
      sum += 2.0 * taps[static_cast<std::size_t>(k + half)] * z[static_cast<std::size_t>(i / 2)];
    }
    out[static_cast<std::size_t>(n)] = sum;
  }
  return out;
}

std::vector<std::complex<double>> multirate_filter(const SpiirBank& bank, std::span<const double> x,
                                                   const BackendMaker& make) {
  AS_EXPECTS(!bank.rates.empty(), UsageError, "the bank has no rates");
  const auto top = static_cast<std::int64_t>(bank.sample_rate_max);
  int levels = 1;
  std::vector<const RateBank*> at_level(8, nullptr);
  for (const auto& r : bank.rates) {
    const int level = static_cast<int>(std::lround(std::log2(static_cast<double>(top) / static_cast<double>(r.rate))));
    AS_EXPECTS(level >= 0 && level < 8 && (top >> level) == r.rate, UsageError,
               "a rate of the bank is not the top rate over a power of two");
    at_level[static_cast<std::size_t>(level)] = &r;
    levels = std::max(levels, level + 1);
  }
  const auto taps = halfband_taps();
  const std::size_t nt = bank.n_templates();
  // The input at every level.
  std::vector<std::vector<double>> inputs{std::vector<double>(x.begin(), x.end())};
  for (int level = 1; level < levels; ++level) inputs.push_back(decimate2(inputs.back(), taps));
  // From the lowest level up: filter, add what came from below, interpolate to the next level.
  std::vector<std::complex<double>> carried;  // template-major at the current level, or empty
  for (int level = levels - 1; level >= 0; --level) {
    const auto& in = inputs[static_cast<std::size_t>(level)];
    std::vector<std::complex<double>> here(nt * in.size());
    if (const RateBank* r = at_level[static_cast<std::size_t>(level)]) make(*r)->filter(in, here);
    if (!carried.empty()) {
      const std::size_t n_below = carried.size() / nt;
      for (std::size_t t = 0; t < nt; ++t) {
        const auto up = interpolate2(std::span(carried).subspan(t * n_below, n_below), in.size(), taps);
        for (std::size_t i = 0; i < in.size(); ++i) here[t * in.size() + i] += up[i];
      }
    }
    carried = std::move(here);
  }
  return carried;
}

}  // namespace astrosweep::spiir
