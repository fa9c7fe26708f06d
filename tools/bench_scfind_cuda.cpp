// Benchmark of the scfind CUDA kernels and backend: per-pass kernel time and throughput (bytes a
// pass must move at least, over its time) on one cube, then SoFiA-2's default 12 kernel pairs
// through the backend on one slab, and the mad noise's device path against downloading the
// samples. Prints the command that produced the figures.
//   astrosweep_bench_scfind_cuda [nx ny nz [repeat]]   (default 1024 1024 256 5)
#include <cuda_runtime_api.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "cuda_memory.hpp"
#include "device.hpp"
#include "noise_cuda.hpp"
#include "scfind_backend_cuda.hpp"
#include "smooth_and_clip_cuda.hpp"

using namespace astrosweep;
using namespace astrosweep::scfind;

namespace {

/// Noise-like values and ~1% NaN from a hash: quick to make for tens of GiB.
void fill(std::vector<float>& v) {
#pragma omp parallel for schedule(static)
  for (std::size_t i = 0; i < v.size(); ++i) {
    std::uint64_t h = (i + 1) * 0x9E3779B97F4A7C15ull;
    h ^= h >> 31;
    h *= 0xBF58476D1CE4E5B9ull;
    h ^= h >> 29;
    const double u = static_cast<double>(h >> 11) / 9007199254740992.0;
    v[i] = (h & 127) == 0 ? NAN : static_cast<float>(u * 2 - 1);
  }
}

struct Timer {
  cuda::Event a, b;
  template <class F>
  double ms(const cuda::Stream& s, int repeat, F f) {
    f();  // warm-up
    a.record(s);
    for (int k = 0; k < repeat; ++k) f();
    b.record(s);
    b.synchronize();
    return static_cast<double>(b.since(a)) / repeat;
  }
};

void report(const char* what, double ms, double bytes) {
  std::printf("  %-34s %9.3f ms  %7.0f GB/s\n", what, ms, bytes / (ms * 1e-3) / 1e9);
}

class NoCarry final : public SpectralCarry {
 public:
  [[nodiscard]] std::vector<std::pair<std::size_t, std::size_t>> row_blocks() const override { return {}; }
  void receive(std::size_t, std::size_t, std::span<float>) override {}
  void send(std::size_t, std::size_t, std::span<const float>) override {}
};

}  // namespace

