// Smooth-and-clip kernels; see smooth_and_clip_cuda.hpp. Float only: SoFiA-2 smooths in float32,
// and matching its masks bit for bit is the point, so there is no double instantiation.
//
// Every running sum uses __fadd_rn/__fsub_rn/__fmul_rn: nvcc would otherwise contract
// out[i+1] + (a - b) * inv into one FMA, whose single rounding changes the result.

#include <cstdint>
#include <cub/block/block_reduce.cuh>

#include "cuda_memory.hpp"
#include "smooth_and_clip_cuda.hpp"

namespace astrosweep::scfind::kernels {

namespace {

using index_t = long long;  // signed: window positions run below 0 and past the line's end

constexpr int elementwise_threads = 256;
constexpr unsigned max_elementwise_blocks = 8192;

/// Blocks for a grid-stride loop over n items, four per thread on average.
unsigned elementwise_blocks(std::size_t n) {
  const std::size_t blocks = (n + 4 * elementwise_threads - 1) / (4 * elementwise_threads);
  return static_cast<unsigned>(blocks < 1 ? 1 : (blocks > max_elementwise_blocks ? max_elementwise_blocks : blocks));
}

__device__ inline float nan_as_zero(float x) { return isnan(x) ? 0.0f : x; }

/// One step of the running sum: previous + (entering − leaving) · inv, each operation rounded.
__device__ inline float running_step(float previous, float low, float high, float inv) {
  return __fadd_rn(previous, __fmul_rn(__fsub_rn(low, high), inv));
}

/// v[j] of a line of n values `stride` apart: 0 outside [0, n) and for NaN.
__device__ inline float line_value(const float* __restrict__ line, index_t stride, index_t n, index_t j) {
  return (j >= 0 && j < n) ? nan_as_zero(line[j * stride]) : 0.0f;
}

/// SoFiA-2's boxcar on one line of n values `stride` apart, read from `in`, written to `out`
/// (both at the line's first value); with Restore, where `restore` is NaN it is written instead.
template <bool Restore>
__device__ void sweep_line(const float* __restrict__ in, float* __restrict__ out, const float* __restrict__ restore,
                           index_t stride, index_t n, index_t r, float inv) {
  auto store = [&](index_t i, float value) {
    if constexpr (Restore) {
      const float o = restore[i * stride];
      if (isnan(o)) value = o;
    }
    out[i * stride] = value;
  };
  auto checked_step = [&](float acc, index_t i) {
    return running_step(acc, line_value(in, stride, n, i - r), line_value(in, stride, n, i + r + 1), inv);
  };
  float acc = 0.0f;
  for (index_t j = n - 1 + r; j >= n - 1 - r; --j) acc = __fadd_rn(acc, line_value(in, stride, n, j));
  acc = __fmul_rn(acc, inv);
  store(n - 1, acc);
  index_t i = n - 2;
  for (; i >= 0 && i + r + 1 >= n; --i) store(i, acc = checked_step(acc, i));  // v[i + r + 1] beyond the end
  // Inside the line: no bounds to check; loads in groups so several are in flight per thread,
  // the sums still in order.
  constexpr int unroll = 8;
  for (; i - (unroll - 1) - r >= 0; i -= unroll) {
    const float* low = in + (i - r) * stride;
    const float* high = in + (i + r + 1) * stride;
    float a[unroll], b[unroll];
#pragma unroll
    for (int k = 0; k < unroll; ++k) {
      a[k] = nan_as_zero(low[-k * stride]);
      b[k] = nan_as_zero(high[-k * stride]);
    }
#pragma unroll
    for (int k = 0; k < unroll; ++k) {
      acc = running_step(acc, a[k], b[k], inv);
      store(i - k, acc);
    }
  }
  for (; i >= 0; --i) store(i, acc = checked_step(acc, i));  // v[i − r] before the start
}

__global__ void prepare_kernel(const float* __restrict__ original, const std::uint8_t* __restrict__ mask,
                               float* __restrict__ out, std::size_t n, bool replace, float replacement) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n;
       i += std::size_t{gridDim.x} * blockDim.x) {
    float x = original[i];
    if (replace && mask[i]) x = copysignf(replacement, x);
    out[i] = nan_as_zero(x);
  }
}

