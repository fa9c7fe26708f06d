#pragma once
// The coherent sky search's per-thread work, shared by the CUDA kernel (kernels/spiir/
// coherent_sky.cu) and its host twin (tests/spiir/test_coherent_cuda.cpp), so the host runs the
// kernel's own arithmetic and bookkeeping: plain C++, __host__ __device__ under nvcc.
//
// A tile is up to tile_tasks tasks (candidate × trial) of the same reference detector and first
// searched pixel, so they read the same pixel tables. A thread takes the searched pixels
// j = tid, tid + threads, … and, per pixel, loads its U columns and reads once and evaluates the
// pixel for every task of the tile from the windows (the kernel stages them in shared memory).
//
// Bit for bit the CPU's loop (coherent_snr.cpp, PixelTables::coherent): every product and sum
// rounded on its own (__fmul_rn/__fadd_rn on the device, which nvcc never contracts into an FMA;
// the CPU build targets x86-64 without FMA) in the CPU's order. The CPU's sums start from 0; here
// they start from their first term: 0 + x is x except for the sign of a zero, which no square
// and no later non-zero term keeps, so ρ_coh² and Σ|ζ|² are the same.
//
// The reduction in one pass (reported_pixel's rule: the first searched pixel within the resolution
// of the maximum). Each thread keeps per task its maximum, the first of its pixels reaching it and
// `before`, the maximum of its pixels before that one. Once the block knows the floor F of the
// task's maximum, a thread's first pixel reaching F is: none when its maximum is below F; its
// first maximum when `before` < F (every earlier pixel is ≤ before); otherwise (a near-tie inside
// the thread, rare with three detectors) a scan of its pixels up to that one. The block's minimum
// is the CPU's pixel.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/host_device.hpp"
#include "core/rounded.hpp"

// Loops over tasks and detectors unrolled on the device (their counts are template arguments).
#if defined(__CUDACC__)
#define AS_SKY_UNROLL _Pragma("unroll")
#else
#define AS_SKY_UNROLL
#endif

