#pragma once
// The scfind job's CUDA backend entry points, in plain C++: built in a CUDA build only; the job's
// backend factory (scfind_backend_factory.cpp) calls them when a rank runs on a GPU.
#include <cstdint>
#include <memory>

#include "scfind_backend.hpp"

namespace astrosweep::scfind {

/// Bytes of device memory the CUDA backend allocates to hold `slab`: the original, two working
/// copies (float) and the mask (uint8) of the held channels, two planes for the spectral hand-over
/// and small scratch for reductions and the mad's median (a few KiB).
std::uint64_t scfind_backend_cuda_memory_needed(const Slab& slab);
/// The part of it that is the slab's original (held apart for every slab by hold_originals()).
std::uint64_t scfind_backend_cuda_original_bytes(const Slab& slab);

/// The backend on device node_local_rank mod cuda_device_count() (device.hpp); throws RuntimeError
/// without one. load() throws RuntimeError when the slab does not fit the device memory budget
/// (device_memory_budget, or 85% of the free memory split between the node's ranks on that GPU).
/// Conventions it shares with the OpenMP backend: the values handed over through SpectralCarry
/// are the raw running sums (before the blanks are restored); an empty row_blocks() means one
/// block of all rows; restoring a blank writes the original value back (its NaN bits).
std::unique_ptr<ScfindBackend> make_scfind_backend_cuda(const BackendOptions& options);

}  // namespace astrosweep::scfind
