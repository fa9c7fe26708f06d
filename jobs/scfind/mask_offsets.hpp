#pragma once
// A mostly-empty mask as the offsets of its set voxels. scfind's mask holds about 0.02 % of the
// cube's voxels (736,723 of 3.15e9 for the WALLABY-region cube), so its writer needs megabytes of
// offsets rather than the gigabytes of the mask. Twin of kernels/scfind/mask_offsets.cu.

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace astrosweep::scfind {

/// The positions i of the non-zero bytes of `mask`, ascending, found on all OpenMP threads.
[[nodiscard]] std::vector<std::uint64_t> mask_offsets(std::span<const std::uint8_t> mask);
/// The same, or nullopt when there are more than `limit` of them (known after the counting pass,
/// before any is listed).
[[nodiscard]] std::optional<std::vector<std::uint64_t>> mask_offsets(std::span<const std::uint8_t> mask,
                                                                     std::uint64_t limit);

}  // namespace astrosweep::scfind