// --- x passes -------------------------------------------------------------------------------
// Tiled sweep: each warp owns 32 rows and walks them from the end in tiles of x_tile outputs. Per
// tile the warp loads the window [x0 − r, x0 + x_tile + r + 1) of its rows into shared memory
// (coalesced, x_batch loads in flight per lane), then lane l runs the sums of row l through the
// tile, writing out[i] over the window slot of v[i + r + 1] (never read again within the tile),
// and the warp stores the tile (coalesced). A row's running value stays in its lane's register
// from tile to tile. Warps share nothing, so each synchronises only with itself.
// Measured on the H200 (tools/bench_scfind_cuda.cpp, docs/performance.md): 1.2-1.3 TB/s (1.5 with
// rows a multiple of 32 bytes), against 0.22-0.28 TB/s for one thread per row reading its own
// line; the y pass reaches 1.9 (3.4 aligned). Batching the window loads did not change the figure
// (one load at a time gave the same), so the limit is likely the access pattern: each warp takes 140
// bytes from each of 32 rows at a time, and the DRAM pages of a row are revisited tile by tile.
constexpr int x_rows = 128;  // per block: four warps of 32 rows
constexpr int x_tile = 32;
constexpr int x_batch = 8;
constexpr std::size_t x_shared_limit = 48 * 1024;  // no opt-in needed

constexpr std::size_t x_window(std::size_t radius) { return x_tile + 2 * radius + 1; }

__global__ void __launch_bounds__(x_rows) boxcar_x_tiled_kernel(const float* __restrict__ in, float* __restrict__ out,
                                                                index_t nx, index_t rows, index_t r, float inv) {
  extern __shared__ float shared[];
  // Odd (so the lanes' rows start in different banks) and above 32 (see the walk below); fits:
  // x_pass_tiled_fits.
  const int w = x_tile + 2 * static_cast<int>(r) + 1;
  const int lane = static_cast<int>(threadIdx.x % 32), warp = static_cast<int>(threadIdx.x / 32);
  const index_t row0 = static_cast<index_t>(blockIdx.x) * x_rows + warp * 32;
  if (row0 >= rows) return;  // the whole warp
  const int n_rows = static_cast<int>(rows - row0 < 32 ? rows - row0 : 32);
  const float* lines = in + row0 * nx;
  float* window = shared + warp * 32 * w;
  float* mine = window + lane * w;
  float acc = 0.0f;
  for (index_t x0 = nx - x_tile; x0 > -x_tile; x0 -= x_tile) {
    const index_t first = x0 - r;  // line position of window slot 0
    // The warp's 32 × w window, flattened: the lane takes elements lane + 32·m, m < w; since
    // w > 32 each step moves on by at most one row.
    int row = 0, col = lane;
    for (int m0 = 0; m0 < w; m0 += x_batch) {
      float value[x_batch];
      int slot[x_batch];
#pragma unroll
      for (int k = 0; k < x_batch; ++k) {
        slot[k] = row * w + col;
        value[k] = (m0 + k < w && row < n_rows) ? line_value(lines + row * nx, 1, nx, first + col) : 0.0f;
        col += 32;
        if (col >= w) {
          col -= w;
          ++row;
        }
      }
#pragma unroll
      for (int k = 0; k < x_batch; ++k)
        if (m0 + k < w) window[slot[k]] = value[k];
    }
    __syncwarp();
    if (lane < n_rows) {
      const index_t top = (x0 + x_tile < nx ? x0 + x_tile : nx) - 1;
      const index_t bottom = x0 > 0 ? x0 : 0;
      for (index_t i = top; i >= bottom; --i) {
        if (i == nx - 1) {
          acc = 0.0f;
          for (index_t j = nx - 1 + r; j >= nx - 1 - r; --j) acc = __fadd_rn(acc, mine[j - first]);
          acc = __fmul_rn(acc, inv);
        } else {
          acc = running_step(acc, mine[i - r - first], mine[i + r + 1 - first], inv);
        }
        mine[i + r + 1 - first] = acc;
      }
    }
    __syncwarp();
    const index_t i = x0 + lane;
    if (i >= 0 && i < nx)
      for (int rr = 0; rr < n_rows; ++rr) out[(row0 + rr) * nx + i] = window[rr * w + lane + 2 * r + 1];
    __syncwarp();  // the next tile's loads overwrite what these stores read
  }
}

