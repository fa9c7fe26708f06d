#pragma once
// Launchers of the per-sample maximum over templates and of the SNR rows' gather
// (spiir_sample_max.cu) for spiir_backend_cuda.cpp: what the first pass keeps of a chunk comes
// down instead of every template's SNR. The rule is jobs/spiir/sample_max_rule.hpp's, shared with the
// plain loop, so the result is that loop's over the same SNRs, bit for bit.

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace astrosweep::spiir::kernels {

/// For every sample i < n of z (template-major, n_templates × n, interleaved re, im, as
/// launch_spiir_filter writes it): power[i] = the largest |z|² over the templates (the lowest
/// template on a tie; −1 where every |z|² is NaN), index[i] its template, best_z[2i, 2i + 1] its z.
/// n_templates ≥ 1 and ≤ INT32_MAX; nothing is launched for n = 0.
template <class Real>
void launch_spiir_sample_max(const Real* z, std::size_t n_templates, std::size_t n, double* power, std::int32_t* index,
                             Real* best_z, cudaStream_t stream);

/// out[r · n + i] = z[rows[r] · n + i] (interleaved re, im) for r < n_rows, i < n: templates'
/// rows of the chunk's SNRs, packed for one download. The rows must lie within z.
template <class Real>
void launch_spiir_gather_rows(const Real* z, std::size_t n, const std::int32_t* rows, std::size_t n_rows, Real* out,
                              cudaStream_t stream);

}  // namespace astrosweep::spiir::kernels