namespace astrosweep::spiir::sky_tile {

/// Threads per block, each striding over the searched pixels.
inline constexpr int block_threads = 256;
/// Tasks per tile, evaluated together per pixel (fewer when a window does not fit shared memory).
inline constexpr int tile_tasks = 8;

using rounded::add;
using rounded::mul;

template <class Real>
struct Sample {
  Real re, im;
};

/// The pixel tables of one search (SkySearchTables' layouts) and the windows' centre.
template <class Real>
struct Tables {
  const Real* u01 = nullptr;            ///< [(p · 2 + k) · n_det + d]
  const std::int32_t* reads = nullptr;  ///< [(ref · n_pix + p) · n_det + d]
  const Real* weights = nullptr;        ///< subsample: `taps` per read
  int taps = 1;
  int n_pix = 0;
  int centre = 0;  ///< the window index of a task's base sample
};

/// One task's pixel bookkeeping in one thread (see the file's comment).
template <class Real>
struct Best {
  Real max = -1;  ///< every ρ_coh² is ≥ 0
  int at = -1;    ///< the first of the thread's pixels (searched index j) with value `max`
  Real before = -1;
};

template <class Real>
AS_HOST_DEVICE inline void record(Best<Real>& b, Real v, int j) {
  if (v > b.max) {
    b.before = b.max;
    b.max = v;
    b.at = j;
  }
}

/// reported_pixel's floor: max − resolution · |max|, rounded as the CPU rounds it.
template <class Real>
AS_HOST_DEVICE inline Real floor_of(Real max, Real resolution) {
  return add(max, -mul(resolution, max < 0 ? -max : max));
}

/// ρ_coh² of searched pixel p for tasks 0 … T − 1 of `win` (win.load(d, s, t): sample s of task
/// t's window of detector d), into v; with `total` non-null also Σ|ζ_d|².
template <class Real, int NDet, bool Subsample, int T, class Windows>
AS_HOST_DEVICE inline void evaluate(const Tables<Real>& k, int ref, int p, const Windows& win, Real (&v)[T],
                                    Real* total = nullptr) {
  const Real* u = k.u01 + static_cast<std::size_t>(p) * 2 * NDet;
  Real w0r[T]{}, w0i[T]{}, w1r[T]{}, w1i[T]{};  // set by detector 0
  AS_SKY_UNROLL
  for (int d = 0; d < NDet; ++d) {
    const std::size_t i =
        (static_cast<std::size_t>(ref) * static_cast<std::size_t>(k.n_pix) + static_cast<std::size_t>(p)) * NDet +
        static_cast<std::size_t>(d);
    const int at = k.centre + k.reads[i];  // ≥ 0 and its taps inside the window: checked on the host
    const Real u0 = u[d], u1 = u[NDet + d];
    Real zr[T]{}, zi[T]{};
    if constexpr (Subsample) {
      const Real* w = k.weights + i * static_cast<std::size_t>(k.taps);
      for (int j = 0; j < k.taps; ++j) {
        const Real wj = w[j];
        AS_SKY_UNROLL
        for (int t = 0; t < T; ++t) {
          const Sample<Real> s = win.load(d, at + j, t);
          zr[t] = j == 0 ? mul(wj, s.re) : add(zr[t], mul(wj, s.re));
          zi[t] = j == 0 ? mul(wj, s.im) : add(zi[t], mul(wj, s.im));
        }
      }
    } else {
      AS_SKY_UNROLL
      for (int t = 0; t < T; ++t) {
        const Sample<Real> s = win.load(d, at, t);
        zr[t] = s.re;
        zi[t] = s.im;
      }
    }
    AS_SKY_UNROLL
    for (int t = 0; t < T; ++t) {
      if (d == 0) {
        w0r[t] = mul(u0, zr[t]);
        w0i[t] = mul(u0, zi[t]);
        w1r[t] = mul(u1, zr[t]);
        w1i[t] = mul(u1, zi[t]);
      } else {
        w0r[t] = add(w0r[t], mul(u0, zr[t]));
        w0i[t] = add(w0i[t], mul(u0, zi[t]));
        w1r[t] = add(w1r[t], mul(u1, zr[t]));
        w1i[t] = add(w1i[t], mul(u1, zi[t]));
      }
      if (total != nullptr) {
        const Real e = add(mul(zr[t], zr[t]), mul(zi[t], zi[t]));
        total[t] = d == 0 ? e : add(total[t], e);
      }
    }
  }
  AS_SKY_UNROLL
  for (int t = 0; t < T; ++t)
    v[t] = add(add(add(mul(w0r[t], w0r[t]), mul(w0i[t], w0i[t])), mul(w1r[t], w1r[t])), mul(w1i[t], w1i[t]));
}

/// Task `t` of a tile's windows seen as a tile of one task.
template <class Windows>
struct OneTask {
  const Windows& win;
  int t;
  AS_HOST_DEVICE auto load(int d, int s, int) const { return win.load(d, s, t); }
};

/// The thread's pass: every one of its searched pixels j = tid, tid + threads, … < n (pixel
/// first + j · stride) for every task of the tile, into `best`.
template <class Real, int NDet, bool Subsample, int T, class Windows>
AS_HOST_DEVICE inline void scan(const Tables<Real>& k, int ref, int first, int stride, int n, int tid, int threads,
                                const Windows& win, Best<Real> (&best)[T]) {
  for (int j = tid; j < n; j += threads) {
    Real v[T];
    evaluate<Real, NDet, Subsample, T>(k, ref, first + j * stride, win, v);
    AS_SKY_UNROLL
    for (int t = 0; t < T; ++t) record(best[t], v[t], j);
  }
}

/// The thread's first searched index whose value for task t reaches `floor`, or n for none.
template <class Real, int NDet, bool Subsample, class Windows>
AS_HOST_DEVICE inline int first_reaching(const Tables<Real>& k, int ref, int first, int stride, int n, int tid,
                                         int threads, const Windows& win, int t, const Best<Real>& best, Real floor) {
  if (!(best.max >= floor)) return n;
  if (best.before < floor) return best.at;
  const OneTask<Windows> one{win, t};
  for (int j = tid; j < best.at; j += threads) {  // a near-tie inside the thread: scan up to its maximum
    Real v[1];
    evaluate<Real, NDet, Subsample, 1>(k, ref, first + j * stride, one, v);
    if (v[0] >= floor) return j;
  }
  return best.at;
}

/// Tiles of a batch: the tasks grouped by (reference detector, first searched pixel), in order
/// within a group, `per_tile` per tile; a tile's unused places hold −1. Returns per_tile entries
/// per tile. ref[t] < n_det and first[t] < stride (the caller checks).
inline std::vector<std::int32_t> plan_tiles(const std::int32_t* ref, const std::int32_t* first, std::size_t n_tasks,
                                            int n_det, int stride, int per_tile) {
  // A counting sort by group: groups are few (n_det · stride), tasks many.
  const auto group = [&](std::size_t t) {
    return static_cast<std::size_t>(ref[t]) * static_cast<std::size_t>(stride) + static_cast<std::size_t>(first[t]);
  };
  const auto tile = static_cast<std::size_t>(per_tile);
  std::vector<std::size_t> at(static_cast<std::size_t>(n_det) * static_cast<std::size_t>(stride) + 1, 0);
  for (std::size_t t = 0; t < n_tasks; ++t) ++at[group(t) + 1];
  for (std::size_t g = 1; g < at.size(); ++g) at[g] = at[g - 1] + (at[g] + tile - 1) / tile * tile;  // padded
  std::vector<std::int32_t> out(at.back(), -1);
  for (std::size_t t = 0; t < n_tasks; ++t) out[at[group(t)]++] = static_cast<std::int32_t>(t);
  return out;
}

}  // namespace astrosweep::spiir::sky_tile