__global__ void boxcar_lines_kernel(const float* __restrict__ in, float* __restrict__ out,
                                    const float* __restrict__ restore, index_t lines, index_t inner,
                                    index_t outer_stride, index_t inner_stride, index_t stride, index_t n, index_t r,
                                    float inv) {
  const index_t l = static_cast<index_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (l >= lines) return;
  const index_t base = (l / inner) * outer_stride + (l % inner) * inner_stride;
  if (restore)
    sweep_line<true>(in + base, out + base, restore + base, stride, n, r, inv);
  else
    sweep_line<false>(in + base, out + base, nullptr, stride, n, r, inv);
}

void launch_lines(const float* in, float* out, const float* restore, std::size_t lines, std::size_t inner,
                  std::size_t outer_stride, std::size_t inner_stride, std::size_t stride, std::size_t n,
                  std::size_t radius, cudaStream_t stream) {
  if (lines == 0 || n == 0) return;
  constexpr int threads = 128;
  const auto blocks = static_cast<unsigned>((lines + threads - 1) / threads);
  boxcar_lines_kernel<<<blocks, threads, 0, stream>>>(
      in, out, restore, static_cast<index_t>(lines), static_cast<index_t>(inner), static_cast<index_t>(outer_stride),
      static_cast<index_t>(inner_stride), static_cast<index_t>(stride), static_cast<index_t>(n),
      static_cast<index_t>(radius), boxcar_weight(radius));
  AS_CUDA_TRY(cudaGetLastError());
}

// --- spectral pass --------------------------------------------------------------------------
__global__ void boxcar_z_kernel(SpectralPass p, float inv) {
  const std::size_t q = p.first_pixel + blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
  if (q >= p.end_pixel) return;
  const index_t r = static_cast<index_t>(p.radius), nz = static_cast<index_t>(p.nz);
  const index_t held = static_cast<index_t>(p.held_begin);
  const std::size_t plane = p.plane;
  auto v = [&](index_t z) {
    return (z >= 0 && z < nz) ? nan_as_zero(p.in[static_cast<std::size_t>(z - held) * plane + q]) : 0.0f;
  };
  auto store = [&](index_t z, float value) {
    const std::size_t at = static_cast<std::size_t>(z - held) * plane + q;
    const float o = p.original[at];
    p.out[at] = isnan(o) ? o : value;
  };
  const index_t own_begin = static_cast<index_t>(p.own_begin);
  index_t z = static_cast<index_t>(p.own_end) - 1;
  float acc;
  if (p.carry_in) {
    acc = running_step(p.carry_in[q], v(z - r), v(z + r + 1), inv);
  } else {  // the top of the cube: the initial sum at channel nz − 1 (own_end == nz)
    acc = 0.0f;
    for (index_t j = nz - 1 + r; j >= nz - 1 - r; --j) acc = __fadd_rn(acc, v(j));
    acc = __fmul_rn(acc, inv);
  }
  store(z, acc);
  constexpr int unroll = 4;
  for (--z; z - (unroll - 1) >= own_begin; z -= unroll) {
    float low[unroll], high[unroll];
#pragma unroll
    for (int k = 0; k < unroll; ++k) {
      low[k] = v(z - k - r);
      high[k] = v(z - k + r + 1);
    }
#pragma unroll
    for (int k = 0; k < unroll; ++k) {
      acc = running_step(acc, low[k], high[k], inv);
      store(z - k, acc);
    }
  }
  for (; z >= own_begin; --z) {
    acc = running_step(acc, v(z - r), v(z + r + 1), inv);
    store(z, acc);
  }
  if (p.carry_out) p.carry_out[q] = acc;  // the running value at own_begin, before restoring blanks
}

