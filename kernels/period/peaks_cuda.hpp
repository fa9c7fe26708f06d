#pragma once
// Periodogram peaks on the device (kernels/peaks.cu), twin of jobs/period/peaks.cpp. For each
// chunk a block histograms its interior local maxima by value, finds the bin that holds the
// keep-th strongest, and emits every maximum from that bin up: a superset of the `keep` strongest
// that the host sorts and cuts exactly like summarize_chunk. Only these candidates and the four
// edge values cross PCIe; a chunk whose candidates overflow the slots is summarised on the host.

#include <cuda_runtime_api.h>

#include <cstdint>

#include "lomb_scargle_cuda.hpp"

namespace astrosweep::period::kernels {

/// Chunk `index` of segment `segment` (chunks are chunk_freqs long, the last may be shorter).
struct ChunkRef {
  std::uint32_t segment = 0;
  std::uint32_t index = 0;
};

/// Per chunk c: count[c] maxima found (more than `capacity` means overflow), edge[4c..4c+3] the
/// values at offsets 0, 1, n-2, n-1, and up to `capacity` candidates at [c * capacity, ...).
struct CandidateSlots {
  std::uint32_t* count = nullptr;
  double* edge = nullptr;
  std::uint32_t* offset = nullptr;  ///< within the chunk
  double* power = nullptr;
  std::uint32_t capacity = 0;
};

template <class T>
void chunk_candidates(const T* power, const Segment* segments, const ChunkRef* chunks, std::uint32_t n_chunks,
                      std::uint64_t chunk_length, std::uint32_t keep, const CandidateSlots& slots, cudaStream_t stream);

}  // namespace astrosweep::period::kernels
