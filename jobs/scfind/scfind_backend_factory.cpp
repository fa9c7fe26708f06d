// The scfind backend a rank runs: --backend, or on auto the CUDA backend when the rank sees a GPU.
#include <cstdlib>
#include <new>

#include "core/error.hpp"
#include "device.hpp"
#include "scfind_backend.hpp"
#include "scfind_backend_cpu.hpp"
#ifdef ASTROSWEEP_WITH_CUDA
#include "scfind_backend_cuda.hpp"
#endif

namespace astrosweep::scfind {

HostFloats HostFloats::plain(std::size_t count) {
  if (count == 0) return {};
  void* p = std::malloc(count * sizeof(float));
  if (p == nullptr) throw std::bad_alloc();
  return {static_cast<float*>(p), count, [](void* q) noexcept { std::free(q); }};
}

std::uint64_t scfind_memory_needed(BackendKind kind, const Slab& slab) {
#ifdef ASTROSWEEP_WITH_CUDA
  if (kind == BackendKind::cuda) return scfind_backend_cuda_memory_needed(slab);
#else
  (void)kind;
#endif
  return scfind_backend_cpu_memory_needed(slab);
}

std::uint64_t scfind_original_bytes(BackendKind kind, const Slab& slab) {
#ifdef ASTROSWEEP_WITH_CUDA
  if (kind == BackendKind::cuda) return scfind_backend_cuda_original_bytes(slab);
#endif
  (void)kind;
  (void)slab;
  return 0;
}

std::unique_ptr<ScfindBackend> make_scfind_backend(const BackendOptions& options) {
  if (resolve_backend(options.kind) != BackendKind::cuda) return make_scfind_backend_cpu(options.threads);
#ifdef ASTROSWEEP_WITH_CUDA
  return make_scfind_backend_cuda(options);
#else
  require_cuda_build();
  return nullptr;
#endif
}

}  // namespace astrosweep::scfind
