// The dereddening (twin of deredden in jobs/fdas/spectrum.cpp) and the correlator's segment
// normalisation (twin of block_normalisation, jobs/fdas/correlation.cpp) on the device. The
// medians are exact: a thread block sorts its block's values in shared memory (as order keys,
// padded to a power of two, by a bitonic network: arith::bitonic_exchange) and reads the two
// middle ranks; blocks are at most 200 bins for the dereddening and a segment's input bins for the
// correlator (8,192 at most here). The float steps are deredden_arith.hpp's, with explicitly
// rounded intrinsics: the CPU's results bit for bit.

#include "cuda_memory.hpp"
#include "deredden_arith.hpp"
#include "deredden_launch.hpp"

namespace astrosweep::fdas::kernels {

namespace {

constexpr int block = 256;
constexpr int median_threads = 128;
/// Keys a block may sort in shared memory: 32 KiB (below the 48 KiB a block may take without
/// opting into more).
constexpr std::size_t max_shared_keys = 8192;

unsigned blocks_for(std::size_t n) { return static_cast<unsigned>((n + block - 1) / block); }

/// The two middle values (ranks arith::median_rank and arith::upper_median_rank, the same for odd
/// `length`) of the `length` values `value(i)` gives, on all threads: their order keys sorted in
/// `keys` (shared, room for arith::padded_count(length)), the padding above every value. NaN for a
/// rank that only NaNs or padding hold (a NaN among the values).
template <typename Value>
__device__ float2 block_middles(Value value, std::uint32_t length, std::uint32_t* keys) {
  const std::uint32_t n = arith::padded_count(length);
  for (std::uint32_t i = threadIdx.x; i < n; i += blockDim.x)
    keys[i] = i < length ? arith::order_key(value(i)) : arith::padding_key;
  __syncthreads();
  for (std::uint32_t size = 2; size <= n; size <<= 1)
    for (std::uint32_t stride = size / 2; stride > 0; stride >>= 1) {
      for (std::uint32_t t = threadIdx.x; t < n / 2; t += blockDim.x) arith::bitonic_exchange(keys, size, stride, t);
      __syncthreads();
    }
  return make_float2(arith::from_order_key(keys[arith::median_rank(length)]),
                     arith::from_order_key(keys[arith::upper_median_rank(length)]));
}

__global__ void bin_powers(const float2* __restrict__ spectrum, float* __restrict__ powers, std::size_t n) {
  const std::size_t k = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (k < n) powers[k] = arith::bin_power(spectrum[k].x, spectrum[k].y);
}

__global__ void block_levels(const float* __restrict__ powers, const DeviceBlock* __restrict__ blocks,
                             float* __restrict__ levels) {
  extern __shared__ std::uint32_t keys[];
  const DeviceBlock b = blocks[blockIdx.x];
  const float2 middles = block_middles([&](std::uint32_t i) { return powers[b.first + i]; }, b.length, keys);
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
  extern __shared__ std::uint32_t keys[];
  const float* segment = powers + blockIdx.x * step;
  // Over all of the segment's bins, the zeros outside the spectrum included (block_normalisation).
  const float2 middles = block_middles([&](std::uint32_t i) { return segment[i]; }, length, keys);
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
  block_levels<<<static_cast<unsigned>(n_blocks), median_threads, arith::padded_count(longest) * sizeof(std::uint32_t),
                 stream>>>(powers, blocks, levels);
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

bool segment_norms_support(std::size_t length) { return length >= 1 && length <= max_shared_keys; }

void launch_segment_norms(const float* powers, std::size_t segments, std::size_t step, std::size_t length,
                          bool normalise, float* norm, cudaStream_t stream) {
  if (segments == 0) return;
  if (!normalise) {
    fill<<<blocks_for(segments), block, 0, stream>>>(norm, segments, 1.0F);
  } else {
    AS_EXPECTS(segment_norms_support(length), UsageError,
               "a correlation segment of " + std::to_string(length) + " bins is too long for the device's medians");
    const std::size_t keys = arith::padded_count(static_cast<std::uint32_t>(length));
    segment_norms<<<static_cast<unsigned>(segments), block, keys * sizeof(std::uint32_t), stream>>>(
        powers, step, static_cast<std::uint32_t>(length), norm);
  }
  AS_CUDA_TRY(cudaGetLastError());
}

}  // namespace astrosweep::fdas::kernels
