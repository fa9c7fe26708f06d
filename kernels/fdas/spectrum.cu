// The element-wise steps around the spectrum's cuFFT transform (spectrum_cuda.cpp).
#include "cuda_memory.hpp"
#include "spectrum_launch.hpp"

namespace astrosweep::fdas::kernels {

namespace {

constexpr int block = 256;

__global__ void pad_with_mean(const float* __restrict__ x, std::size_t n, double mean, double* __restrict__ padded,
                              std::size_t n_fft) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (i < n_fft) padded[i] = i < n ? static_cast<double>(x[i]) : mean;
}

__global__ void round_to_float(const double2* __restrict__ in, float2* __restrict__ out, std::size_t n) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (i < n)
    out[i] = i == 0 ? make_float2(1.0F, 0.0F) : make_float2(static_cast<float>(in[i].x), static_cast<float>(in[i].y));
}

unsigned blocks_for(std::size_t n) { return static_cast<unsigned>((n + block - 1) / block); }

}  // namespace

void launch_pad_with_mean(const float* x, std::size_t n, double mean, double* padded, std::size_t n_fft,
                          cudaStream_t stream) {
  if (n_fft == 0) return;
  pad_with_mean<<<blocks_for(n_fft), block, 0, stream>>>(x, n, mean, padded, n_fft);
  AS_CUDA_TRY(cudaGetLastError());
}

void launch_round_to_float(const double2* in, float2* out, std::size_t n, cudaStream_t stream) {
  if (n == 0) return;
  round_to_float<<<blocks_for(n), block, 0, stream>>>(in, out, n);
  AS_CUDA_TRY(cudaGetLastError());
}

}  // namespace astrosweep::fdas::kernels
