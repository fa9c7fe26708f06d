// The SPIIR filtering kernel, twin of the OpenMP backend's loop (jobs/spiir/spiir_backend_cpu.cpp).
//
// Mapping (spec §8 and better): one block per template, its filters dealt over the template's own
// threads (filter l to thread l mod 32·w, w = a warp per 128 of its filters, 1 to 8; the block has
// the warps of the bank's largest template, the rest idle for a smaller one; a thread runs its
// filters two at a time, interleaved for instruction-level parallelism). Time goes in tiles of spiir_tile samples: each
// thread runs the recurrences of its filters over the tile with the states in registers, adding every output into
// per-sample sums held in registers; then one reduction per tile sums the filters: a butterfly reduce-scatter of the
// tile's sums across the warp's lanes (afterwards lane i holds sample i's sum), then one shared-
// memory pass across the warps. So a tile costs 2 × 31 shuffles per thread (re and im), shared by
// all its filters, instead of a block-wide reduction per sample. The states go back to global
// memory at the end of each tile (the same thread reads them at the next: no race).
//
// The input: a filter reads x[n0 − d … n0 − d + T − 1], at a different offset for every filter, so
// a warp's loads do not coalesce (spec §8). As in the seed, each thread loads its run with 16-byte
// vector loads (4 samples in FP32, 2 in FP64), a quarter (half) of the load instructions; for
// alignment the input is kept in spiir_vector copies shifted by 0, 1, … samples (shift_copies) and
// a filter reads the copy in which its run starts on a 16-byte boundary. The last, partial tile of
// a chunk reads sample by sample.
#include "cuda_memory.hpp"
#include "spiir_filter_launch.hpp"

