// The per-sample maximum over templates (twin of jobs/spiir/sample_max.cpp's loop, its rule
// shared through sample_max_rule.hpp) and the gather of SNR rows.
//
// Mapping: a block is 32 samples (x, a warp's consecutive samples: each load of a template's row
// is one coalesced 256-byte (FP32) or 512-byte (FP64) transaction) × max_y template lanes (y);
// lane y takes templates y, y + max_y, … in increasing order, keeping its best by the shared rule,
// then the lanes' bests are combined in shared memory by the same rule (an order: any tree gives
// the sequential loop's choice). 1,024 templates × 4,096 samples: 128 blocks of 512 threads, each
// thread 64 templates.
#include "cuda_memory.hpp"
#include "sample_max_rule.hpp"
#include "spiir_sample_max_launch.hpp"

namespace astrosweep::spiir::kernels {

namespace {

constexpr unsigned samples_per_block = 32;
constexpr unsigned template_lanes = 16;  // a power of two: the tree below halves it

template <class Real>
struct Complex2;
template <>
struct Complex2<float> {
  using type = float2;
};
template <>
struct Complex2<double> {
  using type = double2;
};
template <class Real>
using Pair2 = typename Complex2<Real>::type;

template <class Real>
__global__ void __launch_bounds__(samples_per_block* template_lanes)
    spiir_sample_max(const Pair2<Real>* __restrict__ z, std::size_t n_templates, std::size_t n,
                     double* __restrict__ power, std::int32_t* __restrict__ index, Pair2<Real>* __restrict__ best_z) {
  __shared__ double lane_power[template_lanes][samples_per_block];
  __shared__ std::int32_t lane_index[template_lanes][samples_per_block];
  const unsigned x = threadIdx.x, y = threadIdx.y;
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * samples_per_block + x;
  sample_max_rule::Best best;
  if (i < n) {
#pragma unroll 4
    for (std::size_t t = y; t < n_templates; t += template_lanes) {
      const Pair2<Real> v = __ldg(z + t * n + i);
      sample_max_rule::consider(best, sample_max_rule::power(static_cast<double>(v.x), static_cast<double>(v.y)),
                                static_cast<std::int32_t>(t));
    }
  }
  lane_power[y][x] = best.power;
  lane_index[y][x] = best.index;
  __syncthreads();
  for (unsigned half = template_lanes / 2; half > 0; half /= 2) {
    if (y < half) {
      sample_max_rule::Best mine{lane_power[y][x], lane_index[y][x]};
      sample_max_rule::consider(mine, lane_power[y + half][x], lane_index[y + half][x]);
      lane_power[y][x] = mine.power;
      lane_index[y][x] = mine.index;
    }
    __syncthreads();
  }
  if (y == 0 && i < n) {
    const std::int32_t t = lane_index[0][x];
    power[i] = lane_power[0][x];
    index[i] = t;
    best_z[i] = z[static_cast<std::size_t>(t) * n + i];
  }
}

template <class Real>
__global__ void gather_rows(const Pair2<Real>* __restrict__ z, std::size_t n, const std::int32_t* __restrict__ rows,
                            std::size_t n_rows, Pair2<Real>* __restrict__ out) {
  const std::size_t k = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (k >= n_rows * n) return;
  const std::size_t r = k / n, i = k % n;
  out[k] = z[static_cast<std::size_t>(rows[r]) * n + i];
}

}  // namespace

template <class Real>
void launch_spiir_sample_max(const Real* z, std::size_t n_templates, std::size_t n, double* power, std::int32_t* index,
                             Real* best_z, cudaStream_t stream) {
  if (n == 0) return;
  AS_ASSERT(n_templates >= 1 && n_templates <= 0x7fffffffu);
  const auto blocks = static_cast<unsigned>((n + samples_per_block - 1) / samples_per_block);
  spiir_sample_max<Real><<<blocks, dim3(samples_per_block, template_lanes), 0, stream>>>(
      reinterpret_cast<const Pair2<Real>*>(z), n_templates, n, power, index, reinterpret_cast<Pair2<Real>*>(best_z));
  AS_CUDA_TRY(cudaGetLastError());
}

template <class Real>
void launch_spiir_gather_rows(const Real* z, std::size_t n, const std::int32_t* rows, std::size_t n_rows, Real* out,
                              cudaStream_t stream) {
  if (n == 0 || n_rows == 0) return;
  constexpr unsigned block = 256;
  const auto blocks = static_cast<unsigned>((n_rows * n + block - 1) / block);
  gather_rows<Real><<<blocks, block, 0, stream>>>(reinterpret_cast<const Pair2<Real>*>(z), n, rows, n_rows,
                                                  reinterpret_cast<Pair2<Real>*>(out));
  AS_CUDA_TRY(cudaGetLastError());
}

template void launch_spiir_sample_max<float>(const float*, std::size_t, std::size_t, double*, std::int32_t*, float*,
                                             cudaStream_t);
template void launch_spiir_sample_max<double>(const double*, std::size_t, std::size_t, double*, std::int32_t*, double*,
                                              cudaStream_t);
template void launch_spiir_gather_rows<float>(const float*, std::size_t, const std::int32_t*, std::size_t, float*,
                                              cudaStream_t);
template void launch_spiir_gather_rows<double>(const double*, std::size_t, const std::int32_t*, std::size_t, double*,
                                               cudaStream_t);

}  // namespace astrosweep::spiir::kernels
