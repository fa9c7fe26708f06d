#pragma once
// Launchers of the dereddening and normalisation kernels (deredden.cu), for spectrum_cuda.cpp and
// correlation_cuda.cpp. Complex values are float2; every launcher takes its stream last. The float
// arithmetic is deredden_arith.hpp's, the CPU's own, so the results are the CPU's bit for bit.

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace astrosweep::fdas::kernels {

/// A dereddening block on the device (deredden_layout's DereddenBlock without its level).
struct DeviceBlock {
  std::uint32_t first, length;
};

/// A ramp of levels on the device (deredden_layout's LevelRampPlan).
struct DeviceRamp {
  std::uint32_t begin, end, level_block, slope_block;
};

/// powers[k] = |spectrum[k]|² for k < n.
void launch_bin_powers(const float2* spectrum, float* powers, std::size_t n, cudaStream_t stream);

/// levels[j] = median of powers[blocks[j]] / ln 2 (PRESTO's median, block_median), j < n_blocks.
void launch_block_levels(const float* powers, const DeviceBlock* blocks, std::size_t n_blocks, float* levels,
                         cudaStream_t stream);

/// Every bin of every ramp divided by √(its level) where the level is positive, as deredden does.
void launch_apply_ramps(float2* spectrum, const DeviceRamp* ramps, std::size_t n_ramps, const DeviceBlock* blocks,
                        const float* levels, cudaStream_t stream);

/// Both parts of bins [first, first + n) multiplied by `factor`.
void launch_scale_bins(float2* spectrum, std::size_t first, std::size_t n, float factor, cudaStream_t stream);

/// bins[k] = spectrum[first + k] where 0 ≤ first + k < size, else 0, for k < n_bins.
void launch_gather_bins(const float2* spectrum, std::size_t size, std::ptrdiff_t first, float2* bins,
                        std::size_t n_bins, cudaStream_t stream);

/// Whether launch_segment_norms holds a segment of `length` powers in shared memory.
bool segment_norms_support(std::size_t length);

/// norm[s] = block_normalisation of powers[s·step, s·step + length) (1 when not `normalise`), s < segments.
void launch_segment_norms(const float* powers, std::size_t segments, std::size_t step, std::size_t length,
                          bool normalise, float* norm, cudaStream_t stream);

}  // namespace astrosweep::fdas::kernels
