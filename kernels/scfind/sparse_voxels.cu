// Sparse-voxel kernels; see sparse_voxels_cuda.hpp.

#include "cuda_memory.hpp"
#include "sparse_voxels_cuda.hpp"

namespace astrosweep::scfind::kernels {

namespace {

constexpr int threads = 256;
constexpr unsigned max_blocks = 8192;

unsigned blocks_for(std::size_t n) {
  const std::size_t blocks = (n + 4 * threads - 1) / (4 * threads);
  return static_cast<unsigned>(blocks < 1 ? 1 : (blocks > max_blocks ? max_blocks : blocks));
}

// Few voxels pass (those far in the noise's tail), but millions of them in a slab of gigabytes:
// each warp takes its hits' places with one atomic (their order is of no matter to the clip).
// Every thread of a block walks the same bases, so the ballots see whole warps.
__global__ void values_above_kernel(const float* __restrict__ data, std::size_t n, double bound,
                                    unsigned long long limit, unsigned long long* __restrict__ offsets,
                                    float* __restrict__ values, unsigned long long* __restrict__ count) {
  const unsigned lane = threadIdx.x % 32;
  for (std::size_t base = blockIdx.x * std::size_t{blockDim.x}; base < n; base += std::size_t{gridDim.x} * blockDim.x) {
    const std::size_t i = base + threadIdx.x;
    const float x = i < n ? data[i] : 0.0f;
    const bool hit = i < n && fabs(static_cast<double>(x)) > bound;
    const unsigned hits = __ballot_sync(0xFFFFFFFFU, hit);
    if (hits == 0) continue;
    const unsigned leader = __ffs(hits) - 1;
    unsigned long long first = 0;
    if (lane == leader) first = atomicAdd(count, static_cast<unsigned long long>(__popc(hits)));
    first = __shfl_sync(0xFFFFFFFFU, first, leader);
    if (hit) {
      const unsigned long long k = first + __popc(hits & ((1U << lane) - 1U));
      if (k < limit) {
        offsets[k] = i;
        values[k] = x;
      }
    }
  }
}

__global__ void set_mask_voxels_kernel(const unsigned long long* __restrict__ offsets, std::size_t n,
                                       std::uint8_t* __restrict__ mask) {
  for (std::size_t k = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; k < n;
       k += std::size_t{gridDim.x} * blockDim.x)
    mask[offsets[k]] = 1;
}

}  // namespace

void values_above(const float* data, std::size_t n, double bound, std::uint64_t limit, std::uint64_t* offsets,
                  float* values, std::uint64_t* count, cudaStream_t stream) {
  static_assert(sizeof(std::uint64_t) == sizeof(unsigned long long));
  AS_CUDA_TRY(cudaMemsetAsync(count, 0, sizeof *count, stream));
  if (n == 0) return;
  values_above_kernel<<<blocks_for(n), threads, 0, stream>>>(data, n, bound, limit,
                                                             reinterpret_cast<unsigned long long*>(offsets), values,
                                                             reinterpret_cast<unsigned long long*>(count));
  AS_CUDA_TRY(cudaGetLastError());
}

void set_mask_voxels(const std::uint64_t* offsets, std::size_t n, std::uint8_t* mask, cudaStream_t stream) {
  if (n == 0) return;
  set_mask_voxels_kernel<<<blocks_for(n), threads, 0, stream>>>(reinterpret_cast<const unsigned long long*>(offsets), n,
                                                                mask);
  AS_CUDA_TRY(cudaGetLastError());
}

}  // namespace astrosweep::scfind::kernels
