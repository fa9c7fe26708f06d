#pragma once
// The float arithmetic of the dereddening (spectrum.cpp) and of the correlator's segment
// normalisation (correlation.cpp), one operation at a time, shared by the CPU code and (through
// AS_HOST_DEVICE) the CUDA kernels (kernels/fdas/deredden.cu), so that a spectrum dereddened on
// either is the same bit for bit. On the device every product, sum and quotient is an explicitly
// rounded intrinsic: nvcc would otherwise contract a product and a sum into one FMA (one rounding
// instead of two). On the host the plain operators are those roundings: x86-64 without -mfma (the
// builds here) has no FMA instruction to contract into.

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "core/host_device.hpp"
#include "core/rounded.hpp"

namespace astrosweep::fdas::arith {

/// ln 2 rounded to double, as std::numbers::ln2 (spectrum.cpp checks they agree; .cu files are not
/// compiled as C++20, so <numbers> is not theirs).
inline constexpr double ln2 = 0x1.62e42fefa39efp-1;

using rounded::add;
using rounded::div;
using rounded::mul;
using rounded::sub;

/// |F|² as std::norm computes it: re·re + im·im, each product rounded.
AS_HOST_DEVICE inline float bin_power(float re, float im) { return add(mul(re, re), mul(im, im)); }

/// The rank of the lower middle value of n values ((n − 1) / 2).
AS_HOST_DEVICE inline std::size_t median_rank(std::size_t n) { return n == 0 ? 0 : (n - 1) / 2; }

/// The rank of the upper middle value of n (n / 2): median_rank's own for odd n.
AS_HOST_DEVICE inline std::size_t upper_median_rank(std::size_t n) { return n / 2; }

/// A float's key in an unsigned order that is the floats' own (−∞ … −0 < +0 … +∞), every NaN
/// above them all and below padding_key: the device finds a block's middle values by sorting keys
/// (a NaN then holds no rank below the count of numbers, as std::nth_element's ordering of the
/// numbers alone would have it).
AS_HOST_DEVICE inline std::uint32_t order_key(float v) {
  if (v != v) return 0xFFFFFFFEU;
#if defined(__CUDA_ARCH__)
  const std::uint32_t u = __float_as_uint(v);
#else
  std::uint32_t u = 0;
  std::memcpy(&u, &v, sizeof u);
#endif
  return (u & 0x80000000U) != 0 ? ~u : (u | 0x80000000U);
}

/// The float of an order_key (a NaN for the NaN key and for padding_key).
AS_HOST_DEVICE inline float from_order_key(std::uint32_t k) {
  const std::uint32_t u = (k & 0x80000000U) != 0 ? (k & 0x7FFFFFFFU) : ~k;
#if defined(__CUDA_ARCH__)
  return __uint_as_float(u);
#else
  float v = 0;
  std::memcpy(&v, &u, sizeof v);
  return v;
#endif
}

/// The key above every value's: a block's keys padded with it to a power of two.
inline constexpr std::uint32_t padding_key = 0xFFFFFFFFU;

/// Pair t (< n/2) of the bitonic sorting network's stage (size, stride) on n keys, n a power of
/// two: run for size = 2, 4, …, n and within each for stride = size/2, …, 1 (every pair of a
/// stage independent of the others: the device gives each to a thread, with a barrier between
/// stages), the keys end ascending.
AS_HOST_DEVICE inline void bitonic_exchange(std::uint32_t* keys, std::uint32_t size, std::uint32_t stride,
                                            std::uint32_t t) {
  const std::uint32_t i = 2 * t - (t & (stride - 1)), j = i + stride;
  const std::uint32_t a = keys[i], b = keys[j];
  if ((a > b) == ((i & size) == 0)) {
    keys[i] = b;
    keys[j] = a;
  }
}

/// The power of two a block of n ≥ 1 keys is padded to.
AS_HOST_DEVICE inline std::uint32_t padded_count(std::uint32_t n) {
  std::uint32_t p = 1;
  while (p < n) p <<= 1;
  return p;
}

/// PRESTO's median from the two middle values (lower = upper for odd n): half their float sum.
/// PRESTO (3ae6229) takes its median() for the dereddening's blocks (misc_utils.c, dered_engine)
/// and for each correlation segment's normalisation over all of the segment's fftlen / numbetween
/// amplitudes, the zeros read before bin 0 or past the last bin included (accel_utils.c,
/// subharm_fderivs_vol); median() is GSL's gsl_stats_float_median since PRESTO 394bc81 (2026-07-04), which
/// for even n returns 0.5 · (a + b) with the sum a + b taken in float (two powers near FLT_MAX
/// give inf there too), as a double that median() rounds back to float: halving is exact, so the
/// value is the float sum halved.
AS_HOST_DEVICE inline float middle_mean(float lower, float upper) { return mul(add(lower, upper), 0.5F); }

/// The dereddening level of a block of median `median`: median / ln 2 in double, rounded to float.
AS_HOST_DEVICE inline float level_from_median(float median) {
#if defined(__CUDA_ARCH__)
  return __double2float_rn(__ddiv_rn(static_cast<double>(median), ln2));
#else
  return static_cast<float>(static_cast<double>(median) / ln2);
#endif
}

/// The slope between the middles of blocks of levels m_old, m_new and lengths previous, current.
AS_HOST_DEVICE inline float ramp_slope(float m_old, float m_new, std::size_t previous, std::size_t current) {
  return div(sub(m_new, m_old), mul(0.5F, static_cast<float>(previous + current)));
}

/// The level i bins into a ramp that starts at `level` with `slope`.
AS_HOST_DEVICE inline float ramp_level(float level, float slope, std::size_t i) {
  return add(level, mul(slope, static_cast<float>(i)));
}

/// What a bin of local level `level` (> 0) is multiplied by: 1 / √level in float.
AS_HOST_DEVICE inline float dereddening_factor(float level) {
#if defined(__CUDA_ARCH__)
  return __fdiv_rn(1.0F, __fsqrt_rn(level));
#else
  return 1.0F / std::sqrt(level);
#endif
}

/// A segment's normalisation from the median of its powers: 1 / √(median / ln 2) in double,
/// rounded to float; 1 for a median that is not positive.
AS_HOST_DEVICE inline float segment_norm_from_median(float median) {
  if (!(median > 0)) return 1.0F;
#if defined(__CUDA_ARCH__)
  return __double2float_rn(__ddiv_rn(1.0, __dsqrt_rn(__ddiv_rn(static_cast<double>(median), ln2))));
#else
  return static_cast<float>(1.0 / std::sqrt(static_cast<double>(median) / ln2));
#endif
}

}  // namespace astrosweep::fdas::arith
