// The fdas backend a rank runs: --backend, or on auto the CUDA backend when the rank sees a GPU.
#include "core/error.hpp"
#include "device.hpp"
#include "fdas_backend.hpp"

namespace astrosweep::fdas {

std::unique_ptr<FdasBackend> make_fdas_backend(const TemplateBank& bank, const BackendOptions& options) {
  if (resolve_backend(options.kind) != BackendKind::cuda) return make_fdas_backend_cpu(bank, options);
  require_cuda_build();  // the CUDA backend is wired in by its own branch (fdas-cuda)
  return nullptr;
}

}  // namespace astrosweep::fdas
