#pragma once
// Launchers of the spectrum kernels (spectrum.cu) for spectrum_cuda.cpp.

#include <cuda_runtime_api.h>

#include <cstddef>

namespace astrosweep::fdas::kernels {

/// padded[i] = i < n ? x[i] : mean, for i < n_fft.
void launch_pad_with_mean(const float* x, std::size_t n, double mean, double* padded, std::size_t n_fft,
                          cudaStream_t stream);
/// out[k] = (float) in[k] for 0 < k < n, out[0] = 1 (raw_spectrum's DC).
void launch_round_to_float(const double2* in, float2* out, std::size_t n, cudaStream_t stream);

}  // namespace astrosweep::fdas::kernels
