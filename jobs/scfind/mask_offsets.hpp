#pragma once
// A mostly-empty mask as the offsets of its set voxels. scfind's mask holds about 0.02 % of the
// cube's voxels (736,723 of 3.15e9 for the WALLABY-region cube), so its writer needs megabytes of
// offsets rather than the gigabytes of the mask. Twin of kernels/scfind/mask_offsets.cu.

#include <cstdint>
#include <span>
#include <vector>

namespace astrosweep::scfind {

/// The positions i of the non-zero bytes of `mask`, ascending, found on all OpenMP threads.
[[nodiscard]] std::vector<std::uint64_t> mask_offsets(std::span<const std::uint8_t> mask);

}  // namespace astrosweep::scfind
