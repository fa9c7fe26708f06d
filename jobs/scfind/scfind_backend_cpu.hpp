#pragma once
#include <memory>

#include "scfind_backend.hpp"

namespace astrosweep::scfind {

/// The host backend: SoFiA-2's float operations in its order, vectorised across lines and run on
/// OpenMP threads; holds the original slab, one working copy and the mask (about twice the slab).
std::unique_ptr<ScfindBackend> make_scfind_backend_cpu(int threads);
std::uint64_t scfind_backend_cpu_memory_needed(const Slab& slab);

}  // namespace astrosweep::scfind
