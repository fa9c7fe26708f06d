#pragma once
// Launcher of the SPIIR filtering kernel (spiir_filter.cu) for spiir_backend_cuda.cpp and the
// benchmark: the device twin of the OpenMP backend's loop (jobs/spiir/spiir_backend_cpu.cpp).

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace astrosweep::spiir::kernels {

/// A rate's bank on the device, structure of arrays: filter l of template t at t · width + l (the
/// padding filters beyond n_filters[t] are never read). The states are read and written in place.
template <class Real>
struct DeviceRateBank {
  const Real *a_re = nullptr, *a_im = nullptr, *b_re = nullptr, *b_im = nullptr;
  const std::int32_t* delay = nullptr;      ///< samples, ≤ max_delay
  const std::int32_t* n_filters = nullptr;  ///< per template
  Real *y_re = nullptr, *y_im = nullptr;    ///< the states, carried from chunk to chunk
  std::size_t n_templates = 0, width = 0;
  std::size_t max_delay = 0;
  int max_filters = 0;  ///< the largest n_filters: sizes the thread blocks
};

/// Samples per tile: each thread runs its filters over this many samples in registers before the
/// one cross-filter reduction of the tile (32 for FP32; 16 for FP64, whose registers are twice as wide).
template <class Real>
inline constexpr int spiir_tile = sizeof(Real) == 4 ? 32 : 16;

/// Threads per block for a bank whose largest template has `max_filters` filters: a warp per 128
/// filters (four per thread, in passes of two run interleaved), 1 to 8 warps. A template with fewer
/// filters uses the warps it alone would get, so its SNRs do not depend on the rest of the bank.
int spiir_block_threads(int max_filters);

/// Samples per 16-byte vector load: 4 in FP32, 2 in FP64.
template <class Real>
inline constexpr int spiir_vector = static_cast<int>(16 / sizeof(Real));

/// Elements of the scratch buffer launch_spiir_filter needs for an extended input of `ext_size`
/// samples: spiir_vector copies of it, each shifted by one more sample, so that every filter's run
/// of a tile starts on a 16-byte boundary in one of them (the seed's aligned vector loads, spec §8).
template <class Real>
constexpr std::size_t spiir_shifted_size(std::size_t ext_size) {
  constexpr auto v = static_cast<std::size_t>(spiir_vector<Real>);
  return v * ((ext_size + v - 1 + v - 1) / v * v);
}

/// z[t · n + i] = Σ_l y_l[i] (interleaved re, im) for the n samples of `ext` after its first
/// max_delay, which hold the input's history (the last max_delay samples before the chunk; zeros
/// at the start of a run). `shifted` is scratch of spiir_shifted_size(max_delay + n) elements.
/// One block per template; nothing is launched for n = 0.
template <class Real>
void launch_spiir_filter(const DeviceRateBank<Real>& bank, const Real* ext, std::size_t n, Real* shifted, Real* z,
                         cudaStream_t stream);

}  // namespace astrosweep::spiir::kernels
