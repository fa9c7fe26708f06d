// The correlation with the inverse FFTs in shared memory (the seed's method, spec §4): one thread
// block per segment and group of templates, a segment's groups in consecutive blocks. Per template
// each thread multiplies its input bins of the segment's forward spectrum (from L1 after the first
// template) by the template's spectrum, and the block runs the inverse transform in shared memory
// (Stockham autosort: 16 points a thread and radix-16 passes from L = 1024, 8 and radix 8 below,
// one last pass of radix 8, 4 or 2; twiddles from a table made in double on the host), two
// templates side by side so each barrier serves two transforms. The segment's columns go straight
// into the plane, or, for a search of one harmonic, only those above the threshold into the pool of
// kept cells (KeepAbove: no plane). With numbetween 2 each column is one output, taken from the
// registers that hold it after the last pass (that pass's write to shared memory and the read
// back are not needed); with numbetween 1 the interbins read two neighbouring outputs
// (interbin.hpp), which the last pass writes back to shared memory first. Against the cuFFT path no
// product array and no inverse transform goes through global memory: the plane write is the traffic.
#include <algorithm>
#include <cstdint>

#include "cell_pool_device.cuh"
#include "correlation_launch.hpp"
#include "cuda_memory.hpp"
#include "interbin.hpp"
#include "shared_memory_fft.cuh"