// --- element-wise ---------------------------------------------------------------------------
__global__ void restore_kernel(const float* __restrict__ original, float* __restrict__ data, std::size_t n) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n;
       i += std::size_t{gridDim.x} * blockDim.x) {
    const float o = original[i];
    if (isnan(o)) data[i] = o;
  }
}

__global__ void gather_kernel(const float* __restrict__ data, std::uint64_t highest, std::uint64_t cadence,
                              std::uint64_t count, float* __restrict__ out) {
  for (std::uint64_t k = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x; k < count;
       k += std::uint64_t{gridDim.x} * blockDim.x)
    out[k] = data[highest - k * cadence];
}

__global__ void clip_kernel(const float* __restrict__ data, std::size_t n, double threshold,
                            std::uint8_t* __restrict__ mask) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n;
       i += std::size_t{gridDim.x} * blockDim.x)
    if (fabs(static_cast<double>(data[i])) > threshold) mask[i] = 1;
}

// --- finite min/max -------------------------------------------------------------------------
// A total order on non-NaN floats with −0 below +0, so the result does not depend on the order
// in which blocks meet equal zeros.
__device__ inline bool before(float a, float b) { return a < b || (a == b && signbit(a) && !signbit(b)); }

struct MinMax {
  float lo, hi;
};

__device__ inline MinMax combine(MinMax a, MinMax b) {
  return {before(b.lo, a.lo) ? b.lo : a.lo, before(a.hi, b.hi) ? b.hi : a.hi};
}

constexpr int reduce_threads = 256;
constexpr unsigned max_reduce_blocks = min_max_scratch_floats / 2;

__device__ MinMax block_reduce(MinMax m) {
  __shared__ MinMax warps[32];
  for (int offset = 16; offset > 0; offset /= 2)
    m = combine(m, {__shfl_down_sync(0xffffffffu, m.lo, offset), __shfl_down_sync(0xffffffffu, m.hi, offset)});
  const int lane = static_cast<int>(threadIdx.x % 32), warp = static_cast<int>(threadIdx.x / 32);
  if (lane == 0) warps[warp] = m;
  __syncthreads();
  if (warp == 0) {
    const int n_warps = static_cast<int>((blockDim.x + 31) / 32);
    m = lane < n_warps ? warps[lane] : MinMax{INFINITY, -INFINITY};
    for (int offset = 16; offset > 0; offset /= 2)
      m = combine(m, {__shfl_down_sync(0xffffffffu, m.lo, offset), __shfl_down_sync(0xffffffffu, m.hi, offset)});
  }
  return m;  // valid in thread 0
}

__global__ void __launch_bounds__(reduce_threads)
    min_max_partial_kernel(const float* __restrict__ data, std::size_t n, float* __restrict__ scratch) {
  MinMax m{INFINITY, -INFINITY};
  auto fold = [&](float x) {
    if (!isnan(x)) m = combine(m, {x, x});
  };
  const std::size_t stride = std::size_t{gridDim.x} * blockDim.x;
  std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
  for (; i + 3 * stride < n; i += 4 * stride) {  // four loads in flight per thread
    const float a = data[i], b = data[i + stride], c = data[i + 2 * stride], d = data[i + 3 * stride];
    fold(a);
    fold(b);
    fold(c);
    fold(d);
  }
  for (; i < n; i += stride) fold(data[i]);
  m = block_reduce(m);
  if (threadIdx.x == 0) {
    scratch[blockIdx.x] = m.lo;
    scratch[max_reduce_blocks + blockIdx.x] = m.hi;
  }
}

