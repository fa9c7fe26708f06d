// The CUDA Lomb-Scargle kernels; see lomb_scargle_cuda.hpp for the work layout. The power from the
// trigonometric sums is the CPU's own (lomb_scargle_power.hpp), evaluated in double.

#include <cstdint>

#include "cuda_math.cuh"
#include "cuda_memory.hpp"
#include "lomb_scargle_cuda.hpp"
#include "lomb_scargle_power.hpp"

namespace astrosweep::period::kernels {

namespace {

template <class T>
__device__ inline void put(T* dst, double2 z) {
  dst[0] = static_cast<T>(z.x);
  dst[1] = static_cast<T>(z.y);
}

template <class T>
__global__ void prepare_points_kernel(PointArrays<T> p, std::uint64_t n, double df) {
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t j = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x; j < n; j += stride) {
    const double t = p.t[j];
    put(p.step + 2 * j, cis_cycles(threads * df * t));
    for (int u = 0; u < seed_u; ++u) put(p.seed_u + 2 * (j * seed_u + u), cis_cycles(16.0 * u * df * t));
    for (int v = 0; v < seed_v; ++v) put(p.seed_v + 2 * (j * seed_v + v), cis_cycles(v * df * t));
  }
}

// Thread a = 16 u + v of the block at grid index kb holds frequencies kb + a + r * threads. Its
// seed at kb + a is sqrt(w) exp(2 pi i f_kb t) * exp(2 pi i 16 u df t) * exp(2 pi i v df t): the
// first factor in double once per point and block, the other two from the point tables. Scaling
// the phasor by sqrt(w) makes CC, CS, SS plain products of the state.
template <class T>
__device__ inline void write_power(const TrigSums& m, bool fit_mean, const PowerLaunch& launch, const DeviceObject& obj,
                                   T* dst) {
  *dst = static_cast<T>(
      normalise_power(raw_power(m, fit_mean, launch.degenerate_eps), launch.normalization, obj.yy, obj.psd_scale));
}

// Blocks per SM the register budget is cut for: the FP32 standard kernel's 80 accumulators fit four
// (more warps to hide the recurrence's latency); the others would spill in their inner loop.
template <class T, bool FitMean>
constexpr int min_blocks = sizeof(T) == 4 && !FitMean ? 4 : 3;

template <class T, bool FitMean>
__global__ void __launch_bounds__(threads, min_blocks<T, FitMean>)
    power_kernel(PointArrays<T> p, PowerLaunch launch, T* out, T* scratch) {
  constexpr int R = runs<T>;
  using V = Vec2<T>;
  __shared__ V s_seed_u[point_tile][seed_u];
  __shared__ V s_seed_v[point_tile][seed_v];
  __shared__ V s_step[point_tile];
  __shared__ T s_w[point_tile];
  __shared__ T s_yw[point_tile];

  const BlockItem item = launch.items[blockIdx.x];
  const Segment seg = launch.segments[item.segment];
  const DeviceObject obj = launch.objects[seg.object];
  const std::uint64_t kb = seg.k_begin + static_cast<std::uint64_t>(item.index) * block_freqs<T>;
  const double f_block = launch.f0 + static_cast<double>(kb) * launch.df;
  const int a = static_cast<int>(threadIdx.x);
  const int u = a / seed_v;
  const int v = a % seed_v;
  const V* seed_u_table = reinterpret_cast<const V*>(p.seed_u);
  const V* seed_v_table = reinterpret_cast<const V*>(p.seed_v);
  const V* step_table = reinterpret_cast<const V*>(p.step);

  T acc[R][7];  // C, S, YC, YS, CC, CS, SS per frequency
#pragma unroll
  for (int r = 0; r < R; ++r)
#pragma unroll
    for (int m = 0; m < 7; ++m) acc[r][m] = 0;

  // This block's point range: all points, or part `item.part` of a split object.
  const std::uint32_t per_part = (obj.n + obj.parts * point_tile - 1) / (obj.parts * point_tile) * point_tile;
  const std::uint32_t j_begin = item.part * per_part;
  const std::uint32_t j_end = min(obj.n, j_begin + per_part);
  for (std::uint32_t j0 = j_begin; j0 < j_end; j0 += point_tile) {
    const int nj = static_cast<int>(min(static_cast<std::uint32_t>(point_tile), j_end - j0));
    const std::uint64_t first = obj.first + j0;
    __syncthreads();  // the previous tile is consumed
    for (int jj = a; jj < nj; jj += threads) {
      const std::uint64_t j = first + static_cast<std::uint64_t>(jj);
      const double sw = static_cast<double>(p.sqrt_w[j]);
      const double2 base = cis_cycles(f_block * p.t[j]);
      for (int uu = 0; uu < seed_u; ++uu) {
        const V z = seed_u_table[j * seed_u + static_cast<std::uint64_t>(uu)];
        const double zc = static_cast<double>(z.x), zs = static_cast<double>(z.y);
        s_seed_u[jj][uu].x = static_cast<T>(sw * (base.x * zc - base.y * zs));
        s_seed_u[jj][uu].y = static_cast<T>(sw * (base.x * zs + base.y * zc));
      }
      s_step[jj] = step_table[j];
      s_w[jj] = p.sqrt_w[j];
      s_yw[jj] = p.y_sqrt_w[j];
    }
    for (int i = a; i < nj * seed_v; i += threads) s_seed_v[i / seed_v][i % seed_v] = seed_v_table[first * seed_v + i];
    __syncthreads();

#pragma unroll 1
    for (int jj = 0; jj < nj; ++jj) {
      const V A = s_seed_u[jj][u];
      const V B = s_seed_v[jj][v];
      const V st = s_step[jj];
      const T w = s_w[jj];
      const T yw = s_yw[jj];
      T c = A.x * B.x - A.y * B.y;
      T s = A.x * B.y + A.y * B.x;
#pragma unroll
      for (int r = 0; r < R; ++r) {
        if constexpr (FitMean) {
          acc[r][0] += w * c;
          acc[r][1] += w * s;
        }
        acc[r][2] += yw * c;
        acc[r][3] += yw * s;
        acc[r][4] += c * c;
        acc[r][5] += c * s;
        acc[r][6] += s * s;
        if (r + 1 < R) {
          const T cn = c * st.x - s * st.y;
          s = c * st.y + s * st.x;
          c = cn;
        }
      }
    }
  }

  const std::uint64_t k_end = seg.k_begin + seg.n;
#pragma unroll
  for (int r = 0; r < R; ++r) {
    const std::uint64_t k = kb + static_cast<std::uint64_t>(a + r * threads);
    if (k >= k_end) continue;
    const std::uint64_t i = k - seg.k_begin;
    if (obj.parts == 1) {
      const TrigSums m{acc[r][0], acc[r][1], acc[r][2], acc[r][3], acc[r][4], acc[r][5], acc[r][6]};
      write_power(m, FitMean, launch, obj, out + seg.offset + i);
    } else {
#pragma unroll
      for (int m = 0; m < n_sums; ++m)
        scratch[seg.scratch + (static_cast<std::uint64_t>(item.part) * n_sums + m) * seg.n + i] = acc[r][m];
    }
  }
}

// Adds the parts' sums in double, in part order, and evaluates the power.
template <class T>
__global__ void __launch_bounds__(threads) combine_kernel(PowerLaunch launch, const T* scratch, T* out) {
  constexpr int R = runs<T>;
  const BlockItem item = launch.combine_items[blockIdx.x];
  const Segment seg = launch.segments[item.segment];
  const DeviceObject obj = launch.objects[seg.object];
  const std::uint64_t kb = seg.k_begin + static_cast<std::uint64_t>(item.index) * block_freqs<T>;
  for (int r = 0; r < R; ++r) {
    const std::uint64_t k = kb + threadIdx.x + static_cast<std::uint64_t>(r) * threads;
    if (k >= seg.k_begin + seg.n) break;
    const std::uint64_t i = k - seg.k_begin;
    double sum[n_sums] = {};
    for (std::uint32_t part = 0; part < obj.parts; ++part)
#pragma unroll
      for (int m = 0; m < n_sums; ++m)
        sum[m] +=
            static_cast<double>(scratch[seg.scratch + (static_cast<std::uint64_t>(part) * n_sums + m) * seg.n + i]);
    write_power(TrigSums{sum[0], sum[1], sum[2], sum[3], sum[4], sum[5], sum[6]}, launch.fit_mean, launch, obj,
                out + seg.offset + i);
  }
}

}  // namespace

