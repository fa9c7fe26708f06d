#pragma once
// Which GPUs a rank can use, for every job's backend factory: plain C++ (no CUDA header), answered
// by the CUDA runtime in a CUDA build (device.cpp) and as "none" otherwise (device_none.cpp).

#include "core/backend.hpp"

namespace astrosweep {

/// CUDA devices this rank can use; 0 without a driver, a device, or a CUDA build. Never throws.
int cuda_device_count() noexcept;

/// The kind a rank runs: `kind` itself, or for automatic cuda when this rank sees a GPU, else cpu.
BackendKind resolve_backend(BackendKind kind) noexcept;

/// Throws RuntimeError when this build has no CUDA backend (`--backend cuda` in a CPU-only build).
void require_cuda_build();

}  // namespace astrosweep
