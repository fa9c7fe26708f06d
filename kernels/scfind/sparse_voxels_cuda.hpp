#pragma once
// Kernels that trade a slab's dense arrays for lists of voxels (kernels/scfind/sparse_voxels.cu):
// the smoothed values above a bound, kept so that a streamed slab is clipped later without
// uploading and smoothing it again, and a mask set from a list of voxels instead of a byte per
// voxel of its channels. Plain C++ with the CUDA runtime's stream type.

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace astrosweep::scfind::kernels {

/// The voxels i < n with |data[i]| > bound (compared in double, as clip()): their number goes to
/// *count, and the first `limit` of them found (in no particular order) to offsets[] and values[].
void values_above(const float* data, std::size_t n, double bound, std::uint64_t limit, std::uint64_t* offsets,
                  float* values, std::uint64_t* count, cudaStream_t stream);

/// mask[offsets[k]] = 1 for k < n.
void set_mask_voxels(const std::uint64_t* offsets, std::size_t n, std::uint8_t* mask, cudaStream_t stream);

}  // namespace astrosweep::scfind::kernels
