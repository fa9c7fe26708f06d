// The seed's FFT micro-benchmark (fft_benchmark_launch.hpp): the correlation kernel's transform
// structure (16 points a thread, radix-16 passes then one of radix 4, two signals side by side)
// repeated on data resident in shared memory. The 2^-5 that makes each transform unitary is exact
// in float, so a test can check the repeated transforms against the signal itself.
#include "correlation_launch.hpp"
#include "cuda_memory.hpp"
#include "fft_benchmark_launch.hpp"
#include "shared_memory_fft.cuh"

namespace astrosweep::fdas::kernels {

namespace {

constexpr int L = static_cast<int>(fft_benchmark_length);
constexpr int P = shared_fft_points(L);
constexpr int NB = static_cast<int>(fft_benchmark_signals_per_block);
constexpr float unitary = 1.0F / 32.0F;  // 1024^-1/2, a power of two

__global__ void __launch_bounds__(L / P) fft_benchmark(const float2* __restrict__ in, float2* __restrict__ out,
                                                       const float2* __restrict__ twiddle, int repeats) {
  __shared__ float2 buf[NB * padded_length<L>];
  constexpr int threads = L / P;
  const int j = threadIdx.x;
  const std::size_t first = static_cast<std::size_t>(blockIdx.x) * NB * L;
  for (int nb = 0; nb < NB; ++nb)
    for (int p = j; p < L; p += threads) buf[nb * padded_length<L> + padded(p)] = in[first + nb * L + p];
  __syncthreads();
  for (int rep = 0; rep < repeats; ++rep) {
    // The first pass (Ns = 1, no twiddles) from the buffer into registers, as the correlation's
    // first pass is from its loads; then the Stockham passes.
    float2 v[NB][P];
#pragma unroll
    for (int nb = 0; nb < NB; ++nb) {
#pragma unroll
      for (int r = 0; r < P; ++r) {
        const float2 x = buf[nb * padded_length<L> + padded(j + r * threads)];
        v[nb][r] = make_float2(x.x * unitary, x.y * unitary);
      }
      dft<P>(v[nb]);
    }
    __syncthreads();
    finish_transform<L, P, NB>(v, buf, twiddle);
  }
  for (int nb = 0; nb < NB; ++nb)
    for (int p = j; p < L; p += threads) out[first + nb * L + p] = buf[nb * padded_length<L> + padded(p)];
}

}  // namespace

void launch_fft_benchmark(const float2* in, float2* out, const float2* twiddle, std::size_t signals, int repeats,
                          cudaStream_t stream) {
  AS_EXPECTS(signals % NB == 0, UsageError, "the FFT benchmark takes its signals in pairs");
  if (signals == 0) return;
  fft_benchmark<<<static_cast<unsigned>(signals / NB), L / P, 0, stream>>>(in, out, twiddle, repeats);
  AS_CUDA_TRY(cudaGetLastError());
}

}  // namespace astrosweep::fdas::kernels