namespace astrosweep::fdas::kernels {

namespace {

constexpr int templates_per_block = 8;

// A column's power: one rule for the plane and for the one-harmonic search, so a cell kept straight
// from the correlation has the bits the harmonic sum would read from the plane.
__device__ __forceinline__ float kept_power(float2 a, float scale) {
  return __fmul_rn(__fmaf_rn(a.x, a.x, __fmul_rn(a.y, a.y)), scale);
}

// Where a run's columns go: column c (< width) of the run to plane[t·row_stride + c] (`plane`
// already at the run's first column), and the segments' geometry.
struct Columns {
  float* plane;
  std::size_t width, row_stride;
  float scale, interbin_scale;
  int columns, first_kept;
};

// The run's column `column` of template t, power p: into the plane, or tested and kept (the run's
// window and pool entries, keep_in_run). With Keep every lane of the warp calls it the same number
// of times (keep_cells' ballot is the warp's); `inside` false for a lane whose column does not exist.
template <bool Keep>
__device__ __forceinline__ void put_column(const Columns& c, const KeepAbove& keep, int t, std::size_t column,
                                           bool inside, float p) {
  if constexpr (Keep) {
    const bool kept = inside && column >= keep.col_begin && column < keep.col_end;
    keep_cells(keep.pool, 0, kept && p > keep.powcut,
               static_cast<unsigned long long>(t) * keep.n_cols + column + keep.entry_offset, p);
  } else {
    if (inside && column < c.width) c.plane[static_cast<std::size_t>(t) * c.row_stride + column] = p;
  }
}

// P points per thread: 8 (threads L/8, radix-8 passes) or 16 (threads L/16, radix-16 passes: one
// shared-memory round trip fewer for L = 2048). NB templates are transformed side by side, so each
// barrier serves NB transforms.
// At least 512 threads a multiprocessor (128 registers a thread) up to L = 2048: unbounded, the
// compiler takes 133 at L = 2048 (three blocks of 128 threads, not four). L = 4096, and the
// one-harmonic search with interbins (its pool entry and the neighbour reads), would spill at 128:
// left unbounded.
template <int L, int P, int NB, bool Keep, bool Interbin>
__global__ void __launch_bounds__(L / P, L >= 4096 || (Keep && Interbin) ? 1 : 512 / (L / P))
    correlate_fused(const float2* __restrict__ inputs, const float2* __restrict__ kernels,
                    const float2* __restrict__ twiddle, const Columns c, std::size_t first_segment, int n_templates,
                    const KeepAbove keep) {
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
  const std::size_t column0 = segment * static_cast<std::size_t>(c.columns);
  for (int t0 = t_begin; t0 < t_end; t0 += NB) {
    // First pass (Ns = 1: no twiddles) straight from the loads; a template past the end repeats
    // the last one, its columns not put.
    float2 v[NB][P];
#pragma unroll
    for (int nb = 0; nb < NB; ++nb) {
      const int t = min(t0 + nb, t_end - 1);
#pragma unroll
      for (int r = 0; r < P; ++r)
        v[nb][r] = mul(__ldg(x + r * stride), __ldg(kernels + static_cast<std::size_t>(t) * L + j + r * stride));
      dft<P>(v[nb]);
    }
    __syncthreads();  // the previous templates' last reads of the buffer are done
    if constexpr (!Interbin) {
      // Output point p of the transform is column p − first_kept.
      finish_transform_emitting<L, P, NB>(v, buf, twiddle, [&](int nb, int point, float2 a) {
        const int u = point - c.first_kept;
        const bool inside = t0 + nb < t_end && u >= 0 && u < c.columns;
        put_column<Keep>(c, keep, t0 + nb, column0 + static_cast<std::size_t>(u), inside,
                         inside ? kept_power(a, c.scale) : 0.0F);
      });
    } else {
      finish_transform<L, P, NB>(v, buf, twiddle);
#pragma unroll
      for (int nb = 0; nb < NB; ++nb) {
        const float2* out = buf + nb * padded_length<L>;
        // Every lane through every round (put_column's ballot); the output after the last kept one,
        // which the last interbin reads, is clean and in the transform (useful_outputs).
        for (int u0 = 0; u0 < c.columns; u0 += threads) {
          const int u = u0 + j;
          const bool inside = t0 + nb < t_end && u < c.columns;
          float p = 0.0F;
          if (inside) {
            const auto first = static_cast<int>(interbin::first_output(static_cast<std::size_t>(u), 1));
            const float2 a = out[padded(c.first_kept + first)];
            if (interbin::interbinned(static_cast<std::size_t>(u), 1)) {
              const float2 next = out[padded(c.first_kept + first + 1)];
              p = kept_power(make_float2(a.x - next.x, a.y - next.y), c.interbin_scale);
            } else {
              p = kept_power(a, c.scale);
            }
          }
          put_column<Keep>(c, keep, t0 + nb, column0 + static_cast<std::size_t>(u), inside, p);
        }
      }
    }
  }
}

template <int L, bool Keep, bool Interbin>
void launch_grids(const float2* inputs, const float2* kernels, const float2* twiddle, const Columns& c,
                  std::size_t templates, std::size_t segments, const KeepAbove& keep, cudaStream_t stream) {
  constexpr int P = shared_fft_points(L);
  constexpr int NB = L >= 4096 ? 1 : 2;  // two buffers of 4096 points exceed 48 KiB of static shared memory
  const auto groups = static_cast<unsigned>((templates + templates_per_block - 1) / templates_per_block);
  // gridDim.y is at most 65535: launches of that many segments at most, in order.
  constexpr std::size_t max_segments = 65535;
  for (std::size_t first = 0; first < segments; first += max_segments) {
    const dim3 grid(groups, static_cast<unsigned>(std::min(max_segments, segments - first)));
    correlate_fused<L, P, NB, Keep, Interbin>
        <<<grid, L / P, 0, stream>>>(inputs, kernels, twiddle, c, first, static_cast<int>(templates), keep);
  }
  AS_CUDA_TRY(cudaGetLastError());
}

template <int L>
void launch_for(const float2* inputs, const float2* kernels, const float2* twiddle, const Columns& c,
                std::size_t templates, std::size_t segments, bool interbin, const KeepAbove* keep,
                cudaStream_t stream) {
  const KeepAbove none{};
  if (keep != nullptr && interbin)
    launch_grids<L, true, true>(inputs, kernels, twiddle, c, templates, segments, *keep, stream);
  else if (keep != nullptr)
    launch_grids<L, true, false>(inputs, kernels, twiddle, c, templates, segments, *keep, stream);
  else if (interbin)
    launch_grids<L, false, true>(inputs, kernels, twiddle, c, templates, segments, none, stream);
  else
    launch_grids<L, false, false>(inputs, kernels, twiddle, c, templates, segments, none, stream);
}

}  // namespace

bool fused_correlation_supports(std::size_t fft_length) {
  return fft_length == 256 || fft_length == 512 || fft_length == 1024 || fft_length == 2048 || fft_length == 4096;
}

void launch_correlate_fused(const float2* inputs, const float2* kernels, const float2* twiddle, const PlaneColumns& out,
                            std::size_t templates, std::size_t segments, float scale, const SegmentGeometry& g,
                            const KeepAbove* keep, cudaStream_t stream) {
  if (templates == 0 || segments == 0) return;
  AS_EXPECTS(keep == nullptr || (keep->col_begin <= keep->col_end && keep->col_end <= out.columns), UsageError,
             "the kept columns are not in the run");
  AS_EXPECTS(g.numbetween == 1 || g.numbetween == 2, UsageError, "the correlation's numbetween is 1 or 2");
  const Columns c{out.plane != nullptr ? out.plane + out.first_column : nullptr,
                  out.columns,
                  out.row_stride,
                  scale,
                  interbin::scaled(scale),
                  static_cast<int>(g.columns),
                  static_cast<int>(g.numbetween * g.half_width)};
  const bool interbin = g.numbetween == 1;
  switch (g.fft_length) {
    case 256: launch_for<256>(inputs, kernels, twiddle, c, templates, segments, interbin, keep, stream); break;
    case 512: launch_for<512>(inputs, kernels, twiddle, c, templates, segments, interbin, keep, stream); break;
    case 1024: launch_for<1024>(inputs, kernels, twiddle, c, templates, segments, interbin, keep, stream); break;
    case 2048: launch_for<2048>(inputs, kernels, twiddle, c, templates, segments, interbin, keep, stream); break;
    case 4096: launch_for<4096>(inputs, kernels, twiddle, c, templates, segments, interbin, keep, stream); break;
    default:
      AS_EXPECTS(false, UsageError,
                 "the shared-memory correlation has no " + std::to_string(g.fft_length) + "-point transform");
  }
}

}  // namespace astrosweep::fdas::kernels
