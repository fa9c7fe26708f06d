#pragma once
// The seed's FFT micro-benchmark (spec §14, the seed's Table 1) on the correlation's shared-memory
// FFT (shared_memory_fft.cuh): the transform's own speed, apart from the correlation around it.

#include <cuda_runtime_api.h>

#include <cstddef>

namespace astrosweep::fdas::kernels {

/// Points of the benchmark's transform (the seed's N).
inline constexpr std::size_t fft_benchmark_length = 1024;
/// Signals one thread block holds side by side (each barrier serves both).
inline constexpr std::size_t fft_benchmark_signals_per_block = 2;

/// For each of `signals` 1,024-point complex signals (an even count, one after another in `in`),
/// `repeats` unitary inverse DFTs in a row on the data resident in shared memory,
/// y_k = 2^-5 Σ_n x_n e^{+2πi kn/1024}, the result in `out`: the block loads once, transforms
/// `repeats` times and stores once, so the transforms' speed shows. Four in a row are the identity
/// (two reverse the signal: y_n = x_{−n mod N}). `twiddle` holds e^{+2πi m/1024}, m < 1024.
void launch_fft_benchmark(const float2* in, float2* out, const float2* twiddle, std::size_t signals, int repeats,
                          cudaStream_t stream);

}  // namespace astrosweep::fdas::kernels
