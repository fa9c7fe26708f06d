// The correlation with the inverse FFTs in shared memory (the seed's method, spec §4): one thread
// block per segment and group of templates, a segment's groups in consecutive blocks. Per template
// each thread multiplies its input bins of the segment's forward spectrum (from L1 after the first
// template) by the template's spectrum, and the block runs the inverse transform in shared memory
// (Stockham autosort: 16 points a thread and radix-16 passes from L = 1024, 8 and radix 8 below,
// one last pass of radix 8, 4 or 2; twiddles from a table made in double on the host), two
// templates side by side so each barrier serves two transforms, and writes the segment's columns
// straight into the plane: the U kept powers, or with numbetween 1 those and their interbins from
// the transform in shared memory (interbin.hpp). Against the cuFFT path no product array and no
// inverse transform goes through global memory: the plane write is the traffic.
#include <algorithm>
#include <cstdint>

#include "correlation_launch.hpp"
#include "cuda_memory.hpp"
#include "interbin.hpp"
#include "shared_memory_fft.cuh"

namespace astrosweep::fdas::kernels {

namespace {

constexpr int templates_per_block = 8;

// P points per thread: 8 (threads L/8, radix-8 passes) or 16 (threads L/16, radix-16 passes: one
// shared-memory round trip fewer for L = 2048). NB templates are transformed side by side, so each
// barrier serves NB transforms.
template <int L, int P, int NB>
__global__ void __launch_bounds__(L / P)
    correlate_fused(const float2* __restrict__ inputs, const float2* __restrict__ kernels,
                    const float2* __restrict__ twiddle, float* __restrict__ plane, int n_templates, std::size_t n_r,
                    float scale, float interbin_scale, int columns, int numbetween, int first_kept,
                    std::size_t first_segment) {
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
  const std::size_t column0 = segment * static_cast<std::size_t>(columns);
  const auto b = static_cast<std::size_t>(numbetween);
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
      if (t0 + nb >= t_end) break;
      float* row = plane + static_cast<std::size_t>(t0 + nb) * n_r;
      const float2* out = buf + nb * padded_length<L>;
      for (int u = j; u < columns; u += threads) {
        const std::size_t column = column0 + static_cast<std::size_t>(u);
        if (column < n_r) {
          // The output after the last kept one, which the last interbin reads, is clean and in the
          // transform (useful_outputs keeps first_kept + U < L − first_kept).
          const auto c = static_cast<int>(interbin::first_output(static_cast<std::size_t>(u), b));
          float2 a = out[padded(first_kept + c)];
          const bool odd = interbin::interbinned(static_cast<std::size_t>(u), b);
          if (odd) {
            const float2 next = out[padded(first_kept + c + 1)];
            a = make_float2(a.x - next.x, a.y - next.y);
          }
          row[column] = (a.x * a.x + a.y * a.y) * (odd ? interbin_scale : scale);
        }
      }
    }
  }
}

template <int L>
void launch_for(const float2* inputs, const float2* kernels, const float2* twiddle, float* plane, std::size_t templates,
                std::size_t segments, std::size_t n_r, float scale, const SegmentGeometry& g, cudaStream_t stream) {
  constexpr int P = L >= 1024 ? 16 : 8;
  constexpr int NB = L >= 4096 ? 1 : 2;  // two buffers of 4096 points exceed 48 KiB of static shared memory
  const auto groups = static_cast<unsigned>((templates + templates_per_block - 1) / templates_per_block);
  // gridDim.y is at most 65535: launches of that many segments at most, in order.
  constexpr std::size_t max_segments = 65535;
  for (std::size_t first = 0; first < segments; first += max_segments) {
    const dim3 grid(groups, static_cast<unsigned>(std::min(max_segments, segments - first)));
    correlate_fused<L, P, NB><<<grid, L / P, 0, stream>>>(inputs, kernels, twiddle, plane, static_cast<int>(templates),
                                                          n_r, scale, interbin::scaled(scale),
                                                          static_cast<int>(g.columns), static_cast<int>(g.numbetween),
                                                          static_cast<int>(g.numbetween * g.half_width), first);
  }
  AS_CUDA_TRY(cudaGetLastError());
}

}  // namespace

bool fused_correlation_supports(std::size_t fft_length) {
  return fft_length == 256 || fft_length == 512 || fft_length == 1024 || fft_length == 2048 || fft_length == 4096;
}

void launch_correlate_fused(const float2* inputs, const float2* kernels, const float2* twiddle, float* plane,
                            std::size_t templates, std::size_t segments, std::size_t n_r, float scale,
                            const SegmentGeometry& g, cudaStream_t stream) {
  if (templates == 0 || segments == 0) return;
  switch (g.fft_length) {
    case 256: launch_for<256>(inputs, kernels, twiddle, plane, templates, segments, n_r, scale, g, stream); break;
    case 512: launch_for<512>(inputs, kernels, twiddle, plane, templates, segments, n_r, scale, g, stream); break;
    case 1024: launch_for<1024>(inputs, kernels, twiddle, plane, templates, segments, n_r, scale, g, stream); break;
    case 2048: launch_for<2048>(inputs, kernels, twiddle, plane, templates, segments, n_r, scale, g, stream); break;
    case 4096: launch_for<4096>(inputs, kernels, twiddle, plane, templates, segments, n_r, scale, g, stream); break;
    default:
      AS_EXPECTS(false, UsageError,
                 "the shared-memory correlation has no " + std::to_string(g.fft_length) + "-point transform");
  }
}

}  // namespace astrosweep::fdas::kernels
