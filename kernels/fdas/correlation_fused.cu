// The correlation with the inverse FFTs in shared memory (the seed's method, spec §4): one thread
// block per segment and group of templates, a segment's groups in consecutive blocks. Per template
// each thread multiplies its input bins of the segment's forward spectrum (from L1 after the first
// template) by the template's spectrum, and the block runs the inverse transform in shared memory
// (Stockham autosort: 16 points a thread and radix-16 passes from L = 1024, 8 and radix 8 below,
// one last pass of radix 8, 4 or 2; twiddles from a table made in double on the host), two
// templates side by side so each barrier serves two transforms, and writes the U useful powers of
// the segment straight into the plane. Against the cuFFT path no product array and no inverse
// transform goes through global memory: the plane write is the traffic.
#include <algorithm>
#include <cstdint>

#include "correlation_launch.hpp"
#include "cuda_memory.hpp"

namespace astrosweep::fdas::kernels {

namespace {

constexpr int templates_per_block = 8;

__device__ __forceinline__ float2 add(float2 a, float2 b) { return make_float2(a.x + b.x, a.y + b.y); }
__device__ __forceinline__ float2 sub(float2 a, float2 b) { return make_float2(a.x - b.x, a.y - b.y); }
__device__ __forceinline__ float2 mul(float2 a, float2 b) {
  return make_float2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}
__device__ __forceinline__ float2 times_i(float2 a) { return make_float2(-a.y, a.x); }  // · e^{+iπ/2}

// In-place inverse DFTs (sign +) of 2, 4 and 8 points: y_q = Σ_r v_r e^{+2πi rq/R}.
__device__ __forceinline__ void dft2(float2& a, float2& b) {
  const float2 t = a;
  a = add(t, b);
  b = sub(t, b);
}
__device__ __forceinline__ void dft4(float2& v0, float2& v1, float2& v2, float2& v3) {
  const float2 s02 = add(v0, v2), d02 = sub(v0, v2), s13 = add(v1, v3), d13 = times_i(sub(v1, v3));
  v0 = add(s02, s13);
  v2 = sub(s02, s13);
  v1 = add(d02, d13);
  v3 = sub(d02, d13);
}
__device__ __forceinline__ void dft8(float2* v) {
  float2 e0 = v[0], e1 = v[2], e2 = v[4], e3 = v[6], o0 = v[1], o1 = v[3], o2 = v[5], o3 = v[7];
  dft4(e0, e1, e2, e3);
  dft4(o0, o1, o2, o3);
  constexpr float c = 0.70710678118654752F;
  o1 = make_float2(c * (o1.x - o1.y), c * (o1.x + o1.y));   // · e^{+iπ/4}
  o2 = times_i(o2);                                         // · e^{+iπ/2}
  o3 = make_float2(-c * (o3.x + o3.y), c * (o3.x - o3.y));  // · e^{+3iπ/4}
  v[0] = add(e0, o0);
  v[4] = sub(e0, o0);
  v[1] = add(e1, o1);
  v[5] = sub(e1, o1);
  v[2] = add(e2, o2);
  v[6] = sub(e2, o2);
  v[3] = add(e3, o3);
  v[7] = sub(e3, o3);
}

// Shared-memory index of point p: one float2 of padding after every 16 (16 float2 span the 32
// banks), so the strided writes of the first two passes (stride 8 points) do not queue on a bank.
__device__ __forceinline__ int padded(int p) { return p + (p >> 4); }
template <int L>
constexpr int padded_length = L + L / 16;

// e^{+2πi e/16} for the exponents n2·k1 (n2, k1 < 4) a 16-point DFT's four-by-four split needs.
__constant__ float2 w16[10] = {{1.0F, 0.0F},
                               {0.92387953251128674F, 0.38268343236508977F},
                               {0.70710678118654752F, 0.70710678118654752F},
                               {0.38268343236508977F, 0.92387953251128674F},
                               {0.0F, 1.0F},
                               {0.0F, 0.0F},
                               {-0.70710678118654752F, 0.70710678118654752F},
                               {0.0F, 0.0F},
                               {0.0F, 0.0F},
                               {-0.92387953251128674F, -0.38268343236508977F}};

// 16 points as 4 × 4: DFT4 over n1 for each n2 (inputs n2 + 4·n1), twiddle by w16^(n2·k1), DFT4
// over n2 for each k1; output k1 + 4·k2.
__device__ __forceinline__ void dft16(float2* v) {
#pragma unroll
  for (int n2 = 0; n2 < 4; ++n2) dft4(v[n2], v[n2 + 4], v[n2 + 8], v[n2 + 12]);
#pragma unroll
  for (int n2 = 1; n2 < 4; ++n2)
#pragma unroll
    for (int k1 = 1; k1 < 4; ++k1) v[n2 + 4 * k1] = mul(v[n2 + 4 * k1], w16[n2 * k1]);
      // Now v[n2 + 4·k1]; the second DFT4 runs over n2 for each k1 and leaves k2 in n2's place.
#pragma unroll
  for (int k1 = 0; k1 < 4; ++k1) dft4(v[4 * k1], v[4 * k1 + 1], v[4 * k1 + 2], v[4 * k1 + 3]);
    // v[k2 + 4·k1] holds y[k1 + 4·k2]: transpose the 4 × 4.
#pragma unroll
  for (int a = 0; a < 4; ++a)
#pragma unroll
    for (int b = a + 1; b < 4; ++b) {
      const float2 t = v[a + 4 * b];
      v[a + 4 * b] = v[b + 4 * a];
      v[b + 4 * a] = t;
    }
}

template <int R>
__device__ __forceinline__ void dft(float2* v) {
  if constexpr (R == 16) dft16(v);
  if constexpr (R == 8) dft8(v);
  if constexpr (R == 4) dft4(v[0], v[1], v[2], v[3]);
  if constexpr (R == 2) dft2(v[0], v[1]);
}

// One Stockham pass of radix R over the L points in `buf`, sub-transforms of Ns points so far:
// item j (of L/R) reads j + r·L/R, twiddles by e^{+2πi rk/(Ns·R)} (k = j mod Ns), transforms, and
// writes (j/Ns)·Ns·R + k + q·Ns. Every thread holds its items in registers between the reads and
// the writes, so one buffer serves, with a barrier on each side of the writes.
template <int L, int P, int R, int NB>
__device__ __forceinline__ void stockham_pass(float2* buf, int Ns, const float2* __restrict__ twiddle) {
  constexpr int threads = L / P, items = P / R;
  float2 v[NB][items][R];
#pragma unroll
  for (int it = 0; it < items; ++it) {
    const int j = threadIdx.x + it * threads;
    const int k = j & (Ns - 1);
    const int step = L / (Ns * R);
#pragma unroll
    for (int nb = 0; nb < NB; ++nb) {
#pragma unroll
      for (int r = 0; r < R; ++r) v[nb][it][r] = buf[nb * padded_length<L> + padded(j + r * (L / R))];
#pragma unroll
      for (int r = 1; r < R; ++r) v[nb][it][r] = mul(v[nb][it][r], __ldg(twiddle + r * k * step));
      dft<R>(v[nb][it]);
    }
  }
  __syncthreads();
#pragma unroll
  for (int it = 0; it < items; ++it) {
    const int j = threadIdx.x + it * threads;
    const int k = j & (Ns - 1);
    const int out = (j - k) * R + k;
#pragma unroll
    for (int nb = 0; nb < NB; ++nb)
#pragma unroll
      for (int q = 0; q < R; ++q) buf[nb * padded_length<L> + padded(out + q * Ns)] = v[nb][it][q];
  }
  __syncthreads();
}

// P points per thread: 8 (threads L/8, radix-8 passes) or 16 (threads L/16, radix-16 passes: one
// shared-memory round trip fewer for L = 2048). NB templates are transformed side by side, so each
// barrier serves NB transforms.
template <int L, int P, int NB>
__global__ void __launch_bounds__(L / P)
    correlate_fused(const float2* __restrict__ inputs, const float2* __restrict__ kernels,
                    const float2* __restrict__ twiddle, float* __restrict__ plane, int n_templates, std::size_t n_r,
                    float scale, int useful, int first_kept, std::size_t first_segment) {
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
#pragma unroll
    for (int nb = 0; nb < NB; ++nb)
#pragma unroll
      for (int q = 0; q < P; ++q) buf[nb * padded_length<L> + padded(j * P + q)] = v[nb][q];
    __syncthreads();
    int Ns = P;
    for (; Ns * P <= L; Ns *= P) stockham_pass<L, P, P, NB>(buf, Ns, twiddle);
    if constexpr (P == 16)
      if (Ns * 8 == L) stockham_pass<L, P, 8, NB>(buf, Ns, twiddle);
    if (Ns * 4 == L) stockham_pass<L, P, 4, NB>(buf, Ns, twiddle);
    if (Ns * 2 == L) stockham_pass<L, P, 2, NB>(buf, Ns, twiddle);
#pragma unroll
    for (int nb = 0; nb < NB; ++nb) {
      if (t0 + nb >= t_end) break;
      float* row = plane + static_cast<std::size_t>(t0 + nb) * n_r;
      for (int u = j; u < useful; u += threads) {
        const std::size_t column = column0 + static_cast<std::size_t>(u);
        if (column < n_r) {
          const float2 a = buf[nb * padded_length<L> + padded(first_kept + u)];
          row[column] = (a.x * a.x + a.y * a.y) * scale;
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
                                                          n_r, scale, static_cast<int>(g.useful),
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
