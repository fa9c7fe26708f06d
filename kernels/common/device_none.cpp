// device.hpp in a build without CUDA: no GPU, and `--backend cuda` explains why.
#include "core/error.hpp"
#include "device.hpp"

namespace astrosweep {

int cuda_device_count() noexcept { return 0; }

BackendKind resolve_backend(BackendKind kind) noexcept {
  return kind == BackendKind::automatic ? BackendKind::cpu : kind;
}

void require_cuda_build() {
  throw RuntimeError("this astrosweep build has no CUDA backend",
                     "rebuild where nvcc is found (-DASTROSWEEP_CUDA=ON), or use --backend cpu or auto");
}

}  // namespace astrosweep
