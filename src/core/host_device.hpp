#pragma once
// AS_HOST_DEVICE marks a function that the CPU code and the CUDA kernels share (one definition of
// the arithmetic both must do alike): __host__ __device__ under nvcc, nothing for the C++ compiler.

#ifndef AS_HOST_DEVICE
#if defined(__CUDACC__)
#define AS_HOST_DEVICE __host__ __device__
#else
#define AS_HOST_DEVICE
#endif
#endif
