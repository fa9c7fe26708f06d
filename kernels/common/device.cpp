#include "device.hpp"

#include "cuda_memory.hpp"

namespace astrosweep {

int cuda_device_count() noexcept { return cuda::device_count(); }

BackendKind resolve_backend(BackendKind kind) noexcept {
  if (kind != BackendKind::automatic) return kind;
  return cuda_device_count() > 0 ? BackendKind::cuda : BackendKind::cpu;
}

void require_cuda_build() {}

}  // namespace astrosweep
