#include "multirate.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "core/error.hpp"

namespace astrosweep::spiir {

int max_decimation(double sample_rate, double f_low, int n_rates) {
  AS_EXPECTS(n_rates >= 1 && n_rates <= 7, UsageError, "the number of rates must lie in 1 ... 7");
  AS_EXPECTS(f_low > 0 && f_low < sample_rate / 2, UsageError, "f_low must lie between 0 and the Nyquist frequency");
  const int by_band = 1 << static_cast<int>(std::floor(std::log2(sample_rate / f_low)));
  return std::min(by_band, 1 << (n_rates - 1));
}

int decimation_factor(std::complex<double> a1, double padding, int max_factor) {
  const double f = std::abs(std::arg(a1)) / (2 * std::numbers::pi);
  if (!(f > 0)) return max_factor;
  const int exponent = -static_cast<int>(std::ceil(std::log2(2 * padding * f)));
  if (exponent <= 0) return 1;
  if (exponent >= 30) return max_factor;
  return std::min(1 << exponent, max_factor);
}

IirFilter at_rate(const IirFilter& filter, int factor) {
  AS_ASSERT(factor >= 1);
  if (factor == 1) return filter;
  IirFilter out;
  out.a1 = std::pow(filter.a1, factor);
  out.delay = (filter.delay + 1 + factor - 1) / factor;  // ⌈(d + 1)/M⌉
  const auto shift = static_cast<int>(out.delay * factor - filter.delay);
  out.b0 = filter.b0 * std::sqrt(static_cast<double>(factor)) * std::pow(filter.a1, shift);
  return out;
}

}  // namespace astrosweep::spiir
