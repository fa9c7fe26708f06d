#pragma once
// The CUDA backend's entry points (defined in kernels/ when CUDA is built, stubs otherwise).
// Plain C++: the job never sees device code.

#include <cstdint>
#include <memory>

#include "scfind_backend.hpp"

namespace astrosweep::scfind {

std::unique_ptr<ScfindBackend> make_cuda_scfind_backend(const ScfindBackendOptions& options);
std::uint64_t cuda_scfind_memory_needed(const Slab& slab);
int cuda_scfind_device_count() noexcept;

}  // namespace astrosweep::scfind
