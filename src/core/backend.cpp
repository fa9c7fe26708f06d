#include "core/backend.hpp"

#include "core/error.hpp"

namespace astrosweep {

BackendKind parse_backend(const std::string& name) {
  if (name == "auto") return BackendKind::automatic;
  if (name == "cpu") return BackendKind::cpu;
  if (name == "cuda") return BackendKind::cuda;
  throw UsageError("unknown --backend '" + name + "'", "use auto, cpu or cuda");
}

const char* to_string(BackendKind kind) noexcept {
  switch (kind) {
    case BackendKind::cpu: return "cpu";
    case BackendKind::cuda: return "cuda";
    case BackendKind::automatic: break;
  }
  return "auto";
}

}  // namespace astrosweep