__global__ void __launch_bounds__(reduce_threads)
    min_max_final_kernel(const float* __restrict__ scratch, unsigned blocks, float* __restrict__ result) {
  MinMax m{INFINITY, -INFINITY};
  for (unsigned b = threadIdx.x; b < blocks; b += blockDim.x)
    m = combine(m, {scratch[b], scratch[max_reduce_blocks + b]});
  m = block_reduce(m);
  if (threadIdx.x == 0) {
    const bool found = !before(m.hi, m.lo);  // the start values (+inf, −inf) are the only empty state
    result[0] = found ? m.lo : NAN;
    result[1] = found ? m.hi : NAN;
  }
}

// --- mask count -----------------------------------------------------------------------------
constexpr unsigned max_count_blocks = 1024;

/// Adds the bytes data[0, n) to *total: the aligned middle 16 bytes per load (__vsadu4 sums four
/// bytes of a word), the few bytes before and after it one by one.
__global__ void __launch_bounds__(reduce_threads)
    byte_sum_kernel(const std::uint8_t* __restrict__ data, std::size_t n, unsigned long long* __restrict__ total) {
  const std::size_t misalignment = reinterpret_cast<std::uintptr_t>(data) % 16;
  const std::size_t head = misalignment == 0 ? 0 : (16 - misalignment < n ? 16 - misalignment : n);
  const std::size_t vectors = (n - head) / 16;
  const std::size_t tail = head + 16 * vectors;
  const auto* body = reinterpret_cast<const uint4*>(data + head);
  const std::size_t stride = std::size_t{gridDim.x} * blockDim.x;
  const std::size_t t = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
  unsigned long long sum = 0;
  for (std::size_t i = t; i < vectors; i += stride) {
    const uint4 v = body[i];
    sum += __vsadu4(v.x, 0u) + __vsadu4(v.y, 0u) + __vsadu4(v.z, 0u) + __vsadu4(v.w, 0u);
  }
  if (t < head) sum += data[t];
  if (tail + t < n) sum += data[tail + t];  // fewer than 16 bytes, fewer than the threads
  using Reduce = cub::BlockReduce<unsigned long long, reduce_threads>;
  __shared__ typename Reduce::TempStorage temp;
  sum = Reduce(temp).Sum(sum);
  if (threadIdx.x == 0 && sum != 0) atomicAdd(total, sum);
}

}  // namespace

void prepare_working_copy(const float* original, const std::uint8_t* mask, float* out, std::size_t n, bool replace,
                          float replacement, cudaStream_t stream) {
  if (n == 0) return;
  prepare_kernel<<<elementwise_blocks(n), elementwise_threads, 0, stream>>>(original, mask, out, n, replace,
                                                                            replacement);
  AS_CUDA_TRY(cudaGetLastError());
}

bool x_pass_tiled_fits(std::size_t radius) noexcept {
  return radius < x_shared_limit && x_rows * x_window(radius) * sizeof(float) <= x_shared_limit;
}

void boxcar_x(const float* in, float* out, std::size_t nx, std::size_t rows, std::size_t radius, cudaStream_t stream) {
  if (!x_pass_tiled_fits(radius)) return boxcar_x_strided(in, out, nx, rows, radius, stream);
  if (rows == 0 || nx == 0) return;
  const auto blocks = static_cast<unsigned>((rows + x_rows - 1) / x_rows);
  const std::size_t shared = x_rows * x_window(radius) * sizeof(float);
  boxcar_x_tiled_kernel<<<blocks, x_rows, shared, stream>>>(in, out, static_cast<index_t>(nx),
                                                            static_cast<index_t>(rows), static_cast<index_t>(radius),
                                                            boxcar_weight(radius));
  AS_CUDA_TRY(cudaGetLastError());
}

