// The fast method's kernels; see lomb_scargle_fast_cuda.hpp for the steps and why fixed point.

#include <math_constants.h>

#include <algorithm>
#include <cstdint>

#include "cuda_math.cuh"
#include "cuda_memory.hpp"
#include "lomb_scargle_fast_cuda.hpp"
#include "lomb_scargle_power.hpp"

namespace astrosweep::period::kernels {

namespace {

constexpr int block = 256;
constexpr int max_width = 16;  // nufft_max_width

using Cell = unsigned long long;  // a fixed-point component; two per cell (re, im)

/// 2 pi (v - round(v)) in [-pi, pi]: the CPU's cycles_to_position.
__device__ inline double cycles_to_position(double v) { return 2 * CUDART_PI * (v - rint(v)); }

__device__ inline void add_fixed(Cell* cell, double re, double im, double scale) {
  atomicAdd(cell, static_cast<Cell>(__double2ll_rn(re * scale)));
  atomicAdd(cell + 1, static_cast<Cell>(__double2ll_rn(im * scale)));
}

/// The kernel's values at the w cells around a position x, and the first cell (may be < 0 or
/// beyond M - w: the caller wraps).
__device__ inline long long kernel_values(double x, const FastLaunch& l, double* psi) {
  const double m = static_cast<double>(l.cells);
  const double half = 0.5 * l.width;
  double u = (x + CUDART_PI) * (m / (2 * CUDART_PI));  // in cells from -pi
  if (!(u >= 0 && u < m)) {
    u -= floor(u / m) * m;
    if (u >= m) u -= m;
  }
  const auto l0 = static_cast<long long>(ceil(u - half));
  for (int i = 0; i < max_width; ++i) {
    if (i >= l.width) break;
    const double z = (static_cast<double>(l0 + i) - u) / half;
    psi[i] = exp(l.beta * (sqrt(fmax(0.0, 1 - z * z)) - 1));
  }
  return l0;
}

__device__ inline Cell* cell_at(Cell* grid, long long cell, long long m) {
  if (cell < 0) cell += m;
  if (cell >= m) cell -= m;
  return grid + 2 * cell;
}

__global__ void __launch_bounds__(block) spread_kernel(FastLaunch l, Cell* grids) {
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  const auto m = static_cast<long long>(l.cells);
  for (std::uint64_t q = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x; q < l.n_points;
       q += stride) {
    const std::uint64_t j = l.point_base + q;
    const std::uint32_t o = l.point_object[j] - l.object_base;
    const FastObject obj = l.objects[o];
    const double t = l.t[j], w = l.w[j], wy = l.w[j] * l.y[j];
    Cell* grid = grids + 2 * static_cast<std::uint64_t>(o) * l.sums * l.cells;
    double psi[max_width];
    // y and w: exp(i 2 pi f_c t) on the positions 2 pi df t.
    {
      const double2 e = cis_cycles(l.f_centre * t);
      const long long l0 = kernel_values(cycles_to_position(l.df * t), l, psi);
      Cell* gy = grid;
      Cell* gw = grid + 2 * l.cells;
      for (int i = 0; i < max_width; ++i) {
        if (i >= l.width) break;
        const long long c = l0 + i;
        add_fixed(cell_at(gy, c, m), wy * e.x * psi[i], wy * e.y * psi[i], obj.scale_y);
        if (l.fit_mean) add_fixed(cell_at(gw, c, m), w * e.x * psi[i], w * e.y * psi[i], obj.scale_w);
      }
    }
    // w2: exp(i 2 pi 2 f_c t) on the positions 2 pi 2 df t.
    {
      const double2 e = cis_cycles(2 * l.f_centre * t);
      const long long l0 = kernel_values(cycles_to_position(2 * l.df * t), l, psi);
      Cell* g2 = grid + 2 * static_cast<std::uint64_t>(l.sums - 1) * l.cells;
      for (int i = 0; i < max_width; ++i) {
        if (i >= l.width) break;
        add_fixed(cell_at(g2, l0 + i, m), w * e.x * psi[i], w * e.y * psi[i], obj.scale_w);
      }
    }
  }
}

__global__ void unfix_kernel(FastLaunch l, Cell* grids) {
  const std::uint64_t n = static_cast<std::uint64_t>(l.n_objects) * l.sums * l.cells;
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t g = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x; g < n; g += stride) {
    const std::uint64_t grid = g / l.cells;
    const auto o = static_cast<std::uint32_t>(grid / l.sums);
    const int sum = static_cast<int>(grid % l.sums);
    const double inverse = 1 / (sum == 0 ? l.objects[o].scale_y : l.objects[o].scale_w);  // a power of two
    const longlong2 v = reinterpret_cast<const longlong2*>(grids)[g];
    reinterpret_cast<double2*>(grids)[g] = {static_cast<double>(v.x) * inverse, static_cast<double>(v.y) * inverse};
  }
}

__device__ inline double2 scaled(double2 z, double f) { return {z.x * f, z.y * f}; }

template <class T>
__global__ void power_kernel(FastLaunch l, const double2* grids, std::uint64_t len, T* out) {
  const std::uint64_t n = static_cast<std::uint64_t>(l.n_objects) * len;
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  const auto m = static_cast<long long>(l.cells);
  const auto first_mode = -static_cast<long long>(l.modes / 2);
  for (std::uint64_t q = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x; q < n; q += stride) {
    const auto o = static_cast<std::uint32_t>(q / len);
    const std::uint64_t i = q % len;
    long long r = first_mode + static_cast<long long>(i);
    if (r < 0) r += m;
    const double f = l.factor[i];
    const double2* g = grids + static_cast<std::uint64_t>(o) * l.sums * l.cells + r;
    const double2 y = scaled(g[0], f);
    const double2 w = l.fit_mean ? scaled(g[l.cells], f) : double2{0, 0};
    const double2 w2 = scaled(g[static_cast<std::uint64_t>(l.sums - 1) * l.cells], f);
    const FastObject& obj = l.objects[o];
    const TrigSums s = sums_from_harmonics(w.x, w.y, y.x, y.y, w2.x, w2.y, obj.w_sum);
    out[q] = static_cast<T>(power_from_sums(s, l.fit_mean, l.degenerate_eps, l.normalization, obj.yy, obj.psd_scale));
  }
}

unsigned blocks_for(std::uint64_t n) {
  return static_cast<unsigned>(std::clamp<std::uint64_t>((n + block - 1) / block, 1, 1u << 20));
}

}  // namespace

