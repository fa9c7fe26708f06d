// Benchmark of the scfind backends: SoFiA-2's default 12 kernel pairs on a synthetic float32
// cube held as one slab, timed per kernel pair (smoothing, noise sample, clip). Prints GB/s of
// cube per pair; the job's own end-to-end timing (read, smooth-and-clip, write) comes from
// `astrosweep scfind` on a FITS file (docs/performance.md).
//   astrosweep_bench_scfind [--nx N --ny N --nz N] [--backend cpu|cuda] [--threads T] [--repeat R]

#include <mpi.h>
#include <omp.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "core/mpi.hpp"
#include "noise.hpp"
#include "scfind_backend.hpp"

using namespace astrosweep;
using namespace astrosweep::scfind;

namespace {

class NoCarry final : public SpectralCarry {
 public:
  explicit NoCarry(std::size_t ny) : ny_(ny) {}
  [[nodiscard]] std::vector<std::pair<std::size_t, std::size_t>> row_blocks() const override { return {{0, ny_}}; }
  void receive(std::size_t, std::size_t, std::span<float>) override {}
  void send(std::size_t, std::size_t, std::span<const float>) override {}

 private:
  std::size_t ny_;
};

// Noise plus a few bright and faint sources; cheap integer hash noise (Irwin-Hall of 4 uniforms).
std::vector<float> synthetic_cube(const CubeShape& s) {
  std::vector<float> cube(s.voxels());
#pragma omp parallel for schedule(static)
  for (std::size_t i = 0; i < cube.size(); ++i) {
    std::uint64_t h = i * 0x9E3779B97F4A7C15ULL;
    float sum = 0;
    for (int k = 0; k < 4; ++k) {
      h ^= h >> 31;
      h *= 0xBF58476D1CE4E5B9ULL;
      h ^= h >> 29;
      sum += static_cast<float>(h >> 40) * 0x1p-24F;
    }
    cube[i] = (sum - 2.0F) * 0.002F;
  }
  for (int src = 0; src < 40; ++src) {
    const std::size_t cx = (src * 7919U) % s.nx, cy = (src * 104729U) % s.ny, cz = (src * 1299709U) % s.nz;
    for (std::size_t dz = 0; dz < 20 && cz + dz < s.nz; ++dz)
      for (std::size_t dy = 0; dy < 8 && cy + dy < s.ny; ++dy)
        for (std::size_t dx = 0; dx < 8 && cx + dx < s.nx; ++dx)
          cube[((cz + dz) * s.ny + cy + dy) * s.nx + cx + dx] += 0.004F * static_cast<float>(1 + src % 5);
  }
  return cube;
}

}  // namespace

int main(int argc, char** argv) {
  mpi::Session session(argc, argv);
  CubeShape shape{512, 512, 256};
  std::string backend_name = "cpu";
  int threads = omp_get_max_threads();
  int repeat = 1;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    const char* v = argv[i + 1];
    if (a == "--nx")
      shape.nx = std::strtoull(v, nullptr, 10);
    else if (a == "--ny")
      shape.ny = std::strtoull(v, nullptr, 10);
    else if (a == "--nz")
      shape.nz = std::strtoull(v, nullptr, 10);
    else if (a == "--backend")
      backend_name = v;
    else if (a == "--threads")
      threads = std::atoi(v);
    else if (a == "--repeat")
      repeat = std::atoi(v);
  }
  std::printf("# astrosweep_bench_scfind --nx %zu --ny %zu --nz %zu --backend %s --threads %d --repeat %d\n", shape.nx,
              shape.ny, shape.nz, backend_name.c_str(), threads, repeat);
  BackendOptions options;
  options.kind = parse_backend(backend_name);
  options.threads = threads;
  auto backend = make_scfind_backend(options);
  const ScfindParameters parameters;
  const auto pairs = kernel_pairs(parameters);
  std::size_t halo = 0;
  for (const auto& p : pairs) halo = std::max(halo, p.radius_z);
  const Slab slab = make_slab(shape, 0, shape.nz, halo);
  const auto cube = synthetic_cube(shape);
  const double gigabytes = static_cast<double>(shape.voxels()) * 4 / 1e9;
  using Clock = std::chrono::steady_clock;
  auto t0 = Clock::now();
  backend->load(slab, cube);
  const double load_s = std::chrono::duration<double>(Clock::now() - t0).count();
  std::printf("# %s; cube %.3f GB; load %.3f s\n", backend->describe().c_str(), gigabytes, load_s);
  std::printf("%-14s %10s %10s %12s\n", "pair", "best s", "GB/s", "noise");
  const std::size_t cadence = noise_cadence(shape);
  const SampleRange range = samples_in(shape.voxels(), cadence, 0, shape.voxels());
  double total = 0;
  for (const auto& pair : pairs) {
    double best = 1e30, noise = 0;
    for (int r = 0; r < repeat; ++r) {
      NoCarry carry(shape.ny);
      t0 = Clock::now();
      if (pair.smooths()) {
        backend->smooth(pair, 2.0F * 0.002F, carry);
      } else {
        backend->use_original();
      }
      const auto values = backend->samples(range, cadence);
      noise = measure_noise(NoiseStatistic::mad, FluxRange::negative, {values, range.highest, cadence}, shape.voxels(),
                            0, 0, SlabChain{});
      backend->clip(5.0 * noise);
      best = std::min(best, std::chrono::duration<double>(Clock::now() - t0).count());
    }
    total += best;
    char name[32];
    std::snprintf(name, sizeof name, "%.0f x %zu", pair.fwhm_xy, pair.width_z);
    std::printf("%-14s %10.4f %10.2f %12.4e\n", name, best, gigabytes / best, noise);
  }
  std::printf("all 12 pairs: %.3f s (%.2f GB/s per pair on average); %s\n", total, gigabytes * 12 / total,
              backend->usage().c_str());
  return 0;
}
