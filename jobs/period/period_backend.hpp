#pragma once
// The seam between the period job and its compute backends. The job hands a backend one block of
// light curves (a work unit); the backend returns one result per object and streams periodogram
// rows to a sink when the user asked for them. Backends are chosen per rank at run time; this
// header is plain C++ (no CUDA), so the job never sees device code.

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "io/light_curves.hpp"
#include "period_config.hpp"

namespace astrosweep::period {

struct ObjectResult {
  std::int64_t id = 0;
  std::uint32_t status = status_ok;
  std::uint32_t n_points = 0;  ///< points used
  std::uint32_t n_nonfinite = 0;
  std::uint32_t n_bad_errors = 0;
  std::uint32_t n_flagged = 0;
  double t_ref = 0;
  double baseline = 0;
  double best_frequency = 0;
  double best_period = 0;
  double best_power = 0;
  double fap = 0;
  std::vector<double> peak_frequency;  ///< top_k entries, NaN-padded
  std::vector<double> peak_power;
};

/// Receives periodogram values; always called from the thread that called search().
class PeriodogramSink {
 public:
  virtual ~PeriodogramSink() = default;
  /// Values of block object `object` at grid indices [k0, k0 + n), in the run's precision.
  virtual void write(std::uint64_t object, std::uint64_t k0, std::uint64_t n, const void* values) = 0;
};

class PeriodBackend {
 public:
  virtual ~PeriodBackend() = default;
  [[nodiscard]] virtual std::string describe() const = 0;
  /// Searches every object of `block`: results[i] belongs to block object i.
  virtual void search(const io::LightCurveBlock& block, const PeriodConfig& config, std::span<ObjectResult> results,
                      PeriodogramSink* sink) = 0;
  /// Resources used so far (device memory, kernel time), for the per-rank summary; may be empty.
  [[nodiscard]] virtual std::string usage() const { return {}; }
  /// Seconds the device spent in kernels during the last search; NaN for host backends.
  [[nodiscard]] virtual double last_kernel_seconds() const;
  /// Where the host's time went in the last search, for benchmarks; may be empty.
  [[nodiscard]] virtual std::string last_host_profile() const { return {}; }
};

enum class BackendKind { automatic, cpu, cuda };
BackendKind parse_backend(const std::string& name);

struct BackendOptions {
  BackendKind kind = BackendKind::automatic;
  int threads = 0;                           ///< OpenMP threads; 0: OMP_NUM_THREADS or all cores
  std::uint64_t memory_budget = 1ULL << 30;  ///< bytes of periodogram buffers a rank may hold
  int node_local_rank = 0;                   ///< picks the GPU: node_local_rank mod device count
  int node_local_size = 1;                   ///< ranks on this node, which share its GPUs
  std::uint64_t device_memory_budget = 0;    ///< bytes of GPU memory a rank may use; 0: its share of free
};

std::unique_ptr<PeriodBackend> make_period_backend(const BackendOptions& options);

/// Validates a block (shapes) and runs the backend: the public entry point jobs and tests use.
void search_block(PeriodBackend& backend, const io::LightCurveBlock& block, const PeriodConfig& config,
                  std::span<ObjectResult> results, PeriodogramSink* sink);

}  // namespace astrosweep::period
