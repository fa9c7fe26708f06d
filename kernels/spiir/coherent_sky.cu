// The coherent stage's sky search on the GPU (spec §8-§9): for each task (candidate × trial) every
// searched pixel's ρ_coh² = |u_0ᵀζ|² + |u_1ᵀζ|², then the pixel coherent_snr.hpp's reported_pixel
// picks: the first whose ρ_coh² is within the resolution of the maximum.
//
// One block per tile of up to sky_tile::tile_tasks tasks sharing a reference detector and first
// pixel (sky_tile::plan_tiles): the tile's windows are staged in shared memory, sample-major with
// the tasks side by side ([d][s][t] (re, im), a row padded by 16 bytes so that threads reading
// different samples spread over the banks); each thread loads a pixel's U columns and reads once
// and evaluates it for every task of the tile (coherent_sky_tile.hpp, the code the host twin runs,
// bit for bit the CPU's loop). The reduction in one pass: warp shuffles then one value per warp
// in shared memory, for the block maximum (the floor) and the block minimum of the threads' first
// pixels reaching it; the thread of each task evaluates the chosen pixel once more for its ρ_coh²
// and Σ|ζ|². Nothing of the sky is stored.

#include <cuda_runtime.h>

#include "coherent_sky_launch.hpp"
#include "cuda_memory.hpp"
#include "snr_ring.hpp"

namespace astrosweep::spiir::kernels {
namespace {

using sky_tile::block_threads;
constexpr int warps = block_threads / 32;

// Reals per staged sample row: T tasks' (re, im) and 16 bytes of padding (keeps 8- and 16-byte loads aligned).
template <class Real, int T>
constexpr int row_of = 2 * T + 16 / static_cast<int>(sizeof(Real));

template <class Real, int T>
std::size_t stage_bytes(int n_det, int window_length) {
  return static_cast<std::size_t>(n_det) * static_cast<std::size_t>(window_length) * row_of<Real, T> * sizeof(Real);
}

// The tile's windows in shared memory, as coherent_sky_tile.hpp reads them.
template <class Real, int T>
struct SharedWindows {
  const Real* base;
  int length;
  AS_HOST_DEVICE sky_tile::Sample<Real> load(int d, int s, int t) const {
    const Real* p = base + (d * length + s) * row_of<Real, T> + 2 * t;
#if defined(__CUDA_ARCH__)
    if constexpr (sizeof(Real) == 4) {
      const float2 v = *reinterpret_cast<const float2*>(p);
      return {v.x, v.y};
    } else {
      const double2 v = *reinterpret_cast<const double2*>(p);
      return {v.x, v.y};
    }
#else
    return {p[0], p[1]};
#endif
  }
};

template <class Real>
__device__ Real warp_max(Real v) {
  for (int o = 16; o > 0; o /= 2) {
    const Real other = __shfl_xor_sync(0xffffffffU, v, o);
    v = other > v ? other : v;
  }
  return v;
}

__device__ int warp_min(int v) {
  for (int o = 16; o > 0; o /= 2) v = min(v, __shfl_xor_sync(0xffffffffU, v, o));
  return v;
}

template <class Real, int NDet, bool Subsample, int T>
__global__ void __launch_bounds__(block_threads) sky_search(const SkyLaunch<Real> k) {
  extern __shared__ __align__(16) unsigned char stage_raw[];
  __shared__ Real part_max[warps][T];
  __shared__ int part_hit[warps][T];
  __shared__ Real floors[T];
  Real* stage = reinterpret_cast<Real*>(stage_raw);
  const int tid = static_cast<int>(threadIdx.x), lane = tid % 32, warp = tid / 32;
  const std::int32_t* tasks = k.tiles + static_cast<std::size_t>(blockIdx.x) * T;
  const int lead = tasks[0];  // a tile's first place always holds a task
  const int ref = k.ref[lead], first = k.first[lead];
  const int length = k.window_length;
  constexpr int row = row_of<Real, T>;

  // Stage the windows, from the batch's samples or the histories' rings; an unused place of the
  // tile reads zeros (evaluated, never reported).
  for (int td = 0; td < T * NDet; ++td) {
    const int t = td / NDet, d = td % NDet, task = tasks[t];
    Real* to = stage + d * length * row + 2 * t;
    if (task >= 0 && k.ring_length > 0) {
      const std::int64_t start = k.window[static_cast<std::size_t>(task) * NDet + d];
      const auto tmpl = static_cast<std::size_t>(k.ring_row[task]);
      for (int e = tid; e < 2 * length; e += block_threads)
        to[(e >> 1) * row + (e & 1)] = k.ring[d][ring_slot(tmpl, start + (e >> 1), k.ring_length) * 2 + (e & 1)];
      continue;
    }
    const Real* from = task < 0 ? nullptr : k.samples + k.window[static_cast<std::size_t>(task) * NDet + d] * 2;
    for (int e = tid; e < 2 * length; e += block_threads) to[(e >> 1) * row + (e & 1)] = from ? from[e] : Real(0);
  }
  __syncthreads();
  const SharedWindows<Real, T> win{stage, length};
  const int n = (k.tables.n_pix - first + k.stride - 1) / k.stride;  // pixels first + j · stride, j < n

  sky_tile::Best<Real> best[T];
  sky_tile::scan<Real, NDet, Subsample, T>(k.tables, ref, first, k.stride, n, tid, block_threads, win, best);

#pragma unroll
  for (int t = 0; t < T; ++t) {
    const Real m = warp_max(best[t].max);
    if (lane == 0) part_max[warp][t] = m;
  }
  __syncthreads();
  if (tid < T) {
    Real m = part_max[0][tid];
    for (int w = 1; w < warps; ++w) m = part_max[w][tid] > m ? part_max[w][tid] : m;
    floors[tid] = sky_tile::floor_of(m, k.resolution);
  }
  __syncthreads();
#pragma unroll
  for (int t = 0; t < T; ++t) {
    const int hit = warp_min(sky_tile::first_reaching<Real, NDet, Subsample>(
        k.tables, ref, first, k.stride, n, tid, block_threads, win, t, best[t], floors[t]));
    if (lane == 0) part_hit[warp][t] = hit;
  }
  __syncthreads();
  if (tid < T && tasks[tid] >= 0) {
    int hit = part_hit[0][tid];
    for (int w = 1; w < warps; ++w) hit = min(hit, part_hit[w][tid]);
    const int pixel = first + hit * k.stride;
    Real v[1], total[1];
    sky_tile::evaluate<Real, NDet, Subsample, 1>(k.tables, ref, pixel,
                                                 sky_tile::OneTask<SharedWindows<Real, T>>{win, tid}, v, total);
    const auto task = static_cast<std::size_t>(tasks[tid]);
    k.coh[task] = v[0];
    k.total[task] = total[0];
    k.pixel[task] = pixel;
  }
}

template <class Real, int NDet, bool Subsample, int T>
void launch_as(const SkyLaunch<Real>& k, cudaStream_t stream) {
  const std::size_t bytes = stage_bytes<Real, T>(NDet, k.window_length);
  const auto kernel = sky_search<Real, NDet, Subsample, T>;
  AS_CUDA_TRY(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes)));
  // The most shared memory an SM can give, so that the staged windows never limit the blocks per
  // SM below what the registers allow (the tables' reads gain little from L1: a tile reads each once).
  AS_CUDA_TRY(
      cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout, cudaSharedmemCarveoutMaxShared));
  kernel<<<static_cast<unsigned>(k.n_tiles), block_threads, bytes, stream>>>(k);
  AS_CUDA_TRY(cudaGetLastError());
}

