#pragma once
// The CUDA scfind backend's entry points, in plain C++: defined in kernels/scfind_backend_cuda.cpp
// when astrosweep is built with CUDA, and as "not available" in scfind_backend.cpp otherwise, so
// the job links either way.

#include <cstdint>
#include <memory>

#include "scfind_backend.hpp"

namespace astrosweep::scfind {

/// CUDA devices this rank can use; 0 without a driver, a device, or a CUDA build.
int cuda_scfind_device_count() noexcept;

/// Bytes of device memory the CUDA backend allocates to hold `slab`: the original, two working
/// copies (float) and the mask (uint8) of the held channels, two planes for the spectral hand-over
/// and small scratch for reductions and the mad's median (a few KiB).
std::uint64_t cuda_scfind_memory_needed(const Slab& slab);

/// The backend on device node_local_rank mod cuda_scfind_device_count(); throws RuntimeError
/// without one. load() throws RuntimeError when the slab does not fit the device memory budget
/// (device_memory_budget, or 85% of the free memory split between the node's ranks on that GPU).
/// Conventions it shares with the OpenMP backend: the values handed over through SpectralCarry
/// are the raw running sums (before the blanks are restored); an empty row_blocks() means one
/// block of all rows; restoring a blank writes the original value back (its NaN bits).
std::unique_ptr<ScfindBackend> make_cuda_scfind_backend(const ScfindBackendOptions& options);

}  // namespace astrosweep::scfind