template <class T>
void prepare_points(const PointArrays<T>& points, std::uint64_t n, double df, cudaStream_t stream) {
  if (n == 0) return;
  const auto blocks = static_cast<unsigned>(std::min<std::uint64_t>((n + 255) / 256, 65535u));
  prepare_points_kernel<T><<<blocks, 256, 0, stream>>>(points, n, df);
  AS_CUDA_TRY(cudaGetLastError());
}

template <class T>
void lomb_scargle_power(const PointArrays<T>& points, const PowerLaunch& launch, T* out, T* scratch,
                        cudaStream_t stream) {
  if (launch.n_items == 0) return;
  if (launch.fit_mean)
    power_kernel<T, true><<<launch.n_items, threads, 0, stream>>>(points, launch, out, scratch);
  else
    power_kernel<T, false><<<launch.n_items, threads, 0, stream>>>(points, launch, out, scratch);
  AS_CUDA_TRY(cudaGetLastError());
  if (launch.n_combine_items == 0) return;
  combine_kernel<T><<<launch.n_combine_items, threads, 0, stream>>>(launch, scratch, out);
  AS_CUDA_TRY(cudaGetLastError());
}

template void prepare_points<float>(const PointArrays<float>&, std::uint64_t, double, cudaStream_t);
template void prepare_points<double>(const PointArrays<double>&, std::uint64_t, double, cudaStream_t);
template void lomb_scargle_power<float>(const PointArrays<float>&, const PowerLaunch&, float*, float*, cudaStream_t);
template void lomb_scargle_power<double>(const PointArrays<double>&, const PowerLaunch&, double*, double*,
                                         cudaStream_t);

}  // namespace astrosweep::period::kernels
