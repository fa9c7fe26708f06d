#pragma once
// The fdas benchmarks' series: white noise of unit variance plus an accelerated pulsar (8
// harmonics, each of power about 40 in the normalised spectrum; 137.1 Hz at the series' middle,
// z = 37.3 bins), reproducible from `seed`. Header-only, shared by bench_fdas_host and
// bench_fdas_cuda so that both time the same search.

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <numbers>
#include <random>
#include <vector>

namespace astrosweep::tools {

inline std::vector<float> accelerated_pulsar_in_noise(std::size_t n, std::uint64_t seed, double tsamp) {
  const double T = static_cast<double>(n) * tsamp;
  const double f0 = 137.1, z0 = 37.3, fdot = z0 / (T * T);
  const double a = std::sqrt(4 * 40.0 / static_cast<double>(n));  // each harmonic's power ≈ 40
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> g;
  std::vector<float> x(n);
  for (std::size_t i = 0; i < n; ++i) {
    const double t = static_cast<double>(i) * tsamp;
    const double phase = 2 * std::numbers::pi * ((f0 - fdot * T / 2) * t + fdot * t * t / 2);
    double v = g(rng);
    for (int h = 1; h <= 8; ++h) v += a * std::cos(h * phase + 0.2 * h);
    x[i] = static_cast<float>(v);
  }
  return x;
}

}  // namespace astrosweep::tools
