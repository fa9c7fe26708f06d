// The shared-memory FFT of the fdas correlation (spec §4, the seed's method), shared by the fused
// correlation kernel and the FFT micro-benchmark (fft_benchmark.cu): inverse DFTs (sign +) of 2, 4,
// 8 and 16 points in registers, and Stockham autosort passes over a padded shared-memory buffer that
// holds NB transforms side by side (one barrier serves them all). Device code only: each .cu file
// that includes it gets its own copy (an anonymous namespace; no relocatable device code here).
#pragma once

namespace astrosweep::fdas::kernels {
namespace {  // NOLINT(cert-dcl59-cpp,google-build-namespaces): per translation unit on purpose (above)

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

// Where a pass's twiddle e^{+2πi rk/(Ns·R)} (r = 1 … R − 1, k < Ns) sits in the table
// (shared_memory_fft_twiddles): each pass's own block, r-major, so a warp's lanes (consecutive k)
// read consecutive entries. The passes before the one of Ns points were all of radix P, so its
// block starts at Σ (P − 1)·P^i over them = Ns − P.
__device__ __forceinline__ int pass_twiddle(int Ns, int P, int r, int k) { return (Ns - P) + (r - 1) * Ns + k; }

// The reading half of a Stockham pass of radix R over the L points in `buf`, sub-transforms of Ns
// points so far: item j (of L/R) reads j + r·L/R, is twiddled by e^{+2πi rk/(Ns·R)} (k = j mod Ns;
// the twiddles at pass_twiddle) and transformed into v; pass_output gives where its outputs go.
template <int L, int P, int R, int NB>
__device__ __forceinline__ void read_pass(const float2* buf, int Ns, const float2* __restrict__ twiddle,
                                          float2 (&v)[NB][P / R][R]) {
  constexpr int threads = L / P, items = P / R;
#pragma unroll
  for (int it = 0; it < items; ++it) {
    const int j = static_cast<int>(threadIdx.x) + it * threads;
    const int k = j & (Ns - 1);
#pragma unroll
    for (int nb = 0; nb < NB; ++nb) {
#pragma unroll
      for (int r = 0; r < R; ++r) v[nb][it][r] = buf[nb * padded_length<L> + padded(j + r * (L / R))];
#pragma unroll
      for (int r = 1; r < R; ++r) v[nb][it][r] = mul(v[nb][it][r], __ldg(twiddle + pass_twiddle(Ns, P, r, k)));
      dft<R>(v[nb][it]);
    }
  }
}

// Where output q of a thread's item `it` of a pass of radix R (read_pass) goes: (j/Ns)·Ns·R + k + q·Ns.
template <int L, int P, int R>
__device__ __forceinline__ int pass_output(int it, int Ns, int q) {
  const int j = static_cast<int>(threadIdx.x) + it * (L / P);
  const int k = j & (Ns - 1);
  return (j - k) * R + k + q * Ns;
}

// One whole Stockham pass: read_pass, then the outputs written back. Every thread holds its items
// in registers between the reads and the writes, so one buffer serves, with a barrier on each side
// of the writes.
template <int L, int P, int R, int NB>
__device__ __forceinline__ void stockham_pass(float2* buf, int Ns, const float2* __restrict__ twiddle) {
  float2 v[NB][P / R][R];
  read_pass<L, P, R, NB>(buf, Ns, twiddle, v);
  __syncthreads();
#pragma unroll
  for (int it = 0; it < P / R; ++it)
#pragma unroll
    for (int nb = 0; nb < NB; ++nb)
#pragma unroll
      for (int q = 0; q < R; ++q) buf[nb * padded_length<L> + padded(pass_output<L, P, R>(it, Ns, q))] = v[nb][it][q];
  __syncthreads();
}

// The radix of the last pass of an L-point transform whose first pass has radix P: P while whole
// radix-P passes reach L, else the 8, 4 or 2 left.
template <int L, int P>
__host__ __device__ constexpr int last_radix() {
  int ns = P;
  while (ns * P <= L) ns *= P;
  return ns == L ? P : L / ns;
}

// An L-point transform whose first pass (Ns = 1, P points a thread, no twiddles) each thread ran in
// registers (`v`, as its loads came in), up to its last pass: those points into the buffer, then
// every Stockham pass of radix P but the last pass. Returns that last pass's Ns (it has radix
// last_radix). The caller has made sure no thread still reads the buffer.
template <int L, int P, int NB>
__device__ __forceinline__ int transform_but_last_pass(const float2 (&v)[NB][P], float2* buf,
                                                       const float2* __restrict__ twiddle) {
  constexpr int R = last_radix<L, P>();
#pragma unroll
  for (int nb = 0; nb < NB; ++nb)
#pragma unroll
    for (int q = 0; q < P; ++q) buf[nb * padded_length<L> + padded(static_cast<int>(threadIdx.x) * P + q)] = v[nb][q];
  __syncthreads();
  int Ns = P;
  for (; Ns * R < L; Ns *= P) stockham_pass<L, P, P, NB>(buf, Ns, twiddle);
  return Ns;
}

// The rest of the transform (transform_but_last_pass), the last pass written back to the buffer.
template <int L, int P, int NB>
__device__ __forceinline__ void finish_transform(const float2 (&v)[NB][P], float2* buf,
                                                 const float2* __restrict__ twiddle) {
  const int Ns = transform_but_last_pass<L, P, NB>(v, buf, twiddle);
  stockham_pass<L, P, last_radix<L, P>(), NB>(buf, Ns, twiddle);
}

// As finish_transform, but the last pass's outputs are not written back: each thread reads its
// items, twiddles and transforms them in registers and hands every output to
// emit(nb, point, value), point < L of transform nb. Every thread calls emit the same number of
// times, in the same order (so emit may hold a warp-wide vote). A thread's calls for one (item,
// q) are consecutive points across the warp's lanes. This leaves the buffer being read (a barrier
// before the next writes).
template <int L, int P, int NB, typename Emit>
__device__ __forceinline__ void finish_transform_emitting(const float2 (&v)[NB][P], float2* buf,
                                                          const float2* __restrict__ twiddle, Emit&& emit) {
  constexpr int R = last_radix<L, P>();
  const int Ns = transform_but_last_pass<L, P, NB>(v, buf, twiddle);
  float2 w[NB][P / R][R];
  read_pass<L, P, R, NB>(buf, Ns, twiddle, w);
#pragma unroll
  for (int it = 0; it < P / R; ++it)
#pragma unroll
    for (int nb = 0; nb < NB; ++nb)
#pragma unroll
      for (int q = 0; q < R; ++q) emit(nb, pass_output<L, P, R>(it, Ns, q), w[nb][it][q]);
}

}  // namespace
}  // namespace astrosweep::fdas::kernels
