// The correlation with the inverse FFTs in shared memory (the seed's method, spec §4): one thread
// block per segment and group of templates, a segment's groups in consecutive blocks. Per template
// each thread multiplies its input bins of the segment's forward spectrum (from L1 after the first
// template) by the template's spectrum, and the block runs the inverse transform in shared memory
// (Stockham autosort: 16 points a thread and radix-16 passes from L = 1024, 8 and radix 8 below,
// one last pass of radix 8, 4 or 2; twiddles from a table made in double on the host), two
// templates side by side so each barrier serves two transforms, and writes the U useful powers of
// the segment straight into the plane, or, for a search of one harmonic, only those above the
// threshold into the pool of kept cells (no plane: KeepAbove). Against the cuFFT path no product array and no inverse
// transform goes through global memory: the plane write is the traffic.
#include <algorithm>
#include <cstdint>

#include "cell_pool_device.cuh"
#include "correlation_launch.hpp"
#include "cuda_memory.hpp"
#include "shared_memory_fft.cuh"

namespace astrosweep::fdas::kernels {

namespace {

constexpr int templates_per_block = 8;

// A kept output's power: one rule for the plane and for the one-harmonic search, so a cell kept
// straight from the correlation has the bits the harmonic sum would read from the plane.
__device__ __forceinline__ float kept_power(float2 a, float scale) {
  return __fmul_rn(__fmaf_rn(a.x, a.x, __fmul_rn(a.y, a.y)), scale);
}

// P points per thread: 8 (threads L/8, radix-8 passes) or 16 (threads L/16, radix-16 passes: one
// shared-memory round trip fewer for L = 2048). NB templates are transformed side by side, so each
// barrier serves NB transforms.
template <int L, int P, int NB, bool Keep>
__global__ void __launch_bounds__(L / P)
    correlate_fused(const float2* __restrict__ inputs, const float2* __restrict__ kernels,
                    const float2* __restrict__ twiddle, float* __restrict__ plane, int n_templates, std::size_t n_r,
                    float scale, int useful, int first_kept, std::size_t first_segment, const KeepAbove keep) {
  __shared__ float2 buf[NB * padded_length<L>];
  constexpr int threads = L / P, stride = L / P;
  // blockIdx.x, the faster, is the template group: the blocks resident together share a few
  // segments' inputs, read from DRAM once and from L2 after (with the segments faster, every group
  // read all the inputs again: 26 groups at z_max 200, and a 2^23-sample series' inputs, ≈ 90 MB,
  // do not stay in the 50 MB L2).
  const std::size_t segment = first_segment + blockIdx.y;
  const int j = threadIdx.x;
  const float2* x = inputs + segment * L + j;  // the bins the first pass reads (L1 after the first)
  const int t_begin = static_cast<int>(blockIdx.x) * templates_per_block;
  const int t_end = min(t_begin + templates_per_block, n_templates);
  const std::size_t column0 = segment * static_cast<std::size_t>(useful);
  for (int t0 = t_begin; t0 < t_end; t0 += NB) {
    // First pass (Ns = 1: no twiddles) straight from the loads; a template past the end repeats
    // the last one, its powers not written.
    float2 v[NB][P];
#pragma unroll
    for (int nb = 0; nb < NB; ++nb) {
      const int t = min(t0 + nb, t_end - 1);
#pragma unroll
      for (int r = 0; r < P; ++r)
        v[nb][r] = mul(__ldg(x + r * stride), __ldg(kernels + static_cast<std::size_t>(t) * L + j + r * stride));
      dft<P>(v[nb]);
    }
    __syncthreads();  // the previous templates' powers are read
    finish_transform<L, P, NB>(v, buf, twiddle);
#pragma unroll
    for (int nb = 0; nb < NB; ++nb) {
      if (t0 + nb >= t_end) break;  // the same for the whole block
      if constexpr (Keep) {
        // Every lane through every round: keep_cells' ballot is the warp's.
        const std::size_t n_cols = keep.col_end - keep.col_begin;
        for (int u0 = 0; u0 < useful; u0 += threads) {
          const int u = u0 + j;
          const std::size_t column = column0 + static_cast<std::size_t>(u);
          const bool inside = u < useful && column >= keep.col_begin && column < keep.col_end;
          const float p = inside ? kept_power(buf[nb * padded_length<L> + padded(first_kept + u)], scale) : 0.0F;
          keep_cells(keep.pool, 0, inside && p > keep.powcut,
                     static_cast<unsigned long long>(t0 + nb) * n_cols + (column - keep.col_begin), p);
        }
      } else {
        float* row = plane + static_cast<std::size_t>(t0 + nb) * n_r;
        for (int u = j; u < useful; u += threads) {
          const std::size_t column = column0 + static_cast<std::size_t>(u);
          if (column < n_r) row[column] = kept_power(buf[nb * padded_length<L> + padded(first_kept + u)], scale);
        }
      }
    }
  }
}

template <int L>
void launch_for(const float2* inputs, const float2* kernels, const float2* twiddle, float* plane, std::size_t templates,
                std::size_t segments, std::size_t n_r, float scale, const SegmentGeometry& g, const KeepAbove* keep,
                cudaStream_t stream) {
  constexpr int P = L >= 1024 ? 16 : 8;
  constexpr int NB = L >= 4096 ? 1 : 2;  // two buffers of 4096 points exceed 48 KiB of static shared memory
  const auto groups = static_cast<unsigned>((templates + templates_per_block - 1) / templates_per_block);
  // gridDim.y is at most 65535: launches of that many segments at most, in order.
  constexpr std::size_t max_segments = 65535;
  for (std::size_t first = 0; first < segments; first += max_segments) {
    const dim3 grid(groups, static_cast<unsigned>(std::min(max_segments, segments - first)));
    const auto useful = static_cast<int>(g.useful);
    const auto first_kept = static_cast<int>(g.numbetween * g.half_width);
    if (keep != nullptr)
      correlate_fused<L, P, NB, true><<<grid, L / P, 0, stream>>>(
          inputs, kernels, twiddle, plane, static_cast<int>(templates), n_r, scale, useful, first_kept, first, *keep);
    else
      correlate_fused<L, P, NB, false><<<grid, L / P, 0, stream>>>(
          inputs, kernels, twiddle, plane, static_cast<int>(templates), n_r, scale, useful, first_kept, first, {});
  }
  AS_CUDA_TRY(cudaGetLastError());
}

}  // namespace

bool fused_correlation_supports(std::size_t fft_length) {
  return fft_length == 256 || fft_length == 512 || fft_length == 1024 || fft_length == 2048 || fft_length == 4096;
}

void launch_correlate_fused(const float2* inputs, const float2* kernels, const float2* twiddle, float* plane,
                            std::size_t templates, std::size_t segments, std::size_t n_r, float scale,
                            const SegmentGeometry& g, const KeepAbove* keep, cudaStream_t stream) {
  if (templates == 0 || segments == 0) return;
  AS_EXPECTS(keep == nullptr || (keep->col_begin <= keep->col_end && keep->col_end <= n_r), UsageError,
             "the kept columns are not in the plane");
  switch (g.fft_length) {
    case 256: launch_for<256>(inputs, kernels, twiddle, plane, templates, segments, n_r, scale, g, keep, stream); break;
    case 512: launch_for<512>(inputs, kernels, twiddle, plane, templates, segments, n_r, scale, g, keep, stream); break;
    case 1024:
      launch_for<1024>(inputs, kernels, twiddle, plane, templates, segments, n_r, scale, g, keep, stream);
      break;
    case 2048:
      launch_for<2048>(inputs, kernels, twiddle, plane, templates, segments, n_r, scale, g, keep, stream);
      break;
    case 4096:
      launch_for<4096>(inputs, kernels, twiddle, plane, templates, segments, n_r, scale, g, keep, stream);
      break;
    default:
      AS_EXPECTS(false, UsageError,
                 "the shared-memory correlation has no " + std::to_string(g.fft_length) + "-point transform");
  }
}

}  // namespace astrosweep::fdas::kernels
