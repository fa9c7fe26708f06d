#pragma once
// The set voxels of a device mask as ascending offsets (kernels/scfind/mask_offsets.cu), twin of
// jobs/scfind/mask_offsets.cpp: only the offsets leave the device, not the mask (a mask holding
// 0.02 % of a 3.15e9-voxel cube: 6 MB of offsets instead of a 3.15 GB download). Three kernels, as
// the noise's selection: a count per block, one block scanning the counts into offsets, a scatter
// writing each block's ones from its offset on, in order, so the result needs no sorting.
//
// All pointers are device memory; the launchers take the stream last, queue their work on it and
// never synchronise.

#include <cuda_runtime_api.h>

#include <cstdint>

namespace astrosweep::scfind::kernels {

/// 64-bit words of device scratch the two launchers share.
constexpr std::uint64_t mask_offsets_scratch_words = 1024;

/// *count = the non-zero bytes of mask[0, n); `scratch` (mask_offsets_scratch_words) keeps what
/// write_mask_offsets needs for the same mask and n.
void count_mask_offsets(const std::uint8_t* mask, std::uint64_t n, std::uint64_t* scratch, std::uint64_t* count,
                        cudaStream_t stream);

/// out[0, *count) = the positions i of the non-zero bytes of mask[0, n), ascending; `scratch` as
/// count_mask_offsets left it, with the mask unchanged since.
void write_mask_offsets(const std::uint8_t* mask, std::uint64_t n, const std::uint64_t* scratch, std::uint64_t* out,
                        cudaStream_t stream);

}  // namespace astrosweep::scfind::kernels
