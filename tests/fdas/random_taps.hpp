#pragma once
// Correlation templates for the GPU correlation tests: random complex taps over the 2·reach + 1
// bins around 0 (circularly), of unit total energy as the Fresnel responses' are (Σ|R|² = 1), so
// noise keeps power ~1 through them.

#include <cmath>
#include <complex>
#include <cstddef>
#include <random>
#include <vector>

namespace astrosweep::fdas::test_support {

using Taps = std::vector<std::vector<std::complex<double>>>;

inline Taps random_taps(std::size_t L, std::size_t reach, std::size_t n, std::mt19937_64& rng) {
  std::normal_distribution<double> g;
  Taps taps(n, std::vector<std::complex<double>>(L));
  for (auto& t : taps) {
    double energy = 0;
    for (std::size_t j = 0; j <= 2 * reach; ++j) {
      const std::complex<double> v{g(rng), g(rng)};
      t[(j + L - reach) % L] = v;
      energy += std::norm(v);
    }
    for (auto& v : t) v /= std::sqrt(energy);
  }
  return taps;
}

}  // namespace astrosweep::fdas::test_support
