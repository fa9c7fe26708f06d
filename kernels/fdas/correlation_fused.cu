// The correlation with the inverse FFTs in shared memory (the seed's method, spec §4): one thread
// block per segment and group of templates. Each thread keeps its eight input bins of the
// segment's forward spectrum in registers; per template it multiplies them by the template's
// spectrum, runs the inverse transform in shared memory (Stockham autosort, radix 8 then one pass
// of radix 4 or 2, twiddles from a table made in double on the host) and writes the U useful
// powers of the segment straight into the plane. Against the cuFFT path no product array and no
// inverse transform ever goes through global memory: the plane write is the traffic.
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

template <int R>
__device__ __forceinline__ void dft(float2* v) {
  if constexpr (R == 8) dft8(v);
  if constexpr (R == 4) dft4(v[0], v[1], v[2], v[3]);
  if constexpr (R == 2) dft2(v[0], v[1]);
}

// One Stockham pass of radix R over the L points in `buf`, sub-transforms of Ns points so far:
// item j (of L/R) reads j + r·L/R, twiddles by e^{+2πi rk/(Ns·R)} (k = j mod Ns), transforms, and
// writes (j/Ns)·Ns·R + k + q·Ns. Every thread holds its items in registers between the reads and
// the writes, so one buffer serves, with a barrier on each side of the writes.
template <int L, int R>
__device__ __forceinline__ void stockham_pass(float2* buf, int Ns, const float2* __restrict__ twiddle) {
  constexpr int threads = L / 8, items = 8 / R;
  float2 v[items][R];
#pragma unroll
  for (int it = 0; it < items; ++it) {
    const int j = threadIdx.x + it * threads;
    const int k = j & (Ns - 1);
#pragma unroll
    for (int r = 0; r < R; ++r) v[it][r] = buf[padded(j + r * (L / R))];
    const int step = L / (Ns * R);
#pragma unroll
    for (int r = 1; r < R; ++r) v[it][r] = mul(v[it][r], __ldg(twiddle + r * k * step));
    dft<R>(v[it]);
  }
  __syncthreads();
#pragma unroll
  for (int it = 0; it < items; ++it) {
    const int j = threadIdx.x + it * threads;
    const int k = j & (Ns - 1);
    const int out = (j - k) * R + k;
#pragma unroll
    for (int q = 0; q < R; ++q) buf[padded(out + q * Ns)] = v[it][q];
  }
  __syncthreads();
}

template <int L>
__global__ void __launch_bounds__(L / 8)
    correlate_fused(const float2* __restrict__ inputs, const float2* __restrict__ kernels,
                    const float2* __restrict__ twiddle, float* __restrict__ plane, int n_templates, std::size_t n_r,
                    float scale, int useful, int first_kept) {
  __shared__ float2 buf[padded_length<L>];
  constexpr int threads = L / 8, stride = L / 8;
  const std::size_t segment = blockIdx.x;
  const int j = threadIdx.x;
  // The segment's bins j + r·L/8: the first radix-8 pass reads exactly these, so they stay here.
  float2 x[8];
#pragma unroll
  for (int r = 0; r < 8; ++r) x[r] = __ldg(inputs + segment * L + j + r * stride);
  const int t_begin = static_cast<int>(blockIdx.y) * templates_per_block;
  const int t_end = min(t_begin + templates_per_block, n_templates);
  const std::size_t column0 = segment * static_cast<std::size_t>(useful);
  for (int t = t_begin; t < t_end; ++t) {
    // First pass (Ns = 1: no twiddles) straight from registers.
    float2 v[8];
#pragma unroll
    for (int r = 0; r < 8; ++r) v[r] = mul(x[r], __ldg(kernels + static_cast<std::size_t>(t) * L + j + r * stride));
    dft8(v);
    __syncthreads();  // the previous template's powers are read
#pragma unroll
    for (int q = 0; q < 8; ++q) buf[padded(j * 8 + q)] = v[q];
    __syncthreads();
    int Ns = 8;
    for (; Ns * 8 <= L; Ns *= 8) stockham_pass<L, 8>(buf, Ns, twiddle);
    if (Ns * 4 == L) stockham_pass<L, 4>(buf, Ns, twiddle);
    if (Ns * 2 == L) stockham_pass<L, 2>(buf, Ns, twiddle);
    float* row = plane + static_cast<std::size_t>(t) * n_r;
    for (int u = j; u < useful; u += threads) {
      const std::size_t column = column0 + static_cast<std::size_t>(u);
      if (column < n_r) {
        const float2 a = buf[padded(first_kept + u)];
        row[column] = (a.x * a.x + a.y * a.y) * scale;
      }
    }
  }
}

template <int L>
void launch_for(const float2* inputs, const float2* kernels, const float2* twiddle, float* plane, std::size_t templates,
                std::size_t segments, std::size_t n_r, float scale, const SegmentGeometry& g, cudaStream_t stream) {
  const dim3 grid(static_cast<unsigned>(segments),
                  static_cast<unsigned>((templates + templates_per_block - 1) / templates_per_block));
  correlate_fused<L><<<grid, L / 8, 0, stream>>>(inputs, kernels, twiddle, plane, static_cast<int>(templates), n_r,
                                                 scale, static_cast<int>(g.useful),
                                                 static_cast<int>(g.numbetween * g.half_width));
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
