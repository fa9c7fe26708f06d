#pragma once
// Arithmetic rounded one operation at a time, for the rules the CPU code and the CUDA kernels share
// bit for bit (fdas's medians and ramps, spiir's interpolation, sky search and χ²): on the device
// the _rn intrinsics, which nvcc never contracts into a fused multiply-add; on the host the plain
// operators (the CPU builds target x86-64 without FMA and do not contract). Overloaded for float
// and double only, so that a call mixing the two does not compile rather than round differently.
// Plain C++17: .cu files include it.
#include "core/host_device.hpp"

namespace astrosweep::rounded {

AS_HOST_DEVICE inline float add(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fadd_rn(a, b);
#else
  return a + b;
#endif
}

AS_HOST_DEVICE inline double add(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dadd_rn(a, b);
#else
  return a + b;
#endif
}

AS_HOST_DEVICE inline float sub(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fsub_rn(a, b);
#else
  return a - b;
#endif
}

AS_HOST_DEVICE inline double sub(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dsub_rn(a, b);
#else
  return a - b;
#endif
}

AS_HOST_DEVICE inline float mul(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fmul_rn(a, b);
#else
  return a * b;
#endif
}

AS_HOST_DEVICE inline double mul(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dmul_rn(a, b);
#else
  return a * b;
#endif
}

AS_HOST_DEVICE inline float div(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fdiv_rn(a, b);
#else
  return a / b;
#endif
}

AS_HOST_DEVICE inline double div(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __ddiv_rn(a, b);
#else
  return a / b;
#endif
}

}  // namespace astrosweep::rounded
