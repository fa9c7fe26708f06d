// The seed's FFT micro-benchmark (spec §14; the seed's Table 1: 100,000 transforms of 1,024 points,
// "100 FFTs per kernel launch, 1,000 of these kernels") on the correlation's shared-memory FFT
// (kernels/fdas/fft_benchmark.cu), beside cuFFT on the same GPU. Each shared-memory row loads its
// signals once, transforms them R times in a row in shared memory and stores them once, for S × R =
// 100,000 transforms: S = 1,000 and R = 100 is the seed's shape (each block runs 100 transforms on
// resident data, as the correlation does per template); S = 100,000 and R = 1 is bound by the
// loads and stores. cuFFT runs the 100,000 transforms as one batched C2C, and as the seed's 1,000
// launches of 100. Device time between events, best of --repeat, after one warm-up.
//   astrosweep_bench_fdas_fft [--repeat 10]
#include <cuda_runtime.h>
#include <cufft.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <functional>
#include <numbers>
#include <random>
#include <string>
#include <vector>

#include "correlation_launch.hpp"
#include "cuda_memory.hpp"
#include "cufft_plan.hpp"
#include "fft_benchmark_launch.hpp"

using namespace astrosweep;

namespace {

constexpr std::size_t L = fdas::kernels::fft_benchmark_length;
constexpr std::size_t transforms = 100'000;

// Best device time in ms of `work` enqueued on `stream`, over `repeat` runs after a warm-up.
double best_ms(const cuda::Stream& stream, int repeat, const std::function<void()>& work) {
  cuda::Event start, stop;
  work();
  stream.synchronize();
  double best = 1e300;
  for (int i = 0; i < repeat; ++i) {
    start.record(stream);
    work();
    stop.record(stream);
    stop.synchronize();
    best = std::min(best, static_cast<double>(stop.since(start)));
  }
  return best;
}

void row(const char* method, const std::string& shape, double ms) {
  const double points = static_cast<double>(transforms * L);
  std::printf("| %-30s | %-28s | %8.3f ms | %6.2f·10¹⁰ |\n", method, shape.c_str(), ms, points / (ms * 1e-3) / 1e10);
}

int run(int repeat) {
  cudaDeviceProp prop{};
  int device = 0;
  AS_CUDA_TRY(cudaGetDevice(&device));
  AS_CUDA_TRY(cudaGetDeviceProperties(&prop, device));
  std::printf("%s (%d SMs); %zu transforms of %zu points; best of %d\n\n", prop.name, prop.multiProcessorCount,
              transforms, L, repeat);
  std::printf("| method | signals × transforms in a row | device time | points/s |\n|---|---|---|---|\n");
  std::vector<float2> host(transforms * L);
  const std::vector<float2> table = fdas::kernels::shared_memory_fft_twiddles(L);
  std::mt19937_64 rng(1);
  std::normal_distribution<float> g;
  for (auto& v : host) v = make_float2(g(rng), g(rng));
  cuda::Stream stream;
  cuda::DeviceMemory in, out, twiddle;
  in.reserve(host.size() * sizeof(float2));
  out.reserve(host.size() * sizeof(float2));
  twiddle.reserve(L * sizeof(float2));
  AS_CUDA_TRY(cudaMemcpy(in.as<float2>(), host.data(), host.size() * sizeof(float2), cudaMemcpyHostToDevice));
  AS_CUDA_TRY(cudaMemcpy(twiddle.as<float2>(), table.data(), L * sizeof(float2), cudaMemcpyHostToDevice));

  for (const int in_a_row : {100, 10, 1}) {
    const std::size_t signals = transforms / static_cast<std::size_t>(in_a_row);
    const double ms = best_ms(stream, repeat, [&] {
      fdas::kernels::launch_fft_benchmark(in.as<float2>(), out.as<float2>(), twiddle.as<float2>(), signals, in_a_row,
                                          stream.get());
    });
    row("shared memory (ours)", std::to_string(signals) + " × " + std::to_string(in_a_row), ms);
  }
  {
    const cuda::FftPlan plan(L, transforms, CUFFT_C2C, stream.get());
    const double ms = best_ms(stream, repeat, [&] {
      cuda::cufft_try(cufftExecC2C(plan.get(), in.as<cufftComplex>(), out.as<cufftComplex>(), CUFFT_INVERSE),
                      "benchmark transform");
    });
    row("cuFFT, one batched launch", std::to_string(transforms) + " × 1", ms);
  }
  {
    const std::size_t per_launch = 100;
    const cuda::FftPlan plan(L, per_launch, CUFFT_C2C, stream.get());
    const double ms = best_ms(stream, repeat, [&] {
      for (std::size_t first = 0; first < transforms; first += per_launch)
        cuda::cufft_try(cufftExecC2C(plan.get(), in.as<cufftComplex>() + first * L, out.as<cufftComplex>() + first * L,
                                     CUFFT_INVERSE),
                        "benchmark transform");
    });
    row("cuFFT, 1,000 launches of 100", std::to_string(transforms) + " × 1", ms);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  int repeat = 10;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--repeat" && i + 1 < argc) {
      repeat = std::atoi(argv[++i]);
    } else {
      std::fprintf(stderr, "usage: astrosweep_bench_fdas_fft [--repeat 10]\n");
      return 2;
    }
  }
  if (repeat < 1) {
    std::fprintf(stderr, "astrosweep_bench_fdas_fft: --repeat must be at least 1\n");
    return 2;
  }
  try {
    return run(repeat);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "astrosweep_bench_fdas_fft: %s\n", e.what());
    return 5;
  }
}