void boxcar_x_strided(const float* in, float* out, std::size_t nx, std::size_t rows, std::size_t radius,
                      cudaStream_t stream) {
  launch_lines(in, out, nullptr, rows, rows, 0, nx, 1, nx, radius, stream);
}

void boxcar_y(const float* in, float* out, std::size_t nx, std::size_t ny, std::size_t channels, std::size_t radius,
              const float* restore, cudaStream_t stream) {
  launch_lines(in, out, restore, nx * channels, nx, nx * ny, 1, nx, ny, radius, stream);
}

void boxcar_z(const SpectralPass& pass, cudaStream_t stream) {
  if (pass.end_pixel <= pass.first_pixel || pass.own_end <= pass.own_begin) return;
  constexpr int threads = 128;
  const auto blocks = static_cast<unsigned>((pass.end_pixel - pass.first_pixel + threads - 1) / threads);
  boxcar_z_kernel<<<blocks, threads, 0, stream>>>(pass, boxcar_weight(pass.radius));
  AS_CUDA_TRY(cudaGetLastError());
}

void restore_blanks(const float* original, float* data, std::size_t n, cudaStream_t stream) {
  if (n == 0) return;
  restore_kernel<<<elementwise_blocks(n), elementwise_threads, 0, stream>>>(original, data, n);
  AS_CUDA_TRY(cudaGetLastError());
}

void gather_samples(const float* data, std::uint64_t highest, std::uint64_t cadence, std::uint64_t count, float* out,
                    cudaStream_t stream) {
  if (count == 0) return;
  gather_kernel<<<elementwise_blocks(count), elementwise_threads, 0, stream>>>(data, highest, cadence, count, out);
  AS_CUDA_TRY(cudaGetLastError());
}

void finite_min_max(const float* data, std::size_t n, float* scratch, float* result, cudaStream_t stream) {
  std::size_t blocks = (n + 4 * reduce_threads - 1) / (4 * reduce_threads);
  blocks = blocks < 1 ? 1 : (blocks > max_reduce_blocks ? max_reduce_blocks : blocks);
  min_max_partial_kernel<<<static_cast<unsigned>(blocks), reduce_threads, 0, stream>>>(data, n, scratch);
  AS_CUDA_TRY(cudaGetLastError());
  min_max_final_kernel<<<1, reduce_threads, 0, stream>>>(scratch, static_cast<unsigned>(blocks), result);
  AS_CUDA_TRY(cudaGetLastError());
}

void clip(const float* data, std::size_t n, double threshold, std::uint8_t* mask, cudaStream_t stream) {
  if (n == 0) return;
  clip_kernel<<<elementwise_blocks(n), elementwise_threads, 0, stream>>>(data, n, threshold, mask);
  AS_CUDA_TRY(cudaGetLastError());
}

void mask_count(const std::uint8_t* mask, std::size_t n, std::uint64_t* count, cudaStream_t stream) {
  static_assert(sizeof(std::uint64_t) == sizeof(unsigned long long));
  AS_CUDA_TRY(cudaMemsetAsync(count, 0, sizeof *count, stream));
  if (n == 0) return;
  std::size_t blocks = (n + 64 * reduce_threads - 1) / (64 * reduce_threads);  // four loads of 16 per thread
  blocks = blocks > max_count_blocks ? max_count_blocks : blocks;
  byte_sum_kernel<<<static_cast<unsigned>(blocks), reduce_threads, 0, stream>>>(
      mask, n, reinterpret_cast<unsigned long long*>(count));
  AS_CUDA_TRY(cudaGetLastError());
}

}  // namespace astrosweep::scfind::kernels
