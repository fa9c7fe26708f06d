#pragma once
// Launchers of the multi-rate levels' interpolation and sum on the device (spiir_multirate.cu) for
// multirate_backend_cuda.cpp: the device twin of MultirateStream's add_interpolated
// (jobs/spiir/multirate_filter.cpp), its per-sample arithmetic shared through
// jobs/spiir/multirate_upsample_rule.hpp, so the sums are the host's bit for bit.

#include <cuda_runtime_api.h>

#include <cstddef>

namespace astrosweep::spiir::kernels {

/// One level's summed SNR: for template t < n_templates and sample i < n, out[t · n + i] (double
/// re, im pairs) = level_z[t · n + i] (the level's own SNR in Real pairs, as launch_spiir_filter
/// writes it; zero where level_z is null, a level without filters) plus, where below is not null
/// and seen + i ≥ output_start, the causal interpolation of `below` (the level under it, summed:
/// n / 2 double pairs per template) after `history` (per template its last k + 1 samples from below
/// before this chunk, double pairs). `taps` (2k + 1 doubles, device memory) is the half-band filter.
/// Where below is null (the lowest level) out is level_z widened, which must then not be null.
template <class Real>
void launch_multirate_upsample_add(const Real* level_z, const double* below, const double* history, const double* taps,
                                   std::size_t k, std::size_t n_templates, std::size_t n, std::size_t seen,
                                   std::size_t output_start, double* out, cudaStream_t stream);

/// The next chunk's history: next_history[t · (k + 1) + q] = e_t[n_below + q] for q ≤ k, e_t being
/// template t's history (k + 1 samples) followed by its n_below samples of `below` (double pairs).
/// next_history must not overlap history or below.
void launch_multirate_keep_history(const double* history, const double* below, std::size_t k, std::size_t n_templates,
                                   std::size_t n_below, double* next_history, cudaStream_t stream);

}  // namespace astrosweep::spiir::kernels
