// Benchmark (not a test): the GPU overlap-save correlation, cuFFT baseline and inverse FFTs in
// shared memory, for the spec's single-trial target (§14: N = 2^23 samples, z_max = 96 → 97
// templates, b = 2, L = 2048) and any other geometry (z_max sets the filter length 2bm + 1; b = 1
// interbins the half bins, so a segment covers about twice the bins).
//   bench_correlation_cuda [log2_N] [z_max] [L] [repeats] [numbetween]
// Prints each method's device time (events around upload, spread, FFTs, products and power
// extraction; the plane stays on the device), best of the repeats, its rates and the speed-up.
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
  const int b = argc > 5 ? std::atoi(argv[5]) : 2;
  if (b != 1 && b != 2) {
    std::printf("numbetween must be 1 or 2\n");
    return 2;
  }
  const std::size_t m = static_cast<std::size_t>(std::floor(0.55 * z_max)) + 16;
  const std::size_t reach = static_cast<std::size_t>(b) * m;  // taps each side
  const std::size_t n_z = static_cast<std::size_t>(z_max) + 1;
  const std::size_t bins = std::size_t{1} << (log2n - 1);
  // Random unit-energy taps of the widest template's reach: the cost does not depend on values.
  std::mt19937_64 rng(1);
  std::normal_distribution<double> g;
  std::vector<std::vector<std::complex<double>>> taps(n_z, std::vector<std::complex<double>>(L));
  for (auto& t : taps)
    for (std::size_t j = 0; j <= 2 * reach; ++j) t[(j + L - reach) % L] = {g(rng) * 1e-2, g(rng) * 1e-2};
  std::vector<std::complex<float>> spectrum(bins);
  std::normal_distribution<float> gf(0.0F, std::sqrt(0.5F));
  for (auto& v : spectrum) v = {gf(rng), gf(rng)};
  const CorrelationLayout layout{L, m, b};
  using Method = astrosweep::fdas::kernels::CudaCorrelator::Method;
  const std::size_t U = layout.useful_outputs();
  const double cells = static_cast<double>(n_z) * static_cast<double>(bins) * 2;  // half bins either way
  const double segments = std::ceil(static_cast<double>(bins) / static_cast<double>(layout.step_bins()));
  std::printf("command: %s %d %d %zu %d %d\n", argv[0], log2n, z_max, L, repeats, b);
  std::printf("N = 2^%d (%zu bins), z_max %d (%zu templates), b %d, L %zu, m %zu (filter %zu), U %zu, %.0f segments\n",
              log2n, bins, z_max, n_z, b, L, m, 2 * reach + 1, U, segments);
  float cufft_ms = 0;
  for (const Method method : {Method::cufft, Method::shared_memory}) {
    astrosweep::fdas::kernels::CudaCorrelator gpu(layout, taps, std::size_t{4} << 30, method);
    if (gpu.method() != method) {
      std::printf("shared memory: no %zu-point transform\n", L);
      continue;
    }
    float best = 1e30F;
    for (int i = 0; i < repeats; ++i) {
      (void)gpu.correlate_on_device(spectrum, 0, bins, true);
      best = std::min(best, gpu.last_device_ms());
    }
    const bool shared = method == Method::shared_memory;
    if (!shared) cufft_ms = best;
    std::printf("%-13s %8.3f ms device (best of %d), %.3g plane cells/s, %.3g inverse FFTs/s%s\n",
                shared ? "shared memory" : "cuFFT", static_cast<double>(best), repeats,
                cells / (static_cast<double>(best) * 1e-3),
                segments * static_cast<double>(n_z) / (static_cast<double>(best) * 1e-3),
                shared ? (", " + std::to_string(cufft_ms / best).substr(0, 4) + "x cuFFT").c_str() : "");
  }
  return 0;
}
