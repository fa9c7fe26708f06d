#pragma once
// Launcher of the coherent sky-search kernel (coherent_sky.cu) for coherent_sky_cuda.cpp and the
// benchmark: the device twin of the CPU's pixel loop and reported_pixel (jobs/spiir/coherent_snr.cpp).

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace astrosweep::spiir::kernels {

/// Threads per block: one block per task, its threads striding over the searched pixels.
inline constexpr int sky_block_threads = 256;

/// Device pointers and sizes of one launch (the layouts of coherent_snr.hpp's SkySearchTables and
/// SkySearchBatch). `weights` null: rounded reads.
template <class Real>
struct SkyLaunch {
  const Real* u01 = nullptr;
  const std::int32_t* reads = nullptr;
  const Real* weights = nullptr;
  int taps = 1;  ///< interpolation taps per read (1: rounded)
  int n_det = 0;
  int n_pix = 0;
  const Real* windows = nullptr;
  std::size_t window_length = 0;
  int centre = 0;
  int stride = 1;
  const std::int32_t* ref = nullptr;
  const std::int32_t* first = nullptr;
  std::size_t n_tasks = 0;
  Real resolution = 0;            ///< statistic_resolution<Real>
  std::int32_t* pixel = nullptr;  ///< per task: the reported pixel
  Real* coh = nullptr;            ///< per task: its ρ_coh²
  Real* total = nullptr;          ///< per task: its Σ|ζ_d|²
};

/// One block per task (a 1-D grid in x: up to 2³¹ − 1 tasks); nothing is launched for no tasks.
template <class Real>
void launch_sky_search(const SkyLaunch<Real>& launch, cudaStream_t stream);

}  // namespace astrosweep::spiir::kernels
