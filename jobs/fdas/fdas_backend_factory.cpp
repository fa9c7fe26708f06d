// The fdas backend a rank runs: --backend, or on auto the CUDA backend when the rank sees a GPU.
#include "core/error.hpp"
#include "device.hpp"
#include "fdas_backend.hpp"
#ifdef ASTROSWEEP_WITH_CUDA
#include "fdas_backend_cuda.hpp"
#endif

namespace astrosweep::fdas {

std::unique_ptr<FdasBackend> make_fdas_backend(const TemplateBank& bank, const BackendOptions& options) {
  if (resolve_backend(options.kind) != BackendKind::cuda) return make_fdas_backend_cpu(bank, options);
#ifdef ASTROSWEEP_WITH_CUDA
  return make_fdas_backend_cuda(bank, options);
#else
  require_cuda_build();
  return nullptr;
#endif
}

}  // namespace astrosweep::fdas
