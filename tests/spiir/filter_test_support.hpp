#pragma once
// Random IIR filters and white noise for the spiir filtering tests (test_spiir_backend.cpp,
// test_spiir_backend_cuda.cpp, the coherent tests through coherent_test_support.hpp).

#include <complex>
#include <cstdint>
#include <random>
#include <vector>

#include "spiir_bank.hpp"

namespace astrosweep::spiir {

/// n filters with |a1| in [0.9, 0.999) (the long memories that amplify rounding), |b0| in
/// [0.1, 1.1), delays in [0, max_delay).
inline std::vector<IirFilter> random_filters(std::mt19937_64& rng, std::size_t n, std::int64_t max_delay) {
  std::uniform_real_distribution<double> u(0, 1);
  std::vector<IirFilter> out;
  for (std::size_t i = 0; i < n; ++i) {
    const double radius = 0.9 + 0.099 * u(rng);
    out.push_back({std::polar(radius, -3.0 * u(rng)), std::polar(0.1 + u(rng), 6.28 * u(rng)),
                   static_cast<std::int64_t>(u(rng) * static_cast<double>(max_delay))});
  }
  return out;
}

/// n samples of unit-variance Gaussian white noise.
inline std::vector<double> white_noise(std::size_t n, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> g;
  std::vector<double> x(n);
  for (auto& v : x) v = g(rng);
  return x;
}

}  // namespace astrosweep::spiir
