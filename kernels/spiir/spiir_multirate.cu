// The multi-rate levels' interpolation and sum on the device (twin of MultirateStream's
// add_interpolated, jobs/spiir/multirate_filter.cpp; the per-sample arithmetic is
// jobs/spiir/multirate_upsample_rule.hpp's, shared with it, so the sums agree bit for bit).
//
// Mapping: a thread per (template, output sample), 256 consecutive samples of one template per
// block (y over templates, strided where they exceed the grid's y). A thread reads K + 1 samples
// from below, its neighbours the same ones shifted by a sample every two threads: the reads hit the
// L1 cache after the first warp's. The taps (2K + 1 ≤ 257 doubles) sit in shared memory.
#include <algorithm>

#include "cuda_memory.hpp"
#include "multirate_upsample_rule.hpp"
#include "spiir_multirate_launch.hpp"

namespace astrosweep::spiir::kernels {

namespace {

constexpr unsigned block_samples = 256;
constexpr unsigned max_grid_y = 65535;

/// e[q] of one template: its history's k + 1 samples, then this chunk's from below.
struct BelowReader {
  const double2* history;
  const double2* below;
  std::size_t k1;  // k + 1
  __device__ void operator()(std::size_t q, double& re, double& im) const {
    const double2 v = q < k1 ? __ldg(history + q) : __ldg(below + (q - k1));
    re = v.x;
    im = v.y;
  }
};

template <class Real>
__device__ double2 widen(const Real* z, std::size_t at) {
  return make_double2(static_cast<double>(z[2 * at]), static_cast<double>(z[2 * at + 1]));
}

template <class Real>
__global__ void __launch_bounds__(block_samples)
    upsample_add(const Real* __restrict__ level_z, const double2* __restrict__ below,
                 const double2* __restrict__ history, const double* __restrict__ taps, std::size_t k,
                 std::size_t n_templates, std::size_t n, std::size_t seen, std::size_t output_start,
                 double2* __restrict__ out) {
  extern __shared__ double shared_taps[];
  for (std::size_t j = threadIdx.x; j <= 2 * k; j += blockDim.x) shared_taps[j] = taps[j];
  __syncthreads();
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * block_samples + threadIdx.x;
  if (i >= n) return;
  for (std::size_t t = blockIdx.y; t < n_templates; t += gridDim.y) {
    const std::size_t at = t * n + i;
    double2 v = level_z != nullptr ? widen(level_z, at) : make_double2(0.0, 0.0);
    if (below != nullptr && seen + i >= output_start) {
      const BelowReader read{history + t * (k + 1), below + t * (n / 2), k + 1};
      double re = 0, im = 0;
      multirate_upsample_rule::interpolate(shared_taps, k, i, read, re, im);
      v.x = multirate_upsample_rule::add(v.x, re);
      v.y = multirate_upsample_rule::add(v.y, im);
    }
    out[at] = v;
  }
}

__global__ void keep_history(const double2* __restrict__ history, const double2* __restrict__ below, std::size_t k,
                             std::size_t n_templates, std::size_t n_below, double2* __restrict__ next_history) {
  const std::size_t g = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::size_t k1 = k + 1;
  if (g >= n_templates * k1) return;
  const std::size_t t = g / k1, p = n_below + g % k1;  // e_t[p]
  next_history[g] = p < k1 ? history[t * k1 + p] : below[t * n_below + (p - k1)];
}

}  // namespace

template <class Real>
void launch_multirate_upsample_add(const Real* level_z, const double* below, const double* history, const double* taps,
                                   std::size_t k, std::size_t n_templates, std::size_t n, std::size_t seen,
                                   std::size_t output_start, double* out, cudaStream_t stream) {
  if (n == 0 || n_templates == 0) return;
  AS_ASSERT(level_z != nullptr || below != nullptr);
  AS_ASSERT(below == nullptr || n % 2 == 0);
  const dim3 grid(static_cast<unsigned>((n + block_samples - 1) / block_samples),
                  static_cast<unsigned>(std::min<std::size_t>(n_templates, max_grid_y)));
  const std::size_t shared = (2 * k + 1) * sizeof(double);
  upsample_add<Real><<<grid, block_samples, shared, stream>>>(
      level_z, reinterpret_cast<const double2*>(below), reinterpret_cast<const double2*>(history), taps, k, n_templates,
      n, seen, output_start, reinterpret_cast<double2*>(out));
  AS_CUDA_TRY(cudaGetLastError());
}

void launch_multirate_keep_history(const double* history, const double* below, std::size_t k, std::size_t n_templates,
                                   std::size_t n_below, double* next_history, cudaStream_t stream) {
  const std::size_t count = n_templates * (k + 1);
  if (count == 0) return;
  constexpr unsigned block = 256;
  keep_history<<<static_cast<unsigned>((count + block - 1) / block), block, 0, stream>>>(
      reinterpret_cast<const double2*>(history), reinterpret_cast<const double2*>(below), k, n_templates, n_below,
      reinterpret_cast<double2*>(next_history));
  AS_CUDA_TRY(cudaGetLastError());
}

template void launch_multirate_upsample_add<float>(const float*, const double*, const double*, const double*,
                                                   std::size_t, std::size_t, std::size_t, std::size_t, std::size_t,
                                                   double*, cudaStream_t);
template void launch_multirate_upsample_add<double>(const double*, const double*, const double*, const double*,
                                                    std::size_t, std::size_t, std::size_t, std::size_t, std::size_t,
                                                    double*, cudaStream_t);

}  // namespace astrosweep::spiir::kernels
