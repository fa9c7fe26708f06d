#include "period_backend.hpp"

#include "core/error.hpp"
#include "period_backend_openmp.hpp"

namespace astrosweep::period {

BackendKind parse_backend(const std::string& name) {
  if (name == "auto") return BackendKind::automatic;
  if (name == "cpu") return BackendKind::cpu;
  if (name == "cuda") return BackendKind::cuda;
  throw UsageError("unknown --backend '" + name + "'", "use auto, cpu or cuda");
}

std::unique_ptr<PeriodBackend> make_period_backend(const BackendOptions& options) {
  // The CUDA backend arrives with its own issue; until then `auto` is the OpenMP backend.
  AS_EXPECTS(options.kind != BackendKind::cuda, RuntimeError, "this astrosweep build has no CUDA backend",
             "use --backend cpu or auto");
  return make_openmp_backend(options);
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
