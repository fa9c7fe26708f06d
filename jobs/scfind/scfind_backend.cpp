#include "scfind_backend.hpp"

#include "core/error.hpp"
#include "scfind_backend_cuda.hpp"
#include "scfind_backend_openmp.hpp"

namespace astrosweep::scfind {

ScfindBackendKind parse_scfind_backend(const std::string& name) {
  if (name == "auto") return ScfindBackendKind::automatic;
  if (name == "cpu") return ScfindBackendKind::cpu;
  if (name == "cuda") return ScfindBackendKind::cuda;
  throw UsageError("unknown backend '" + name + "'", "--backend is one of auto, cpu, cuda");
}

std::uint64_t scfind_memory_needed(ScfindBackendKind kind, const Slab& slab) {
  return kind == ScfindBackendKind::cuda ? cuda_scfind_memory_needed(slab) : openmp_scfind_memory_needed(slab);
}

ScfindBackendKind resolve_scfind_backend(ScfindBackendKind kind) {
  if (kind != ScfindBackendKind::automatic) return kind;
  return cuda_scfind_device_count() > 0 ? ScfindBackendKind::cuda : ScfindBackendKind::cpu;
}

std::unique_ptr<ScfindBackend> make_scfind_backend(const ScfindBackendOptions& options) {
  if (resolve_scfind_backend(options.kind) == ScfindBackendKind::cuda) return make_cuda_scfind_backend(options);
  return make_openmp_scfind_backend(options.threads);
}

#ifndef ASTROSWEEP_WITH_CUDA
std::unique_ptr<ScfindBackend> make_cuda_scfind_backend(const ScfindBackendOptions&) {
  throw RuntimeError("this astrosweep was built without the CUDA backend (no CUDA backend)",
                     "use --backend cpu, or rebuild on a machine with the CUDA toolkit");
}
std::uint64_t cuda_scfind_memory_needed(const Slab& slab) {
  return static_cast<std::uint64_t>(slab.held_voxels()) * (3 * sizeof(float) + 1);
}
int cuda_scfind_device_count() noexcept { return 0; }
#endif

}  // namespace astrosweep::scfind
