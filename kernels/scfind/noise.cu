// The mad median's counting on the device; see noise_cuda.hpp.

#include <cstdint>
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>

#include "cuda_memory.hpp"
#include "noise_cuda.hpp"
#include "scan_block_counts.cuh"

namespace astrosweep::scfind::kernels {

namespace {

// --- selection ------------------------------------------------------------------------------
// Block b of the count and scatter kernels owns the walk positions [b·span, (b+1)·span): the
// count kernel counts its kept values, one block scans the counts into offsets, and the scatter
// kernel writes its kept values from its offset on, 256 positions at a time in order. So the
// output is in walk order without any sorting.
constexpr int select_threads = 256;
constexpr unsigned max_select_blocks = 1024;  // their counts are scanned by one block
static_assert(max_select_blocks <= select_scratch_words);

/// The sample walk: data[highest − k·cadence] for k < count.
struct Walk {
  const float* data;
  std::uint64_t highest;
  std::uint64_t cadence;
  std::uint64_t count;
  Flux flux;
};

/// Whether x is in the flux range, tested on its bits; `magnitude` gets the bits of |x|.
__device__ inline bool in_flux(float x, Flux flux, std::uint32_t& magnitude) {
  const std::uint32_t bits = __float_as_uint(x);
  magnitude = bits & 0x7FFFFFFFu;
  if (magnitude > 0x7F800000u) return false;  // NaN, whatever its sign or payload
  const bool sign = (bits >> 31) != 0;
  switch (flux) {
    case Flux::negative: return sign && magnitude != 0;   // x < 0: not −0
    case Flux::positive: return !sign && magnitude != 0;  // x > 0: not +0
    case Flux::full: return true;
  }
  return false;
}

__device__ inline bool kept(const Walk& w, std::uint64_t k, std::uint32_t& magnitude) {
  return in_flux(w.data[w.highest - k * w.cadence], w.flux, magnitude);
}

struct Partition {
  unsigned blocks;
  std::uint64_t span;  // a multiple of select_threads
};

Partition partition(std::uint64_t count) {
  std::uint64_t blocks = (count + 4 * select_threads - 1) / (4 * select_threads);
  blocks = blocks < 1 ? 1 : (blocks > max_select_blocks ? max_select_blocks : blocks);
  std::uint64_t span = (count + blocks - 1) / blocks;
  span = (span + select_threads - 1) / select_threads * select_threads;
  return {static_cast<unsigned>(blocks), span};
}

__global__ void __launch_bounds__(select_threads)
    count_kept_kernel(Walk w, std::uint64_t span, unsigned long long* __restrict__ block_counts) {
  const std::uint64_t begin = blockIdx.x * span;
  const std::uint64_t end = begin + span < w.count ? begin + span : w.count;
  unsigned long long mine = 0;
  std::uint32_t magnitude = 0;
  for (std::uint64_t k = begin + threadIdx.x; k < end; k += select_threads) mine += kept(w, k, magnitude) ? 1 : 0;
  using Reduce = cub::BlockReduce<unsigned long long, select_threads>;
  __shared__ typename Reduce::TempStorage temp;
  const unsigned long long total = Reduce(temp).Sum(mine);
  if (threadIdx.x == 0) block_counts[blockIdx.x] = total;
}

/// The scan of the blocks' counts (scan_block_counts.cuh): one block, each thread scanning four
/// consecutive counts.
constexpr int scan_threads = 256;
constexpr int scan_items = max_select_blocks / scan_threads;
static_assert(scan_threads * scan_items == max_select_blocks);

__global__ void __launch_bounds__(select_threads)
    scatter_kept_kernel(Walk w, std::uint64_t span, const unsigned long long* __restrict__ block_offsets,
                        std::uint32_t* __restrict__ out) {
  using Scan = cub::BlockScan<unsigned, select_threads>;
  __shared__ typename Scan::TempStorage temp;
  const std::uint64_t begin = blockIdx.x * span;
  const std::uint64_t end = begin + span < w.count ? begin + span : w.count;
  unsigned long long at = block_offsets[blockIdx.x];
  for (std::uint64_t k0 = begin; k0 < end; k0 += select_threads) {  // the same steps for the whole block
    const std::uint64_t k = k0 + threadIdx.x;
    std::uint32_t magnitude = 0;
    const bool keep = k < end && kept(w, k, magnitude);
    unsigned position = 0, step_total = 0;
    Scan(temp).ExclusiveSum(keep ? 1u : 0u, position, step_total);
    if (keep) out[at + position] = magnitude;
    at += step_total;
    __syncthreads();  // the next step reuses temp
  }
}

// --- digit histogram ------------------------------------------------------------------------
constexpr int histogram_threads = 256;  // one thread per bin to clear and flush the block's bins
constexpr unsigned max_histogram_blocks = 1024;

__global__ void __launch_bounds__(histogram_threads)
    digit_histogram_kernel(const std::uint32_t* __restrict__ values, std::uint64_t n, std::uint32_t prefix,
                           std::uint32_t mask, int shift, unsigned long long* __restrict__ counts) {
  __shared__ unsigned bins[256];
  bins[threadIdx.x] = 0;
  __syncthreads();
  const unsigned lane = threadIdx.x % 32;
  const std::uint64_t stride = std::uint64_t{gridDim.x} * histogram_threads;
  // The warp steps together (i = base + lane, base the same for its lanes), so all 32 lanes take
  // part in __match_any_sync; lanes past the end carry no bin.
  for (std::uint64_t base = std::uint64_t{blockIdx.x} * histogram_threads + (threadIdx.x - lane); base < n;
       base += stride) {
    const std::uint64_t i = base + lane;
    unsigned bin = 256;  // none
    if (i < n) {
      const std::uint32_t v = values[i];
      if ((v & mask) == prefix) bin = (v >> shift) & 0xFFu;
    }
    // Lanes with the same bin add once: in the first rounds most values share their digit.
    const unsigned peers = __match_any_sync(0xFFFFFFFFu, bin);
    if (bin < 256 && lane == static_cast<unsigned>(__ffs(static_cast<int>(peers)) - 1))
      atomicAdd(&bins[bin], static_cast<unsigned>(__popc(peers)));
  }
  __syncthreads();
  const unsigned c = bins[threadIdx.x];
  if (c != 0) atomicAdd(&counts[threadIdx.x], static_cast<unsigned long long>(c));
}

}  // namespace

void select_magnitudes(const float* data, std::uint64_t highest, std::uint64_t cadence, std::uint64_t count, Flux flux,
                       std::uint32_t* out, std::uint64_t* scratch, std::uint64_t* selected, cudaStream_t stream) {
  static_assert(sizeof(std::uint64_t) == sizeof(unsigned long long));
  auto* block_counts = reinterpret_cast<unsigned long long*>(scratch);
  auto* total = reinterpret_cast<unsigned long long*>(selected);
  if (count == 0) {
    AS_CUDA_TRY(cudaMemsetAsync(selected, 0, sizeof *selected, stream));
    return;
  }
  const Partition p = partition(count);
  const Walk w{data, highest, cadence, count, flux};
  count_kept_kernel<<<p.blocks, select_threads, 0, stream>>>(w, p.span, block_counts);
  AS_CUDA_TRY(cudaGetLastError());
  scan_block_counts_kernel<scan_threads, scan_items><<<1, scan_threads, 0, stream>>>(block_counts, p.blocks, total);
  AS_CUDA_TRY(cudaGetLastError());
  scatter_kept_kernel<<<p.blocks, select_threads, 0, stream>>>(w, p.span, block_counts, out);
  AS_CUDA_TRY(cudaGetLastError());
}

void digit_histogram(const std::uint32_t* values, std::uint64_t n, std::uint32_t prefix, std::uint32_t mask, int shift,
                     std::uint64_t* counts, cudaStream_t stream) {
  AS_CUDA_TRY(cudaMemsetAsync(counts, 0, 256 * sizeof *counts, stream));
  if (n == 0) return;
  std::uint64_t blocks = (n + 8 * histogram_threads - 1) / (8 * histogram_threads);
  blocks = blocks > max_histogram_blocks ? max_histogram_blocks : blocks;
  digit_histogram_kernel<<<static_cast<unsigned>(blocks), histogram_threads, 0, stream>>>(
      values, n, prefix, mask, shift, reinterpret_cast<unsigned long long*>(counts));
  AS_CUDA_TRY(cudaGetLastError());
}

}  // namespace astrosweep::scfind::kernels
