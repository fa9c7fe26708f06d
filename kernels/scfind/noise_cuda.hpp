#pragma once
// The device side of the mad noise's exact median (kernels/noise.cu), twin of the host counting
// in jobs/scfind/magnitude_counter.cpp and noise.cpp: the rank's sample is reduced on the device to
// the bit patterns of |x| of its in-range values, in walk order, and each round of the histogram
// refinement (distributed_select) counts them there, so only 256 counts per round go to the host.
//
// Magnitudes are handled as bit patterns (std::uint32_t): a non-negative float orders like its
// bits, and the flux-range test is done on the bits too, so no result depends on how the device
// treats denormals.
//
// All pointers are device memory; the launchers take the stream last, queue their work on it and
// never synchronise.

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace astrosweep::scfind::kernels {

/// Which samples the mad keeps: x < 0, every non-NaN x, x > 0 (SoFiA-2's flux ranges, as
/// in_flux_range in magnitude_counter.hpp).
enum class Flux { negative, full, positive };

/// 64-bit words of device scratch select_magnitudes needs.
constexpr std::size_t select_scratch_words = 1024;

/// out[0, m) = the bit patterns of |x| (sign cleared) of the x = data[highest − k·cadence],
/// k = 0 .. count − 1, that are in `flux`, in k order; *selected = m. Indices relative to `data`.
/// `out` holds count values; `scratch` holds select_scratch_words. Three kernels (count per block,
/// one-block scan, scatter), so the order is the walk's: SoFiA-2's cap keeps a prefix of it.
void select_magnitudes(const float* data, std::uint64_t highest, std::uint64_t cadence, std::uint64_t count, Flux flux,
                       std::uint32_t* out, std::uint64_t* scratch, std::uint64_t* selected, cudaStream_t stream);

/// counts[d] = the values among values[0, n) with (v & mask) == prefix and ((v >> shift) & 0xFF)
/// == d, for d < 256 (counts is zeroed first). Shared-memory histogram per block.
void digit_histogram(const std::uint32_t* values, std::uint64_t n, std::uint32_t prefix, std::uint32_t mask, int shift,
                     std::uint64_t* counts, cudaStream_t stream);

}  // namespace astrosweep::scfind::kernels
