// Benchmark (not a test): the cuFFT overlap-save correlation for the spec's single-trial target
// (§14: N = 2^23 samples, z_max = 96 → 97 templates, b = 2, L = 2048) and any other geometry.
//   bench_correlation_cuda [log2_N] [z_max] [L] [repeats]
// Prints the device time of the correlation (events around upload, spread, FFTs, products and
// power extraction; not the copy of the plane back), best of the repeats, and its rates.
#include <chrono>
#include <cmath>
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "correlation.hpp"
#include "correlation_cuda.hpp"
#include "device.hpp"

using namespace astrosweep::fdas;

int main(int argc, char** argv) {
  const int log2n = argc > 1 ? std::atoi(argv[1]) : 23;
  const int z_max = argc > 2 ? std::atoi(argv[2]) : 96;
  const std::size_t L = argc > 3 ? std::strtoull(argv[3], nullptr, 10) : 2048;
  const int repeats = argc > 4 ? std::atoi(argv[4]) : 5;
  if (astrosweep::cuda_device_count() == 0) {
    std::printf("no CUDA device\n");
    return 0;
  }
  const int b = 2;
  const std::size_t m = static_cast<std::size_t>(std::floor(0.55 * z_max)) + 16;
  const std::size_t n_z = static_cast<std::size_t>(z_max) + 1;
  const std::size_t bins = std::size_t{1} << (log2n - 1);
  // Random unit-energy taps of the widest template's reach: the cost does not depend on values.
  std::mt19937_64 rng(1);
  std::normal_distribution<double> g;
  std::vector<std::vector<std::complex<double>>> taps(n_z, std::vector<std::complex<double>>(L));
  for (auto& t : taps)
    for (std::size_t j = 0; j <= 2 * b * m; ++j) t[(j + L - b * m) % L] = {g(rng) * 1e-2, g(rng) * 1e-2};
  std::vector<std::complex<float>> spectrum(bins);
  std::normal_distribution<float> gf(0.0F, std::sqrt(0.5F));
  for (auto& v : spectrum) v = {gf(rng), gf(rng)};
  const CorrelationLayout layout{L, m, b};
  astrosweep::fdas::kernels::CudaCorrelator gpu(layout, taps, std::size_t{4} << 30);
  float best = 1e30F;
  double wall_best = 1e30;
  for (int i = 0; i < repeats; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    const PowerPlane plane = gpu.correlate(spectrum, 0, bins, true);
    wall_best = std::min(wall_best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    best = std::min(best, gpu.last_device_ms());
  }
  const std::size_t U = layout.useful_outputs();
  const double cells = static_cast<double>(n_z) * static_cast<double>(bins) * b;
  const double segments = std::ceil(static_cast<double>(bins) * b / static_cast<double>(U));
  std::printf("command: %s %d %d %zu %d\n", argv[0], log2n, z_max, L, repeats);
  std::printf("N = 2^%d (%zu bins), z_max %d (%zu templates), b %d, L %zu, m %zu, U %zu, %.0f segments\n", log2n, bins,
              z_max, n_z, b, L, m, U, segments);
  std::printf(
      "cuFFT correlation: %.3f ms device (best of %d), %.3g plane cells/s, %.3g inverse FFTs/s; "
      "with the plane's copy to pageable host memory %.1f ms\n",
      static_cast<double>(best), repeats, cells / (static_cast<double>(best) * 1e-3),
      segments * static_cast<double>(n_z) / (static_cast<double>(best) * 1e-3), wall_best * 1e3);
  return 0;
}
