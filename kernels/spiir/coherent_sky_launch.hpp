#pragma once
// Launcher of the coherent sky-search kernel (coherent_sky.cu) for coherent_sky_cuda.cpp: the
// device twin of the CPU's pixel loop and reported_pixel (jobs/spiir/coherent_snr.cpp), its
// per-thread work in jobs/spiir/coherent_sky_tile.hpp.

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "coherent_sky_tile.hpp"

namespace astrosweep::spiir::kernels {

/// Device pointers and sizes of one launch (the layouts of coherent_snr.hpp's SkySearchTables and
/// SkySearchBatch). tables.weights null: rounded reads.
template <class Real>
struct SkyLaunch {
  sky_tile::Tables<Real> tables;
  int n_det = 0;
  const Real* samples = nullptr;         ///< SkySearchBatch::samples
  const std::int64_t* window = nullptr;  ///< SkySearchBatch::window, or with rings each window's first sample
  /// Set (ring_length > 0): the windows are read from SNR histories' rings (snr_ring.hpp), detector
  /// d's at ring[d], task t's template row ring_row[t], instead of from `samples`.
  const Real* ring[3] = {nullptr, nullptr, nullptr};
  std::size_t ring_length = 0;
  const std::int32_t* ring_row = nullptr;
  int window_length = 0;
  int stride = 1;
  const std::int32_t* ref = nullptr;    ///< per task
  const std::int32_t* first = nullptr;  ///< per task
  const std::int32_t* tiles = nullptr;  ///< sky_tile::plan_tiles(…, per_tile): task indices, −1 unused
  std::size_t n_tiles = 0;
  int per_tile = 1;               ///< sky_tasks_per_tile
  Real resolution = 0;            ///< statistic_resolution<Real>
  std::int32_t* pixel = nullptr;  ///< per task: the reported pixel
  Real* coh = nullptr;            ///< per task: its ρ_coh²
  Real* total = nullptr;          ///< per task: its Σ|ζ_d|²
};

/// Tasks per tile on the current device for windows of `window_length` samples: sky_tile::
/// tile_tasks when that many tasks' windows fit a block's shared memory, else 1, else 0 (the
/// windows do not fit at all).
template <class Real>
int sky_tasks_per_tile(int n_det, int window_length);

/// One block per tile (a 1-D grid in x: up to 2³¹ − 1 tiles); nothing is launched for no tiles.
template <class Real>
void launch_sky_search(const SkyLaunch<Real>& launch, cudaStream_t stream);

}  // namespace astrosweep::spiir::kernels
