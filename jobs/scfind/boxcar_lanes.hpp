#pragma once
// SoFiA-2's boxcar running sum (statistics_flt.c: filter_boxcar_1d_flt) applied to many lines at
// once. A buffer holds W lines side by side ("lanes"): position p of lane w is at
// buf[(p + radius) · W + w] for p in [−radius, n + radius], i.e. n + 2·radius + 1 rows, the rows
// outside [0, n) holding zeros (the zero padding at the ends of a line). Each lane sees exactly
// SoFiA-2's float operations in its order, so results are bit-identical; the compiler vectorises
// across lanes. Compile without FP contraction (-ffp-contract=off): a fused multiply-add changes
// the rounding.

#include <cstddef>

namespace astrosweep::scfind {

/// Rows a lane buffer for lines of n positions needs.
constexpr std::size_t lane_rows(std::size_t n, std::size_t radius) noexcept { return n + 2 * radius + 1; }

/// Float reciprocal of the boxcar width as SoFiA-2 computes it: 1.0 / width in double, rounded.
inline float boxcar_inverse_width(std::size_t radius) noexcept {
  return static_cast<float>(1.0 / static_cast<double>(2 * radius + 1));
}

/// Without `above`: out[n−1] = (in[n−1+r] + ... + in[n−1−r], summed from the top) · inv, as at
/// the end of a line. With `above` (W values): the running sum continues from out[n] = above, as
/// in a line that goes on beyond position n−1 (a slab below another). Then going down
/// out[i] = out[i+1] + (in[i−r] − in[i+r+1]) · inv. Only rows of positions [0, n) of `out` are
/// written (and row n when `above` is given).
template <std::size_t W>
void boxcar_lanes(const float* in, float* out, std::size_t n, std::size_t radius, float inv,
                  const float* above = nullptr) {
  if (n == 0) return;
  const std::size_t r = radius;
  std::size_t i = n - 1;  // the position the recursion starts at
  if (above == nullptr) {
    float* last = out + (n - 1 + r) * W;
    for (std::size_t w = 0; w < W; ++w) last[w] = 0.0F;
    for (std::size_t j = n + 2 * r; j-- > n - 1;) {  // padded rows of positions n−1+r down to n−1−r
      const float* src = in + j * W;
      for (std::size_t w = 0; w < W; ++w) last[w] += src[w];
    }
    for (std::size_t w = 0; w < W; ++w) last[w] *= inv;
  } else {
    float* top = out + (n + r) * W;
    for (std::size_t w = 0; w < W; ++w) top[w] = above[w];
    i = n;
  }
  while (i-- > 0) {
    const float* lo = in + i * W;                // padded row of position i − r
    const float* hi = in + (i + 2 * r + 1) * W;  // padded row of position i + r + 1
    const float* next = out + (i + 1 + r) * W;
    float* cur = out + (i + r) * W;
    for (std::size_t w = 0; w < W; ++w) cur[w] = next[w] + (lo[w] - hi[w]) * inv;
  }
}

}  // namespace astrosweep::scfind