int main(int argc, char** argv) {
  const std::size_t nx = argc > 3 ? std::strtoull(argv[1], nullptr, 10) : 1024;
  const std::size_t ny = argc > 3 ? std::strtoull(argv[2], nullptr, 10) : 1024;
  const std::size_t nz = argc > 3 ? std::strtoull(argv[3], nullptr, 10) : 256;
  const int repeat = argc > 4 ? std::atoi(argv[4]) : 5;
  std::printf("command:");
  for (int i = 0; i < argc; ++i) std::printf(" %s", argv[i]);
  std::printf("\n");
  if (cuda_device_count() == 0) {
    std::printf("no CUDA device\n");
    return 0;
  }
  cudaDeviceProp prop{};
  AS_CUDA_TRY(cudaGetDeviceProperties(&prop, 0));
  const std::size_t n = nx * ny * nz;
  std::printf("%s; cube %zu x %zu x %zu (%.2f GiB float32), %d repeats\n", prop.name, nx, ny, nz,
              static_cast<double>(n) * 4 / (1 << 30), repeat);

  std::vector<float> host(n);
  fill(host);

  {  // kernels alone
    cuda::Stream s;
    cuda::DeviceMemory original, a, b, mask, scratch;
    original.reserve(n * 4);
    a.reserve(n * 4);
    b.reserve(n * 4);
    mask.reserve(n);
    scratch.reserve(kernels::min_max_scratch_floats * 4 + 256 + (kernels::select_scratch_words + 1 + 256) * 8);
    AS_CUDA_TRY(cudaMemcpy(original.as<float>(), host.data(), n * 4, cudaMemcpyHostToDevice));
    AS_CUDA_TRY(cudaMemset(mask.as<char>(), 0, n));
    const float* o = original.as<float>();
    float* x = a.as<float>();
    float* y = b.as<float>();
    const auto v = static_cast<double>(n);
    Timer t;
    std::printf("kernels (bytes: the least each pass must read and write)\n");
    report(
        "prepare (copy, replace, NaN->0)",
        t.ms(s, repeat, [&] { kernels::prepare_working_copy(o, mask.as<std::uint8_t>(), x, n, true, 2.0f, s.get()); }),
        9 * v);
    for (std::size_t r : {1, 2, 3, 7}) {
      report(("x pass, tiled sweep, r=" + std::to_string(r)).c_str(),
             t.ms(s, repeat, [&] { kernels::boxcar_x(x, y, nx, ny * nz, r, s.get()); }), 8 * v);
    }
    for (std::size_t r : {1, 3}) {
      report(("x pass, strided rows, r=" + std::to_string(r)).c_str(),
             t.ms(s, repeat, [&] { kernels::boxcar_x_strided(x, y, nx, ny * nz, r, s.get()); }), 8 * v);
    }
    for (std::size_t r : {1, 2, 3, 7}) {
      report(("y pass, r=" + std::to_string(r)).c_str(),
             t.ms(s, repeat, [&] { kernels::boxcar_y(x, y, nx, ny, nz, r, nullptr, s.get()); }), 8 * v);
    }
    report("y pass with blanks restored, r=2",
           t.ms(s, repeat, [&] { kernels::boxcar_y(x, y, nx, ny, nz, 2, o, s.get()); }), 12 * v);
    for (std::size_t r : {1, 3, 7}) {
      kernels::SpectralPass p;
      p.in = x;
      p.original = o;
      p.out = y;
      p.plane = nx * ny;
      p.nz = nz;
      p.own_end = nz;
      p.radius = r;
      p.end_pixel = nx * ny;
      report(("z pass (blanks restored), r=" + std::to_string(r)).c_str(),
             t.ms(s, repeat, [&] { kernels::boxcar_z(p, s.get()); }), 12 * v);
    }
    report("restore blanks", t.ms(s, repeat, [&] { kernels::restore_blanks(o, y, n, s.get()); }), 4 * v);
    report("finite min/max",
           t.ms(s, repeat,
                [&] {
                  kernels::finite_min_max(y, n, scratch.as<float>(),
                                          scratch.as<float>() + kernels::min_max_scratch_floats, s.get());
                }),
           4 * v);
    report("clip", t.ms(s, repeat, [&] { kernels::clip(y, n, 0.9, mask.as<std::uint8_t>(), s.get()); }), 5 * v);
    const std::uint64_t cadence = std::max<std::uint64_t>(1, n / 999983);
    const std::uint64_t count = (n - 1) / cadence;
    report("gather ~1e6 noise samples",
           t.ms(s, repeat, [&] { kernels::gather_samples(y, n - cadence, cadence, count, x, s.get()); }),
           8.0 * static_cast<double>(count));
    // The mad's device path: |x| of the in-range samples compacted, then a round of the median.
    auto* words = reinterpret_cast<std::uint64_t*>(scratch.as<char>() + kernels::min_max_scratch_floats * 4 + 256);
    auto* magnitudes = reinterpret_cast<std::uint32_t*>(x);
    report("select |x| of ~1e6 samples (negative)",
           t.ms(s, repeat,
                [&] {
                  kernels::select_magnitudes(y, n - cadence, cadence, count, kernels::Flux::negative, magnitudes, words,
                                             words + kernels::select_scratch_words, s.get());
                }),
           8.0 * static_cast<double>(count));
    std::uint64_t selected = 0;
    AS_CUDA_TRY(cudaMemcpy(&selected, words + kernels::select_scratch_words, 8, cudaMemcpyDeviceToHost));
    report(("digit histogram, first round (" + std::to_string(selected) + ")").c_str(),
           t.ms(s, repeat,
                [&] {
                  kernels::digit_histogram(magnitudes, selected, 0, 0, 24, words + kernels::select_scratch_words + 1,
                                           s.get());
                }),
           4.0 * static_cast<double>(selected));
  }

  {  // the backend: SoFiA-2's 12 default pairs on one slab
    auto backend = make_scfind_backend_cuda(BackendOptions{});
    Slab slab;
    slab.cube = {nx, ny, nz};
    slab.own_end = slab.held_end = nz;
    std::printf("backend: %s, needs %.2f GiB\n", backend->describe().c_str(),
                static_cast<double>(scfind_backend_cuda_memory_needed(slab)) / (1 << 30));
    auto t0 = std::chrono::steady_clock::now();
    auto seconds = [&] {
      const auto t1 = std::chrono::steady_clock::now();
      const double s = std::chrono::duration<double>(t1 - t0).count();
      t0 = t1;
      return s;
    };
    backend->load(slab, host);
    (void)backend->finite_min_max();  // waits for the upload
    const double load_s = seconds();
    std::printf("  load %.3f s (%.1f GB/s from pageable memory)\n", load_s, static_cast<double>(n) * 4 / load_s / 1e9);
    const std::uint64_t cadence = std::max<std::uint64_t>(1, n / 999983);
    const SampleRange all{n - cadence, (n - cadence) / cadence + 1};
    NoCarry carry;
    const struct {
      double fwhm;
      BoxcarPlan plan;
    } spatial[] = {{0, {}}, {3, {1, 3}}, {6, {2, 3}}};
    double total = 0;
    for (const auto& sp : spatial)
      for (std::size_t width : {0, 3, 7, 15}) {
        KernelPair pair{sp.fwhm, width, sp.plan, width / 2};
        seconds();
        if (pair.smooths())
          backend->smooth(pair, 2.0f, carry);
        else
          backend->use_original();
        const auto samples = backend->samples(all, cadence);
        const auto range = backend->finite_min_max();
        backend->clip(1.6);
        (void)backend->mask_channels(0, 1);  // waits for the clip
        const double s = seconds();
        total += s;
        std::printf("  pair FWHM %g, width %2zu: %.4f s (%zu samples, range %.3g .. %.3g)\n", sp.fwhm, width, s,
                    samples.size(), static_cast<double>(range.first), static_cast<double>(range.second));
      }
    std::printf("  12 pairs: %.3f s (smooth, ~1e6 samples back, min/max, clip); %s\n", total, backend->usage().c_str());

    // The mad noise's local work, host path (download the samples) against the device path
    // (select the magnitudes, eight rounds of 256 counts: an even count's two selections).
    seconds();
    for (int k = 0; k < repeat; ++k) (void)backend->samples(all, cadence);
    const double host_path = seconds() / repeat;
    for (int k = 0; k < repeat; ++k) {
      auto counter = backend->magnitudes(all, cadence, FluxRange::negative);
      for (int round = 0; round < 8; ++round) (void)counter->count(0, 0, 24);
    }
    const double device_path = seconds() / repeat;
    std::printf("  mad noise, local part: samples to the host %.2f ms; magnitudes on the device + 8 rounds %.2f ms\n",
                host_path * 1e3, device_path * 1e3);
    for (int k = 0; k < repeat; ++k) (void)backend->mask_count();
    std::printf("  mask count of the slab: %.2f ms\n", seconds() / repeat * 1e3);
  }
  return 0;
}