namespace astrosweep::spiir::kernels {

namespace {

constexpr int max_warps = 8;
// Four filters per thread (two passes of a pair) before a block grows by a warp: the tile's
// reduction is then shared by four filters' work, and a 512-filter template takes 4 warps.
constexpr int filters_per_warp = 128;
constexpr unsigned full_mask = 0xffffffffu;

template <class Real>
struct Vectors;
template <>
struct Vectors<float> {
  using pair = float2;
  using load = float4;  // spiir_vector<float> = 4
};
template <>
struct Vectors<double> {
  using pair = double2;
  using load = double2;  // spiir_vector<double> = 2
};
template <class Real>
using Pair2 = typename Vectors<Real>::pair;
template <class Real>
using Load = typename Vectors<Real>::load;
static_assert(sizeof(Load<float>) == 16 && sizeof(Load<double>) == 16, "16-byte vector loads");

/// One butterfly stage: v[0 … 2·Half) hold sums of the same samples on this lane and on the lane
/// `Half` away; afterwards v[0 … Half) hold the sums over both lanes of the lower half of those
/// samples (bit Half of the lane clear) or the upper half (set).
template <int Half, int N, class Real>
__device__ __forceinline__ void halve(Real (&v)[N], unsigned lane) {
  const bool upper = (lane & Half) != 0;
#pragma unroll
  for (int j = 0; j < Half; ++j) {
    const Real send = upper ? v[j] : v[j + Half];
    const Real keep = upper ? v[j + Half] : v[j];
    v[j] = keep + __shfl_xor_sync(full_mask, send, Half);
  }
}

/// The warp's sums per sample: afterwards v[0] on lane i is Σ over the 32 lanes of v[i mod Tile].
template <int Tile, class Real>
__device__ __forceinline__ void reduce_scatter(Real (&v)[Tile], unsigned lane) {
  static_assert(Tile == 16 || Tile == 32, "tiles of 16 or 32 samples");
  if constexpr (Tile == 16) {
#pragma unroll
    for (int j = 0; j < 16; ++j) v[j] += __shfl_xor_sync(full_mask, v[j], 16);
  } else {
    halve<16>(v, lane);
  }
  halve<8>(v, lane);
  halve<4>(v, lane);
  halve<2>(v, lane);
  halve<1>(v, lane);
}

/// a · b + c rounded once, spelt out so that no compiler choice of contraction changes a sum
/// (the backend's chunked and whole runs agree bit for bit).
__device__ __forceinline__ float fused(float a, float b, float c) { return __fmaf_rn(a, b, c); }
__device__ __forceinline__ double fused(double a, double b, double c) { return __fma_rn(a, b, c); }

template <class Real>
struct Filter {
  Real ar = 0, ai = 0, br = 0, bi = 0, yr = 0, yi = 0;
  const Real* in = nullptr;         // in[i] = x[n0 + i − d], in ext
  const Load<Real>* vin = nullptr;  // the same samples, 16-byte aligned, in a shifted copy
};

/// The input of one tile: ext, its shifted copies (copy s at shifted + s · stride holds ext[j] at
/// j + s), and the tile's first sample's place in ext (x[n0] = ext[first]).
template <class Real>
struct TileInput {
  const Real* ext;
  const Real* shifted;
  std::size_t stride;
  std::size_t first;
};

template <class Real>
__device__ __forceinline__ Filter<Real> load_filter(const DeviceRateBank<Real>& bank, std::size_t k,
                                                    const TileInput<Real>& input) {
  constexpr auto v = static_cast<std::size_t>(spiir_vector<Real>);
  Filter<Real> f;
  f.ar = bank.a_re[k];
  f.ai = bank.a_im[k];
  f.br = bank.b_re[k];
  f.bi = bank.b_im[k];
  f.yr = bank.y_re[k];
  f.yi = bank.y_im[k];
  const std::size_t p = input.first - static_cast<std::size_t>(bank.delay[k]);  // d ≤ max_delay ≤ first
  const std::size_t s = (v - p % v) % v;  // p + s is a multiple of v: aligned in copy s
  f.in = input.ext + p;
  f.vin = reinterpret_cast<const Load<Real>*>(input.shifted + s * input.stride + p + s);
  return f;
}

/// Sample j (0 … spiir_vector − 1) of a vector load.
template <class Real>
__device__ __forceinline__ Real part(const Load<Real>& w, int j) {
  return reinterpret_cast<const Real*>(&w)[j];
}

/// One step of two filters on their inputs xf, xg, their outputs added to the sample's sums.
template <class Real>
__device__ __forceinline__ void step(Filter<Real>& f, Filter<Real>& g, Real xf, Real xg, Real& acc_re, Real& acc_im) {
  // y ← a·y + b·x: the input term first, then the two products of the feedback.
  const Real fr = fused(f.ar, f.yr, fused(-f.ai, f.yi, f.br * xf));
  const Real fi = fused(f.ar, f.yi, fused(f.ai, f.yr, f.bi * xf));
  const Real gr = fused(g.ar, g.yr, fused(-g.ai, g.yi, g.br * xg));
  const Real gi = fused(g.ar, g.yi, fused(g.ai, g.yr, g.bi * xg));
  f.yr = fr, f.yi = fi, g.yr = gr, g.yi = gi;
  acc_re += fr + gr;
  acc_im += fi + gi;
}

/// Runs two filters over a whole tile, their inputs in 16-byte loads. The CPU backend's
/// arithmetic, with fused multiply-adds.
template <int Tile, class Real>
__device__ __forceinline__ void run_full_tile(Filter<Real>& f, Filter<Real>& g, Real (&acc_re)[Tile],
                                              Real (&acc_im)[Tile]) {
  constexpr int v = spiir_vector<Real>;
  static_assert(Tile % v == 0, "a tile is whole vector loads");
#pragma unroll
  for (int q = 0; q < Tile / v; ++q) {
    const Load<Real> wf = __ldg(f.vin + q), wg = __ldg(g.vin + q);
#pragma unroll
    for (int j = 0; j < v; ++j) step(f, g, part<Real>(wf, j), part<Real>(wg, j), acc_re[q * v + j], acc_im[q * v + j]);
  }
}

/// The same over the first `valid` samples of the chunk's last, partial tile, sample by sample.
template <int Tile, class Real>
__device__ __forceinline__ void run_partial_tile(Filter<Real>& f, Filter<Real>& g, int valid, Real (&acc_re)[Tile],
                                                 Real (&acc_im)[Tile]) {
#pragma unroll
  for (int i = 0; i < Tile; ++i)
    if (i < valid) step(f, g, __ldg(f.in + i), __ldg(g.in + i), acc_re[i], acc_im[i]);
}

/// Warps for a template of `n_filters` filters: one per filters_per_warp, 1 to max_warps.
__host__ __device__ constexpr int template_warps(int n_filters) {
  const int warps = (n_filters + filters_per_warp - 1) / filters_per_warp;
  return warps < 1 ? 1 : warps > max_warps ? max_warps : warps;
}

template <class Real, int Tile>
__global__ void __launch_bounds__(max_warps * 32)
    spiir_filter(const DeviceRateBank<Real> bank, const Real* __restrict__ ext, const Real* __restrict__ shifted,
                 std::size_t stride, std::size_t n, Pair2<Real>* __restrict__ z) {
  __shared__ Pair2<Real> partial[max_warps][Tile];
  const std::size_t t = blockIdx.x;
  const int n_filters = bank.n_filters[t];
  const std::size_t row = t * bank.width;
  // The template's own warps, those it would get alone; the block is sized for the bank's largest
  // template and may have more. Its filters are dealt over those threads only and summed over
  // those warps only (the others add nothing and are not read), so a template's sums, in their
  // order, do not depend on which templates share the bank: the coherent stage's second pass
  // filters a batch of templates with each one's bits alone, and a unit's block of templates
  // does not change them (docs/spiir.md).
  const unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
  const auto warps = static_cast<unsigned>(template_warps(n_filters));
  const int threads = static_cast<int>(32 * warps);
  const int first_filter = static_cast<int>(threadIdx.x) < threads ? static_cast<int>(threadIdx.x) : n_filters;
  for (std::size_t n0 = 0; n0 < n; n0 += Tile) {
    const int valid = n - n0 < static_cast<std::size_t>(Tile) ? static_cast<int>(n - n0) : Tile;
    const TileInput<Real> input{ext, shifted, stride, bank.max_delay + n0};  // d ≤ max_delay keeps x[n0 − d] in ext
    Real acc_re[Tile], acc_im[Tile];
#pragma unroll
    for (int i = 0; i < Tile; ++i) acc_re[i] = acc_im[i] = 0;
    for (int l = first_filter; l < n_filters; l += 2 * threads) {
      const bool second = l + threads < n_filters;
      Filter<Real> f = load_filter(bank, row + static_cast<std::size_t>(l), input);
      // Without a second filter, a zero one (a = b = 0: its outputs are 0) on the first's input.
      Filter<Real> g;
      g.in = f.in;
      g.vin = f.vin;
      if (second) g = load_filter(bank, row + static_cast<std::size_t>(l + threads), input);
      if (valid == Tile)
        run_full_tile<Tile>(f, g, acc_re, acc_im);
      else
        run_partial_tile<Tile>(f, g, valid, acc_re, acc_im);
      bank.y_re[row + static_cast<std::size_t>(l)] = f.yr;
      bank.y_im[row + static_cast<std::size_t>(l)] = f.yi;
      if (second) {
        bank.y_re[row + static_cast<std::size_t>(l + threads)] = g.yr;
        bank.y_im[row + static_cast<std::size_t>(l + threads)] = g.yi;
      }
    }
    reduce_scatter<Tile>(acc_re, lane);
    reduce_scatter<Tile>(acc_im, lane);
    if (lane < static_cast<unsigned>(Tile)) partial[warp][lane] = {acc_re[0], acc_im[0]};
    __syncthreads();
    if (warp == 0 && lane < static_cast<unsigned>(valid)) {
      Pair2<Real> sum = partial[0][lane];
      for (unsigned w = 1; w < warps; ++w) sum.x += partial[w][lane].x, sum.y += partial[w][lane].y;
      z[t * n + n0 + lane] = sum;
    }
    __syncthreads();  // partial is written again by the next tile
  }
}

/// shifted[s · stride + j] = ext[j − s] (0 where j − s falls outside ext), for the spiir_vector copies.
template <class Real>
__global__ void shift_copies(const Real* __restrict__ ext, std::size_t ext_size, Real* __restrict__ shifted,
                             std::size_t stride) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (i >= static_cast<std::size_t>(spiir_vector<Real>) * stride) return;
  const std::size_t s = i / stride, j = i % stride;
  shifted[i] = j >= s && j - s < ext_size ? ext[j - s] : Real(0);
}

}  // namespace

