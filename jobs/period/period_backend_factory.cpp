// The period backend a rank runs: --backend, or on auto the CUDA backend when the rank sees a GPU.
#include "core/error.hpp"
#include "device.hpp"
#include "period_backend.hpp"
#include "period_backend_cpu.hpp"
#ifdef ASTROSWEEP_WITH_CUDA
#include "period_backend_cuda.hpp"
#endif

namespace astrosweep::period {

std::unique_ptr<PeriodBackend> make_period_backend(const BackendOptions& options) {
  if (resolve_backend(options.kind) != BackendKind::cuda) return make_period_backend_cpu(options);
#ifdef ASTROSWEEP_WITH_CUDA
  return make_period_backend_cuda(options);
#else
  require_cuda_build();
  return nullptr;
#endif
}

}  // namespace astrosweep::period
