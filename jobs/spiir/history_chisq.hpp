#pragma once
// The autocorrelation χ² of one read (autocorrelation_chisq.cpp's one-read form) over samples the
// caller loads, shared by the CUDA history search's kernel (kernels/spiir/coherent_history.cu) and
// the host, so that the host checks the kernel's arithmetic: plain C++, __host__ __device__ under
// nvcc. Bit for bit autocorrelation_chisq: the same double operations in the same order, each
// rounded alone (__dmul_rn, __dadd_rn, __dsub_rn on the device, never contracted into an FMA; the
// CPU build targets x86-64 without FMA): std::complex<double>'s product (a + ib)(c + id) is
// (ac − bd) + i(ad + bc) and std::norm is re² + im², each rounded as written (a NaN product, where
// the C library's __muldc3 recovers infinities, aside).
#include "core/host_device.hpp"
#include "core/rounded.hpp"

namespace astrosweep::spiir::history_chisq {

using rounded::add;
using rounded::mul;
using rounded::sub;

struct Value {
  double re, im;
};

/// χ² = Σ_{s=−K}^{K} |ζ(s) − ζ(0) R(s)|² / norm with ζ(s) = load(s) (s in −K … K, K = `half`) and
/// R(−K … K) as (re, im) pairs in r[0 … 4K + 1].
template <class Load>
AS_HOST_DEVICE inline double chisq(const Load& load, const double* r, int half, double norm) {
  const Value peak = load(0);
  double num = 0;
  for (int s = -half; s <= half; ++s) {
    const Value z = load(s);
    const int at = 2 * (s + half);  // R(s)'s pair
    const double rr = r[at], ri = r[at + 1];
    const double pr = sub(mul(peak.re, rr), mul(peak.im, ri));
    const double pi = add(mul(peak.re, ri), mul(peak.im, rr));
    const double dr = sub(z.re, pr), di = sub(z.im, pi);
    num = add(num, add(mul(dr, dr), mul(di, di)));
  }
  return num / norm;  // IEEE division, correctly rounded on both
}

}  // namespace astrosweep::spiir::history_chisq