template <class Real, int T>
void launch_tiles(const SkyLaunch<Real>& k, cudaStream_t stream) {
  const bool sub = k.tables.weights != nullptr;
  if (k.n_det == 3)
    sub ? launch_as<Real, 3, true, T>(k, stream) : launch_as<Real, 3, false, T>(k, stream);
  else
    sub ? launch_as<Real, 2, true, T>(k, stream) : launch_as<Real, 2, false, T>(k, stream);
}

// Shared memory a block may use beyond the reduction's static arrays.
std::size_t stage_limit() {
  int device = 0, optin = 0;
  AS_CUDA_TRY(cudaGetDevice(&device));
  AS_CUDA_TRY(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  const std::size_t reduction = warps * sky_tile::tile_tasks * (sizeof(double) + sizeof(int)) + 64;
  return static_cast<std::size_t>(optin) > reduction ? static_cast<std::size_t>(optin) - reduction : 0;
}

}  // namespace

template <class Real>
int sky_tasks_per_tile(int n_det, int window_length) {
  const std::size_t limit = stage_limit();
  if (stage_bytes<Real, sky_tile::tile_tasks>(n_det, window_length) <= limit) return sky_tile::tile_tasks;
  return stage_bytes<Real, 1>(n_det, window_length) <= limit ? 1 : 0;
}

template <class Real>
void launch_sky_search(const SkyLaunch<Real>& launch, cudaStream_t stream) {
  if (launch.n_tiles == 0) return;
  AS_EXPECTS(launch.n_det == 2 || launch.n_det == 3, UsageError, "the sky search needs 2 or 3 detectors");
  if (launch.per_tile == sky_tile::tile_tasks)
    launch_tiles<Real, sky_tile::tile_tasks>(launch, stream);
  else if (launch.per_tile == 1)
    launch_tiles<Real, 1>(launch, stream);
  else
    AS_EXPECTS(false, UsageError, "the sky search's tiles hold 1 or sky_tile::tile_tasks tasks");
}

template int sky_tasks_per_tile<float>(int, int);
template int sky_tasks_per_tile<double>(int, int);
template void launch_sky_search<float>(const SkyLaunch<float>&, cudaStream_t);
template void launch_sky_search<double>(const SkyLaunch<double>&, cudaStream_t);

}  // namespace astrosweep::spiir::kernels
