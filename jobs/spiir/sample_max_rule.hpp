#pragma once
// The rule of the per-sample maximum over templates (sample_max.hpp), alone: plain C++ without the
// standard library's newer headers, so the CUDA kernel (kernels/spiir/spiir_sample_max.cu, compiled
// as C++17) and the plain loop (sample_max.cpp) share it; __host__ __device__ under nvcc.
//
// Bit for bit the host's std::norm: |z|² = re·re + im·im in double, each product and the sum
// rounded on its own (__dmul_rn/__dadd_rn on the device, which nvcc never contracts into an FMA;
// the CPU build targets x86-64 without FMA, in ISO C++ mode, so GCC does not contract either).
// So the device's winner, |z|² and z are those of the host's loop over the same SNRs.
#include <cstdint>

#include "core/host_device.hpp"

namespace astrosweep::spiir::sample_max_rule {

/// |z|² rounded as std::norm rounds it on the host.
AS_HOST_DEVICE inline double power(double re, double im) {
#if defined(__CUDA_ARCH__)
  return __dadd_rn(__dmul_rn(re, re), __dmul_rn(im, im));
#else
  return re * re + im * im;
#endif
}

/// The best so far; {−1, 0} before any template, which every |z|² ≥ 0 beats and NaN never does.
struct Best {
  double power = -1;
  std::int32_t index = 0;
};

/// Takes template `index` of |z|² `p` where it beats `best`: larger, or equal with a lower index.
/// An order (|z|² down, index up), so partial maxima over any split of the templates combine,
/// in any order, to the sequential loop's choice.
AS_HOST_DEVICE inline void consider(Best& best, double p, std::int32_t index) {
  if (p > best.power || (p == best.power && index < best.index)) {
    best.power = p;
    best.index = index;
  }
}

}  // namespace astrosweep::spiir::sample_max_rule