void fast_spread(const FastLaunch& launch, void* grids, cudaStream_t stream) {
  const std::uint64_t bytes = std::uint64_t{launch.n_objects} * launch.sums * launch.cells * 2 * sizeof(Cell);
  AS_CUDA_TRY(cudaMemsetAsync(grids, 0, bytes, stream));
  if (launch.n_points == 0) return;
  spread_kernel<<<blocks_for(launch.n_points), block, 0, stream>>>(launch, static_cast<Cell*>(grids));
  AS_CUDA_TRY(cudaGetLastError());
}

void fast_unfix(const FastLaunch& launch, void* grids, cudaStream_t stream) {
  const std::uint64_t n = std::uint64_t{launch.n_objects} * launch.sums * launch.cells;
  if (n == 0) return;
  unfix_kernel<<<blocks_for(n), block, 0, stream>>>(launch, static_cast<Cell*>(grids));
  AS_CUDA_TRY(cudaGetLastError());
}

template <class T>
void fast_power(const FastLaunch& launch, const void* grids, std::uint64_t len, T* out, cudaStream_t stream) {
  const std::uint64_t n = std::uint64_t{launch.n_objects} * len;
  if (n == 0) return;
  power_kernel<T><<<blocks_for(n), block, 0, stream>>>(launch, static_cast<const double2*>(grids), len, out);
  AS_CUDA_TRY(cudaGetLastError());
}

template void fast_power<float>(const FastLaunch&, const void*, std::uint64_t, float*, cudaStream_t);
template void fast_power<double>(const FastLaunch&, const void*, std::uint64_t, double*, cudaStream_t);

}  // namespace astrosweep::period::kernels
