// The spiir backend a rank runs, for the filtering (single- and multi-rate banks), the SNR history
// and the coherent stage's sky search: --backend, or on auto the CUDA backend when the rank sees a GPU.
#include "coherent_triggers.hpp"
#include "core/error.hpp"
#include "device.hpp"
#include "multirate_filter.hpp"
#include "snr_history.hpp"
#include "spiir_backend.hpp"
#ifdef ASTROSWEEP_WITH_CUDA
#include "coherent_sky_cuda.hpp"
#include "multirate_backend_cuda.hpp"
#include "snr_history_cuda.hpp"
#include "spiir_backend_cuda.hpp"
#endif

namespace astrosweep::spiir {

std::unique_ptr<SpiirBackend> make_spiir_backend(const RateBank& bank, Precision precision,
                                                 const BackendOptions& options) {
  if (resolve_backend(options.kind) != BackendKind::cuda) return make_spiir_backend_cpu(bank, precision, options);
#ifdef ASTROSWEEP_WITH_CUDA
  return make_spiir_backend_cuda(bank, precision, options);
#else
  require_cuda_build();
  return nullptr;
#endif
}

std::unique_ptr<MultirateBackend> make_multirate_backend(const SpiirBank& bank, Precision precision,
                                                         const BackendOptions& options) {
  if (resolve_backend(options.kind) != BackendKind::cuda)
    return std::make_unique<MultirateStream>(
        bank, [&](const RateBank& r) { return make_spiir_backend_cpu(r, precision, options); });
#ifdef ASTROSWEEP_WITH_CUDA
  return make_multirate_backend_cuda(bank, precision, options);
#else
  require_cuda_build();
  return nullptr;
#endif
}

std::unique_ptr<SkySearchEngine> make_sky_search(const BackendOptions& options) {
  if (resolve_backend(options.kind) != BackendKind::cuda) return nullptr;
#ifdef ASTROSWEEP_WITH_CUDA
  return make_sky_search_cuda(options);
#else
  require_cuda_build();
  return nullptr;
#endif
}

std::unique_ptr<SnrHistory> make_snr_history(std::size_t n_templates, std::size_t length, Precision precision,
                                             const BackendOptions& options) {
  if (resolve_backend(options.kind) != BackendKind::cuda) return make_snr_history_host(n_templates, length, precision);
#ifdef ASTROSWEEP_WITH_CUDA
  return make_snr_history_cuda(n_templates, length, precision, options);
#else
  require_cuda_build();
  return nullptr;
#endif
}

}  // namespace astrosweep::spiir
