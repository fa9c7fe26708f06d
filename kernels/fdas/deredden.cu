// The dereddening (twin of deredden in jobs/fdas/spectrum.cpp) and the correlator's segment
// normalisation (twin of block_normalisation, jobs/fdas/correlation.cpp) on the device. The
// medians are exact: each block's powers in shared memory, every value counted against all the
// others (arith::rank_span), the lowest index holding each middle rank kept; blocks
// are at most 200 bins for the dereddening and a segment's input bins for the correlator, so the
// quadratic count costs less than the memory traffic around it. The float steps are
// deredden_arith.hpp's, with explicitly rounded intrinsics: the CPU's results bit for bit.

#include "cuda_memory.hpp"
#include "deredden_arith.hpp"
#include "deredden_launch.hpp"

namespace astrosweep::fdas::kernels {

namespace {

constexpr int block = 256;
constexpr int median_threads = 128;
/// Room past a block's last value in the dynamic shared array. rank_span's loop is unrolled by
/// four, and ptxas merges the guarded loads of its remainder (one to three values) into one wider
/// shared load, which may reach up to three floats past the last value (compute-sanitizer's
/// memcheck saw 12-byte reads at the end of a 257-value segment). The extra values are never
/// counted (the results are the host's bit for bit); the slack keeps the reads inside the block's
/// allocation.
constexpr std::size_t shared_slack = 4;
/// Powers a segment may hold in shared memory: 48 KiB (what a block may take without opting
/// into more) less room for the kernel's static `winners` and the slack.
constexpr std::size_t max_shared_powers = (48 * 1024 - 64) / sizeof(float) - shared_slack;

unsigned blocks_for(std::size_t n) { return static_cast<unsigned>((n + block - 1) / block); }

/// The two middle values (ranks arith::median_rank and arith::upper_median_rank, the same for odd
/// `length`) of the `length` values this thread block holds in `values` (shared), on all threads:
/// one count per value for both ranks, the lowest index holding each rank kept. NaN for a rank no
/// value holds (the values are not ordered: a NaN among them). `winners` is two shared ints.
__device__ float2 block_middles(const float* values, std::uint32_t length, int* winners) {
  const std::size_t lower = arith::median_rank(length), upper = arith::upper_median_rank(length);
  if (threadIdx.x == 0) winners[0] = winners[1] = static_cast<int>(length);
  __syncthreads();
  for (std::uint32_t i = threadIdx.x; i < length; i += blockDim.x) {
    const arith::RankSpan span = arith::rank_span(values, length, i);
    if (span.holds(lower)) atomicMin(&winners[0], static_cast<int>(i));
    if (span.holds(upper)) atomicMin(&winners[1], static_cast<int>(i));
  }
  __syncthreads();
  const float nan = __int_as_float(0x7fc00000);
  const int lo = winners[0], hi = winners[1];
  return make_float2(lo < static_cast<int>(length) ? values[lo] : nan,
                     hi < static_cast<int>(length) ? values[hi] : nan);
}

__global__ void bin_powers(const float2* __restrict__ spectrum, float* __restrict__ powers, std::size_t n) {
  const std::size_t k = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (k < n) powers[k] = arith::bin_power(spectrum[k].x, spectrum[k].y);
}

__global__ void block_levels(const float* __restrict__ powers, const DeviceBlock* __restrict__ blocks,
                             float* __restrict__ levels) {
  extern __shared__ float values[];
  __shared__ int winners[2];
  const DeviceBlock b = blocks[blockIdx.x];
  for (std::uint32_t i = threadIdx.x; i < b.length; i += blockDim.x) values[i] = powers[b.first + i];
  const float2 middles = block_middles(values, b.length, winners);
  if (threadIdx.x == 0) levels[blockIdx.x] = arith::level_from_median(arith::middle_mean(middles.x, middles.y));
}

__global__ void apply_ramps(float2* __restrict__ spectrum, const DeviceRamp* __restrict__ ramps,
                            const DeviceBlock* __restrict__ blocks, const float* __restrict__ levels) {
  const DeviceRamp r = ramps[blockIdx.x];
  const float level = levels[r.level_block];
  const float slope = r.slope_block == 0
                          ? 0.0F
                          : arith::ramp_slope(levels[r.slope_block - 1], levels[r.slope_block],
                                              blocks[r.slope_block - 1].length, blocks[r.slope_block].length);
  for (std::uint32_t i = threadIdx.x; r.begin + i < r.end; i += blockDim.x) {
    const float local = arith::ramp_level(level, slope, i);
    if (!(local > 0)) continue;
    const float factor = arith::dereddening_factor(local);
    float2& f = spectrum[r.begin + i];
    f = make_float2(arith::mul(f.x, factor), arith::mul(f.y, factor));
  }
}

__global__ void scale_bins(float2* __restrict__ spectrum, std::size_t first, std::size_t n, float factor) {
  const std::size_t k = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (k >= n) return;
  float2& f = spectrum[first + k];
  f = make_float2(arith::mul(f.x, factor), arith::mul(f.y, factor));
}

__global__ void gather_bins(const float2* __restrict__ spectrum, std::size_t size, std::ptrdiff_t first,
                            float2* __restrict__ bins, std::size_t n_bins) {
  const std::size_t k = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (k >= n_bins) return;
  const std::ptrdiff_t bin = first + static_cast<std::ptrdiff_t>(k);
  bins[k] = bin >= 0 && static_cast<std::size_t>(bin) < size ? spectrum[bin] : make_float2(0.0F, 0.0F);
}

__global__ void segment_norms(const float* __restrict__ powers, std::size_t step, std::uint32_t length,
                              float* __restrict__ norm) {
  extern __shared__ float values[];
  __shared__ int winners[2];
  const float* segment = powers + blockIdx.x * step;
  for (std::uint32_t i = threadIdx.x; i < length; i += blockDim.x) values[i] = segment[i];
  // Over all of the segment's bins, the zeros outside the spectrum included (block_normalisation).
  const float2 middles = block_middles(values, length, winners);
  if (threadIdx.x == 0) norm[blockIdx.x] = arith::segment_norm_from_median(arith::middle_mean(middles.x, middles.y));
}

__global__ void fill(float* __restrict__ out, std::size_t n, float value) {
  const std::size_t k = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (k < n) out[k] = value;
}

}  // namespace

void launch_bin_powers(const float2* spectrum, float* powers, std::size_t n, cudaStream_t stream) {
  if (n == 0) return;
  bin_powers<<<blocks_for(n), block, 0, stream>>>(spectrum, powers, n);
  AS_CUDA_TRY(cudaGetLastError());
}

void launch_block_levels(const float* powers, const DeviceBlock* blocks, std::size_t n_blocks, float* levels,
                         cudaStream_t stream) {
  if (n_blocks == 0) return;
  // The dereddening's blocks are at most 200 bins (spectrum.cpp's longest_block).
  constexpr std::size_t longest = 200;
  block_levels<<<static_cast<unsigned>(n_blocks), median_threads, (longest + shared_slack) * sizeof(float), stream>>>(
      powers, blocks, levels);
  AS_CUDA_TRY(cudaGetLastError());
}

void launch_apply_ramps(float2* spectrum, const DeviceRamp* ramps, std::size_t n_ramps, const DeviceBlock* blocks,
                        const float* levels, cudaStream_t stream) {
  if (n_ramps == 0) return;
  apply_ramps<<<static_cast<unsigned>(n_ramps), median_threads, 0, stream>>>(spectrum, ramps, blocks, levels);
  AS_CUDA_TRY(cudaGetLastError());
}

void launch_scale_bins(float2* spectrum, std::size_t first, std::size_t n, float factor, cudaStream_t stream) {
  if (n == 0) return;
  scale_bins<<<blocks_for(n), block, 0, stream>>>(spectrum, first, n, factor);
  AS_CUDA_TRY(cudaGetLastError());
}

void launch_gather_bins(const float2* spectrum, std::size_t size, std::ptrdiff_t first, float2* bins,
                        std::size_t n_bins, cudaStream_t stream) {
  if (n_bins == 0) return;
  gather_bins<<<blocks_for(n_bins), block, 0, stream>>>(spectrum, size, first, bins, n_bins);
  AS_CUDA_TRY(cudaGetLastError());
}

bool segment_norms_support(std::size_t length) { return length <= max_shared_powers; }

void launch_segment_norms(const float* powers, std::size_t segments, std::size_t step, std::size_t length,
                          bool normalise, float* norm, cudaStream_t stream) {
  if (segments == 0) return;
  if (!normalise) {
    fill<<<blocks_for(segments), block, 0, stream>>>(norm, segments, 1.0F);
  } else {
    AS_EXPECTS(segment_norms_support(length), UsageError,
               "a correlation segment of " + std::to_string(length) + " bins is too long for the device's medians");
    segment_norms<<<static_cast<unsigned>(segments), block, (length + shared_slack) * sizeof(float), stream>>>(
        powers, step, static_cast<std::uint32_t>(length), norm);
  }
  AS_CUDA_TRY(cudaGetLastError());
}

}  // namespace astrosweep::fdas::kernels
