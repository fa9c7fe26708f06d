#pragma once
// Launchers of the SNR history's kernels (snr_history.cu) for snr_history_cuda.cpp: a chunk
// written into the ring, and reads gathered out of it. The ring's layout is jobs/spiir/
// snr_history.hpp's (ring_slot), (re, im) pairs of Real.

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace astrosweep::spiir::kernels {

/// ring[ring_slot(j, at + i, length)] = z[j · n + i] for every template j < n_templates and
/// i < n (n ≤ length): a chunk, template-major as the filter (From = Real) or the multi-rate sum
/// (From = double) writes it, into the ring, each value converted to Real as the host append
/// converts it (static_cast: double to float rounded to nearest, even on ties; float to double exact).
template <class From, class Real>
void launch_ring_write(const From* z, std::size_t n_templates, std::size_t n, Real* ring, std::size_t length,
                       std::int64_t at, cudaStream_t stream);

/// out[r · n + i] = ring[ring_slot(row[r], first[r] + i, length)] for r < n_reads, i < n (rows
/// checked by the caller).
template <class Real>
void launch_ring_gather(const Real* ring, std::size_t length, const std::int64_t* row, const std::int64_t* first,
                        std::size_t n_reads, std::size_t n, Real* out, cudaStream_t stream);

}  // namespace astrosweep::spiir::kernels
