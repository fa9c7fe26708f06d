// The coherent stage's sky search on the GPU (spec §8-§9): for each task (candidate × trial) every
// searched pixel's ρ_coh² = |u_0ᵀζ|² + |u_1ᵀζ|², then the pixel coherent_snr.hpp's reported_pixel
// picks: the first whose ρ_coh² is within the resolution of the maximum. One block per task.
//
// Bit for bit the CPU's loop: every sum and product is rounded on its own (__fadd_rn, __fmul_rn,
// which nvcc never contracts into an FMA; the CPU build targets x86-64 without FMA) in the CPU's
// order, from the same Real values (the windows hold the SNR already converted to Real, as the CPU
// converts each sample it reads). So the reduction sees the CPU's values, and picks its pixel.
//
// The reduction in two passes without storing the sky: pass 1 each thread's maximum over its
// pixels (p = first + (threadIdx + j · blockDim) · stride), a block maximum M and the floor
// M − resolution · |M| (as the CPU computes it); pass 2 only the threads whose maximum reaches the
// floor scan their pixels again, in increasing order, stopping at the first that reaches it, and a
// block minimum of those indices is the CPU's first such pixel. Thread 0 evaluates that pixel once
// more for its ρ_coh² and Σ|ζ|².

#include <cuda_runtime.h>

#include "coherent_sky_launch.hpp"
#include "cuda_memory.hpp"

namespace astrosweep::spiir::kernels {
namespace {

__device__ inline float add(float a, float b) { return __fadd_rn(a, b); }
__device__ inline double add(double a, double b) { return __dadd_rn(a, b); }
__device__ inline float mul(float a, float b) { return __fmul_rn(a, b); }
__device__ inline double mul(double a, double b) { return __dmul_rn(a, b); }

// ρ_coh² of pixel p for the task whose windows start at `win`, with Σ|ζ_d|² in `total`
// (PixelTables::coherent and ::zeta in coherent_snr.cpp).
template <class Real, bool Subsample>
__device__ Real coherent(const SkyLaunch<Real>& k, const Real* __restrict__ win, int ref, int p, Real& total) {
  const Real* u = k.u01 + static_cast<std::size_t>(p) * 2 * k.n_det;
  Real w0r = 0, w0i = 0, w1r = 0, w1i = 0;
  total = 0;
  for (int d = 0; d < k.n_det; ++d) {
    const std::size_t i = (static_cast<std::size_t>(ref) * k.n_pix + p) * k.n_det + d;
    // The window's sample `centre` is the task's base: the read at offset o is sample centre + o.
    const int at = k.centre + k.reads[i];  // ≥ 0 and its taps < window_length: checked on the host
    const Real* s = win + (static_cast<std::size_t>(d) * k.window_length + static_cast<std::size_t>(at)) * 2;
    Real zr, zi;
    if constexpr (Subsample) {
      const Real* w = k.weights + i * k.taps;
      zr = 0;
      zi = 0;
      for (int j = 0; j < k.taps; ++j) {
        zr = add(zr, mul(w[j], s[2 * j]));
        zi = add(zi, mul(w[j], s[2 * j + 1]));
      }
    } else {
      zr = s[0];
      zi = s[1];
    }
    w0r = add(w0r, mul(u[d], zr));
    w0i = add(w0i, mul(u[d], zi));
    w1r = add(w1r, mul(u[k.n_det + d], zr));
    w1i = add(w1i, mul(u[k.n_det + d], zi));
    total = add(total, add(mul(zr, zr), mul(zi, zi)));
  }
  return add(add(add(mul(w0r, w0r), mul(w0i, w0i)), mul(w1r, w1r)), mul(w1i, w1i));
}

template <class Real, bool Subsample>
__global__ void __launch_bounds__(sky_block_threads) sky_search(const SkyLaunch<Real> k) {
  __shared__ Real best[sky_block_threads];
  __shared__ int first_hit[sky_block_threads];
  const std::size_t task = blockIdx.x;
  const int tid = static_cast<int>(threadIdx.x);
  const Real* win = k.windows + task * static_cast<std::size_t>(k.n_det) * k.window_length * 2;
  const int ref = k.ref[task], first = k.first[task];
  const int n = (k.n_pix - first + k.stride - 1) / k.stride;  // pixels searched: first + j · stride, j < n
  Real total = 0;

  // Pass 1: the block maximum. A thread without pixels holds −1 (every ρ_coh² is ≥ 0).
  Real local = -1;
  for (int j = tid; j < n; j += sky_block_threads) {
    const Real v = coherent<Real, Subsample>(k, win, ref, first + j * k.stride, total);
    local = v > local ? v : local;
  }
  best[tid] = local;
  __syncthreads();
  for (int half = sky_block_threads / 2; half > 0; half /= 2) {
    if (tid < half && best[tid + half] > best[tid]) best[tid] = best[tid + half];
    __syncthreads();
  }
  const Real max = best[0];
  const Real floor = add(max, -mul(k.resolution, max < 0 ? -max : max));  // max − resolution · |max|

  // Pass 2: the first searched index whose value reaches the floor (n where none: never the case).
  int hit = n;
  if (local >= floor)
    for (int j = tid; j < n; j += sky_block_threads)
      if (coherent<Real, Subsample>(k, win, ref, first + j * k.stride, total) >= floor) {
        hit = j;
        break;
      }
  first_hit[tid] = hit;
  __syncthreads();
  for (int half = sky_block_threads / 2; half > 0; half /= 2) {
    if (tid < half && first_hit[tid + half] < first_hit[tid]) first_hit[tid] = first_hit[tid + half];
    __syncthreads();
  }
  if (tid == 0) {
    const int pixel = first + first_hit[0] * k.stride;
    k.coh[task] = coherent<Real, Subsample>(k, win, ref, pixel, total);
    k.total[task] = total;
    k.pixel[task] = pixel;
  }
}

}  // namespace

template <class Real>
void launch_sky_search(const SkyLaunch<Real>& launch, cudaStream_t stream) {
  if (launch.n_tasks == 0) return;
  const auto blocks = static_cast<unsigned>(launch.n_tasks);
  if (launch.weights != nullptr)
    sky_search<Real, true><<<blocks, sky_block_threads, 0, stream>>>(launch);
  else
    sky_search<Real, false><<<blocks, sky_block_threads, 0, stream>>>(launch);
  AS_CUDA_TRY(cudaGetLastError());
}

template void launch_sky_search<float>(const SkyLaunch<float>&, cudaStream_t);
template void launch_sky_search<double>(const SkyLaunch<double>&, cudaStream_t);

}  // namespace astrosweep::spiir::kernels