int spiir_block_threads(int max_filters) { return 32 * template_warps(max_filters); }

template <class Real>
void launch_spiir_filter(const DeviceRateBank<Real>& bank, const Real* ext, std::size_t n, Real* shifted, Real* z,
                         cudaStream_t stream) {
  if (n == 0 || bank.n_templates == 0) return;
  const std::size_t ext_size = bank.max_delay + n;
  const std::size_t stride = spiir_shifted_size<Real>(ext_size) / spiir_vector<Real>;
  constexpr unsigned copy_block = 256;
  const std::size_t copies = spiir_shifted_size<Real>(ext_size);
  shift_copies<Real><<<static_cast<unsigned>((copies + copy_block - 1) / copy_block), copy_block, 0, stream>>>(
      ext, ext_size, shifted, stride);
  AS_CUDA_TRY(cudaGetLastError());
  const int threads = spiir_block_threads(bank.max_filters);
  spiir_filter<Real, spiir_tile<Real>><<<static_cast<unsigned>(bank.n_templates), threads, 0, stream>>>(
      bank, ext, shifted, stride, n, reinterpret_cast<Pair2<Real>*>(z));
  AS_CUDA_TRY(cudaGetLastError());
}

template void launch_spiir_filter<float>(const DeviceRateBank<float>&, const float*, std::size_t, float*, float*,
                                         cudaStream_t);
template void launch_spiir_filter<double>(const DeviceRateBank<double>&, const double*, std::size_t, double*, double*,
                                          cudaStream_t);

}  // namespace astrosweep::spiir::kernels
