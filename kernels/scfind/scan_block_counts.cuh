#pragma once
// One block's exclusive scan of per-block counts, the middle step of the compactions that list
// selected values in order (noise.cu: the mad's magnitudes; mask_offsets.cu: the mask's ones):
// count per block, scan the counts, each block writes from its offset. Device code, included by
// those .cu files only.

#include <cub/block/block_scan.cuh>

namespace astrosweep::scfind::kernels {

/// block_counts[b] (b < blocks <= Threads·Items) becomes the sum of the counts before b; *total
/// their sum. Launched as one block of Threads threads.
template <int Threads, int Items>
__global__ void __launch_bounds__(Threads)
    scan_block_counts_kernel(unsigned long long* __restrict__ block_counts, unsigned blocks,
                             unsigned long long* __restrict__ total) {
  using Scan = cub::BlockScan<unsigned long long, Threads>;
  __shared__ typename Scan::TempStorage temp;
  unsigned long long mine[Items], before[Items];
#pragma unroll
  for (int i = 0; i < Items; ++i) {
    const unsigned b = threadIdx.x * Items + i;
    mine[i] = b < blocks ? block_counts[b] : 0;
  }
  unsigned long long sum = 0;
  Scan(temp).ExclusiveSum(mine, before, sum);
#pragma unroll
  for (int i = 0; i < Items; ++i) {
    const unsigned b = threadIdx.x * Items + i;
    if (b < blocks) block_counts[b] = before[i];
  }
  if (threadIdx.x == 0) *total = sum;
}

}  // namespace astrosweep::scfind::kernels
