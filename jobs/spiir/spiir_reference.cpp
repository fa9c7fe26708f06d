#include "spiir_reference.hpp"

#include <algorithm>

#include "fft.hpp"

namespace astrosweep::spiir {

std::vector<std::complex<double>> iir_filter_reference(std::span<const IirFilter> filters, std::span<const double> x) {
  std::vector<std::complex<double>> z(x.size());
  for (const auto& f : filters) {
    std::complex<double> y = 0;
    for (std::size_t n = 0; n < x.size(); ++n) {
      const auto back = static_cast<std::int64_t>(n) - f.delay;
      const double input = back >= 0 ? x[static_cast<std::size_t>(back)] : 0.0;
      y = f.a1 * y + f.b0 * input;
      z[n] += y;
    }
  }
  return z;
}

std::vector<std::complex<double>> matched_filter_fft(std::span<const std::complex<double>> h,
                                                     std::span<const double> x) {
  // z[n] = Σ_s g[n − s'] x[s'] with g[m] = h[N−1−m]: a linear convolution of x with reversed h.
  const std::size_t n_h = h.size();
  const std::size_t size = next_power_of_two(x.size() + n_h);
  std::vector<std::complex<double>> g(size), data(size);
  for (std::size_t m = 0; m < n_h; ++m) g[m] = h[n_h - 1 - m];
  std::copy(x.begin(), x.end(), data.begin());
  fft_in_place(g, FftDirection::forward);
  fft_in_place(data, FftDirection::forward);
  for (std::size_t k = 0; k < size; ++k) data[k] *= g[k] / static_cast<double>(size);
  fft_in_place(data, FftDirection::backward);
  return {data.begin(), data.begin() + static_cast<std::ptrdiff_t>(x.size())};
}

}  // namespace astrosweep::spiir
