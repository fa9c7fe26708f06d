// The set voxels of a device mask as ascending offsets; see mask_offsets_cuda.hpp.

#include <cstdint>
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>

#include "cuda_memory.hpp"
#include "mask_offsets_cuda.hpp"
#include "scan_block_counts.cuh"

namespace astrosweep::scfind::kernels {

namespace {

// Block b of the count and scatter kernels owns the bytes [b·span, (b+1)·span); its counts are
// scanned by one block, so there are at most as many blocks as scratch words.
constexpr int offsets_threads = 256;
constexpr unsigned max_offsets_blocks = mask_offsets_scratch_words;
constexpr int scan_threads = 256;
constexpr int scan_items = max_offsets_blocks / scan_threads;
static_assert(scan_threads * scan_items == max_offsets_blocks);

struct Partition {
  unsigned blocks;
  std::uint64_t span;  // a multiple of offsets_threads
};

Partition partition(std::uint64_t n) {
  std::uint64_t blocks = (n + 16 * offsets_threads - 1) / (16 * offsets_threads);
  blocks = blocks < 1 ? 1 : (blocks > max_offsets_blocks ? max_offsets_blocks : blocks);
  std::uint64_t span = (n + blocks - 1) / blocks;
  span = (span + offsets_threads - 1) / offsets_threads * offsets_threads;
  return {static_cast<unsigned>(blocks), span};
}

__global__ void __launch_bounds__(offsets_threads)
    count_set_kernel(const std::uint8_t* __restrict__ mask, std::uint64_t n, std::uint64_t span,
                     unsigned long long* __restrict__ block_counts) {
  const std::uint64_t begin = blockIdx.x * span;
  const std::uint64_t end = begin + span < n ? begin + span : n;
  unsigned long long mine = 0;
  for (std::uint64_t k = begin + threadIdx.x; k < end; k += offsets_threads) mine += mask[k] != 0 ? 1 : 0;
  using Reduce = cub::BlockReduce<unsigned long long, offsets_threads>;
  __shared__ typename Reduce::TempStorage temp;
  const unsigned long long total = Reduce(temp).Sum(mine);
  if (threadIdx.x == 0) block_counts[blockIdx.x] = total;
}

__global__ void __launch_bounds__(offsets_threads)
    scatter_set_kernel(const std::uint8_t* __restrict__ mask, std::uint64_t n, std::uint64_t span,
                       const unsigned long long* __restrict__ block_offsets, std::uint64_t* __restrict__ out) {
  using Scan = cub::BlockScan<unsigned, offsets_threads>;
  __shared__ typename Scan::TempStorage temp;
  const std::uint64_t begin = blockIdx.x * span;
  const std::uint64_t end = begin + span < n ? begin + span : n;
  unsigned long long at = block_offsets[blockIdx.x];
  for (std::uint64_t k0 = begin; k0 < end; k0 += offsets_threads) {  // the same steps for the whole block
    const std::uint64_t k = k0 + threadIdx.x;
    const bool set = k < end && mask[k] != 0;
    // Most steps of a mostly-empty mask hold no one: one barrier, and no scan.
    if (__syncthreads_or(set) == 0) continue;
    unsigned position = 0, step_total = 0;
    Scan(temp).ExclusiveSum(set ? 1u : 0u, position, step_total);
    if (set) out[at + position] = k;
    at += step_total;
    __syncthreads();  // the next step reuses temp
  }
}

}  // namespace

void count_mask_offsets(const std::uint8_t* mask, std::uint64_t n, std::uint64_t* scratch, std::uint64_t* count,
                        cudaStream_t stream) {
  static_assert(sizeof(std::uint64_t) == sizeof(unsigned long long));
  if (n == 0) {
    AS_CUDA_TRY(cudaMemsetAsync(count, 0, sizeof *count, stream));
    return;
  }
  const Partition p = partition(n);
  auto* counts = reinterpret_cast<unsigned long long*>(scratch);
  count_set_kernel<<<p.blocks, offsets_threads, 0, stream>>>(mask, n, p.span, counts);
  AS_CUDA_TRY(cudaGetLastError());
  scan_block_counts_kernel<scan_threads, scan_items>
      <<<1, scan_threads, 0, stream>>>(counts, p.blocks, reinterpret_cast<unsigned long long*>(count));
  AS_CUDA_TRY(cudaGetLastError());
}

void write_mask_offsets(const std::uint8_t* mask, std::uint64_t n, const std::uint64_t* scratch, std::uint64_t* out,
                        cudaStream_t stream) {
  if (n == 0) return;
  const Partition p = partition(n);
  scatter_set_kernel<<<p.blocks, offsets_threads, 0, stream>>>(
      mask, n, p.span, reinterpret_cast<const unsigned long long*>(scratch), out);
  AS_CUDA_TRY(cudaGetLastError());
}

}  // namespace astrosweep::scfind::kernels
