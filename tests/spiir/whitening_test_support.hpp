#pragma once
// Coloured Gaussian noise for the whitening tests (test_whitening.cpp, test_stretch_whitening.cpp):
// its shape, its true PSD, and the variance whitened noise should have.

#include <algorithm>
#include <cmath>
#include <complex>
#include <random>
#include <span>
#include <vector>

#include "fft.hpp"
#include "gw_strain.hpp"

namespace astrosweep::spiir::whitening_test {

inline constexpr double rate = 1024;
inline constexpr double f_low = 20;

// The amplitude that colours unit-variance white noise: a steep low-frequency wall (×1e3 at
// 5 Hz, as seismic noise is) and a rise at high frequency, scaled to strain (1e-21).
inline double colour(double f) {
  const double g = std::max(std::abs(f), 5.0);
  return 1e-21 * std::sqrt(std::pow(30 / g, 8) / 1e3 + 1 + (g / 200) * (g / 200));
}

// Gaussian noise of PSD colour(f)²·2/f_s (coloured in the frequency domain, circularly).
inline std::vector<double> coloured_noise(std::size_t n, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> g(0, 1);
  std::vector<std::complex<double>> b(n);
  for (auto& v : b) v = g(rng);
  fft_in_place(b, FftDirection::forward);
  for (std::size_t k = 0; k < n; ++k) {
    const double f = static_cast<double>(std::min(k, n - k)) * rate / static_cast<double>(n);
    b[k] *= colour(f) / static_cast<double>(n);
  }
  fft_in_place(b, FftDirection::backward);
  std::vector<double> x(n);
  for (std::size_t i = 0; i < n; ++i) x[i] = b[i].real();
  return x;
}

inline SampledPsd true_psd() {
  SampledPsd p;
  for (double f = 0; f <= rate / 2; f += 0.125) {
    p.frequency.push_back(f);
    p.value.push_back(colour(f) * colour(f) * 2 / rate);
  }
  return p;
}

inline double band_fraction() { return (0.9 * rate / 2 - f_low) / (rate / 2); }

inline double variance(std::span<const double> x) {
  double s = 0;
  for (double v : x) s += v * v;
  return s / static_cast<double>(x.size());
}

}  // namespace astrosweep::spiir::whitening_test
