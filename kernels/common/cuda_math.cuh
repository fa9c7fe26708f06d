#pragma once
// Small device helpers shared by the period kernels.

#include <cuda_runtime.h>

#include <type_traits>

namespace astrosweep::period::kernels {

/// (cos, sin) pairs in one 8- or 16-byte load.
template <class T>
using Vec2 = std::conditional_t<sizeof(T) == 4, float2, double2>;

/// exp(2 pi i x) for x in cycles, range-reduced to [0, 1) first: exact at MJD/BJD-scale phases
/// and the argument sincospi is most accurate for.
__device__ inline double2 cis_cycles(double x) {
  double s, c;
  sincospi(2.0 * (x - floor(x)), &s, &c);
  return {c, s};
}

}  // namespace astrosweep::period::kernels
