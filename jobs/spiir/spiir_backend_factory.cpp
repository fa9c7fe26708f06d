// The spiir backend a rank runs: --backend, or on auto the CUDA backend when the rank sees a GPU.
// There is no CUDA backend yet (issue 13): a rank that resolves to cuda is refused with the reason.
#include "core/error.hpp"
#include "device.hpp"
#include "spiir_backend.hpp"

namespace astrosweep::spiir {

std::unique_ptr<SpiirBackend> make_spiir_backend(const RateBank& bank, Precision precision,
                                                 const BackendOptions& options) {
  if (options.kind == BackendKind::cuda) {
    require_cuda_build();
    throw RuntimeError("the spiir job has no CUDA backend yet", "run with --backend cpu");
  }
  // auto: the OpenMP backend on every rank until the CUDA backend exists.
  return make_spiir_backend_cpu(bank, precision, options);
}

}  // namespace astrosweep::spiir
