// The FFT micro-benchmark's kernel (kernels/fdas/fft_benchmark.cu, the correlation's shared-memory
// transform repeated on resident data) against a double-precision DFT on the host: one transform
// within FP32's rounding of a 1,024-point FFT, and repeated ones as the algebra says (two reverse
// the signal, four give it back), so the benchmark times transforms that are right. Skipped without
// a GPU.
#include <gtest/gtest.h>

#include <cuda_runtime.h>

#include <cmath>
#include <complex>
#include <numbers>
#include <random>
#include <vector>

#include "correlation_launch.hpp"
#include "cuda_memory.hpp"
#include "device.hpp"
#include "fft_benchmark_launch.hpp"

namespace astrosweep::fdas {
namespace {

constexpr std::size_t L = kernels::fft_benchmark_length;

// `signals` signals through `repeats` transforms on the device.
std::vector<float2> run(const std::vector<float2>& in, std::size_t signals, int repeats) {
  const std::vector<float2> table = kernels::shared_memory_fft_twiddles(L);
  cuda::Stream stream;
  cuda::DeviceMemory d_in, d_out, d_twiddle;
  d_in.reserve(in.size() * sizeof(float2));
  d_out.reserve(in.size() * sizeof(float2));
  d_twiddle.reserve(L * sizeof(float2));
  AS_CUDA_TRY(cudaMemcpy(d_in.as<float2>(), in.data(), in.size() * sizeof(float2), cudaMemcpyHostToDevice));
  AS_CUDA_TRY(cudaMemcpy(d_twiddle.as<float2>(), table.data(), L * sizeof(float2), cudaMemcpyHostToDevice));
  kernels::launch_fft_benchmark(d_in.as<float2>(), d_out.as<float2>(), d_twiddle.as<float2>(), signals, repeats,
                                stream.get());
  stream.synchronize();
  std::vector<float2> out(in.size());
  AS_CUDA_TRY(cudaMemcpy(out.data(), d_out.as<float2>(), out.size() * sizeof(float2), cudaMemcpyDeviceToHost));
  return out;
}

std::vector<float2> noise(std::size_t signals, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> g;
  std::vector<float2> x(signals * L);
  for (auto& v : x) v = make_float2(g(rng), g(rng));
  return x;
}

// Largest |got − want| over a signal, against the signal's largest |want| (the FFT's error scale).
double relative_error(const float2* got, const std::vector<std::complex<double>>& want) {
  double err = 0, scale = 0;
  for (std::size_t k = 0; k < L; ++k) {
    err = std::max(err, std::abs(std::complex<double>(got[k].x, got[k].y) - want[k]));
    scale = std::max(scale, std::abs(want[k]));
  }
  return err / scale;
}

TEST(FftBenchmarkKernel, OneTransformIsTheUnitaryInverseDft) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  const std::size_t signals = 4;
  const std::vector<float2> x = noise(signals, 3);
  const std::vector<float2> y = run(x, signals, 1);
  for (std::size_t s = 0; s < signals; ++s) {
    std::vector<std::complex<double>> want(L);
    for (std::size_t k = 0; k < L; ++k) {
      std::complex<double> acc;
      for (std::size_t n = 0; n < L; ++n) {
        const double a = 2 * std::numbers::pi * static_cast<double>((k * n) % L) / static_cast<double>(L);
        acc += std::complex<double>(x[s * L + n].x, x[s * L + n].y) * std::polar(1.0, a);
      }
      want[k] = acc / 32.0;
    }
    EXPECT_LT(relative_error(y.data() + s * L, want), 2e-6) << "signal " << s;
  }
}

TEST(FftBenchmarkKernel, RepeatedTransformsReverseAndRestoreTheSignal) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  const std::size_t signals = 2 * 133;  // more blocks than an H100 has SMs
  const std::vector<float2> x = noise(signals, 5);
  for (const int repeats : {0, 2, 4, 100}) {
    const std::vector<float2> y = run(x, signals, repeats);
    for (std::size_t s = 0; s < signals; ++s) {
      std::vector<std::complex<double>> want(L);
      for (std::size_t n = 0; n < L; ++n) {
        const std::size_t from = repeats % 4 == 2 ? (L - n) % L : n;
        want[n] = {x[s * L + from].x, x[s * L + from].y};
      }
      // Rounding grows with the transforms in a row: about 1e-7 each.
      ASSERT_LT(relative_error(y.data() + s * L, want), 2e-6 * (1 + repeats)) << repeats << " repeats, signal " << s;
    }
  }
}

TEST(FftBenchmarkKernel, RefusesAnOddNumberOfSignals) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  EXPECT_THROW(kernels::launch_fft_benchmark(nullptr, nullptr, nullptr, 3, 1, nullptr), UsageError);
}

}  // namespace
}  // namespace astrosweep::fdas
