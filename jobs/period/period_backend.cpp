#include "period_backend.hpp"

#include <limits>

#include "core/error.hpp"
#include "period_backend_cuda.hpp"
#include "period_backend_openmp.hpp"

namespace astrosweep::period {

#ifndef ASTROSWEEP_WITH_CUDA
int cuda_device_count() noexcept { return 0; }
std::unique_ptr<PeriodBackend> make_cuda_backend(const BackendOptions&) {
  throw RuntimeError("this astrosweep build has no CUDA backend",
                     "rebuild where nvcc is found (-DASTROSWEEP_CUDA=ON), or use --backend cpu or auto");
}
#endif

double PeriodBackend::last_kernel_seconds() const { return std::numeric_limits<double>::quiet_NaN(); }

BackendKind parse_backend(const std::string& name) {
  if (name == "auto") return BackendKind::automatic;
  if (name == "cpu") return BackendKind::cpu;
  if (name == "cuda") return BackendKind::cuda;
  throw UsageError("unknown --backend '" + name + "'", "use auto, cpu or cuda");
}

std::unique_ptr<PeriodBackend> make_period_backend(const BackendOptions& options) {
  switch (options.kind) {
    case BackendKind::cpu: return make_openmp_backend(options);
    case BackendKind::cuda: return make_cuda_backend(options);
    case BackendKind::automatic: break;
  }
  return cuda_device_count() > 0 ? make_cuda_backend(options) : make_openmp_backend(options);
}

void search_block(PeriodBackend& backend, const io::LightCurveBlock& block, const PeriodConfig& config,
                  std::span<ObjectResult> results, PeriodogramSink* sink) {
  AS_ASSERT(results.size() == block.n_objects());
  AS_ASSERT(block.counts.size() == block.n_objects());
  std::uint64_t rows = 0;
  for (auto c : block.counts) rows += c;
  AS_ASSERT(block.t.size() == rows && block.y.size() == rows);
  AS_ASSERT(block.dy.empty() || block.dy.size() == rows);
  AS_ASSERT(config.grid.n > 0 && config.grid.df > 0 && config.top_k > 0);
  backend.search(block, config, results, sink);
}

}  // namespace astrosweep::period
