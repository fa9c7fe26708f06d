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

#include "core/backend.hpp"
#include "io/light_curves.hpp"
#include "period_config.hpp"

namespace astrosweep::period {

struct ObjectResult {
  std::int64_t id = 0;
  std::uint32_t status = status_ok;         ///< StatusBits: 0 when the result is valid
  std::uint32_t cleaned = cleaned_nothing;  ///< CleanedBits: what was removed before the search
  std::uint32_t n_points = 0;               ///< points used
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
  /// Throws when this backend cannot run `config` (the CUDA backend and --method fast); called by
  /// search_block and by the job before it creates its product.
  virtual void check(const PeriodConfig& config) const;
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

/// The period job's --memory-budget-mb when none is given, MiB: periodogram buffers of that size
/// let the GPU backend copy one pass's periodograms while the next pass computes (measured on an
/// H200: 0, one buffer for the whole block, is 14-24 % slower end to end with periodograms).
inline constexpr double default_buffer_budget_mb = 1024;

/// Bytes of periodogram buffers a backend holds at once: the rank's host memory budget, where 0
/// (no limit) becomes a bound no run reaches and that sums with it cannot overflow.
std::uint64_t periodogram_buffer_budget(const BackendOptions& options) noexcept;

std::unique_ptr<PeriodBackend> make_period_backend(const BackendOptions& options);

/// Validates a block (shapes) and runs the backend: the public entry point jobs and tests use.
void search_block(PeriodBackend& backend, const io::LightCurveBlock& block, const PeriodConfig& config,
                  std::span<ObjectResult> results, PeriodogramSink* sink);

}  // namespace astrosweep::period
