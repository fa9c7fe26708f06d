#include "period_backend.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/error.hpp"
#include "prepared_series.hpp"

namespace astrosweep::period {

double PeriodBackend::last_kernel_seconds() const { return std::numeric_limits<double>::quiet_NaN(); }

void PeriodBackend::check(const PeriodConfig&) const {}

std::uint64_t periodogram_buffer_budget(const BackendOptions& options) noexcept {
  return options.host_memory_budget != 0 ? options.host_memory_budget : std::uint64_t{1} << 62;
}

namespace {

// Objects whose usable times span so much that no phase at the grid's highest frequency is
// meaningful in double precision (a time of 1e300 days, times not in days): searching them would
// give finite garbage.
std::vector<std::size_t> objects_beyond_phase_precision(const io::LightCurveBlock& block, const PeriodConfig& config) {
  const bool weighted = config.model == Model::generalized && block.has_errors();
  std::vector<std::uint64_t> first(block.n_objects() + 1, 0);
  for (std::size_t i = 0; i < block.n_objects(); ++i) first[i + 1] = first[i] + block.counts[i];
  // A pass over every point of the unit: on the calling thread's OpenMP threads (a tenth of a
  // TESS-like unit's host time on one).
  std::vector<unsigned char> beyond(block.n_objects(), 0);
  const auto n = static_cast<std::int64_t>(block.n_objects());
#pragma omp parallel for schedule(dynamic, 64)
  for (std::int64_t i = 0; i < n; ++i) {
    double lo = std::numeric_limits<double>::infinity(), hi = -lo;
    std::uint64_t usable = 0;
    for (std::uint64_t r = first[static_cast<std::size_t>(i)]; r < first[static_cast<std::size_t>(i) + 1]; ++r) {
      if (!std::isfinite(block.t[r]) || !std::isfinite(block.y[r]) ||
          (weighted && !(std::isfinite(block.dy[r]) && block.dy[r] > 0)))
        continue;
      ++usable;
      lo = std::min(lo, block.t[r]);
      hi = std::max(hi, block.t[r]);
    }
    // (hi - lo) / 2 rather than hi/2 - lo/2: an overflow to infinity only makes it beyond, rightly.
    beyond[static_cast<std::size_t>(i)] =
        usable >= min_points && config.grid.last() * (0.5 * (hi - lo)) >= max_phase_cycles;
  }
  std::vector<std::size_t> found;
  for (std::size_t i = 0; i < block.n_objects(); ++i)
    if (beyond[i]) found.push_back(i);
  return found;
}

void mark_not_computed(ObjectResult& r, std::uint32_t bit) {
  constexpr double nan = std::numeric_limits<double>::quiet_NaN();
  r.status |= bit;
  r.best_frequency = r.best_period = r.best_power = r.fap = nan;
  std::fill(r.peak_frequency.begin(), r.peak_frequency.end(), nan);
  std::fill(r.peak_power.begin(), r.peak_power.end(), nan);
}

}  // namespace

void search_block(PeriodBackend& backend, const io::LightCurveBlock& block, const PeriodConfig& config,
                  std::span<ObjectResult> results, PeriodogramSink* sink) {
  AS_ASSERT(results.size() == block.n_objects());
  AS_ASSERT(block.counts.size() == block.n_objects());
  std::uint64_t rows = 0;
  for (auto c : block.counts) rows += c;
  AS_ASSERT(block.t.size() == rows && block.y.size() == rows);
  AS_ASSERT(block.dy.empty() || block.dy.size() == rows);
  AS_ASSERT(config.grid.n > 0 && config.grid.df > 0 && config.top_k > 0);
  backend.check(config);

  // Every result is finite or carries a status bit that says why not. Objects beyond phase
  // precision reach the backend with no usable time (so it skips them, whichever it is) and get
  // their own counts and bit back afterwards.
  const auto beyond = objects_beyond_phase_precision(block, config);
  if (beyond.empty()) {
    backend.search(block, config, results, sink);
  } else {
    std::vector<std::uint64_t> first(block.n_objects() + 1, 0);
    for (std::size_t i = 0; i < block.n_objects(); ++i) first[i + 1] = first[i] + block.counts[i];
    io::LightCurveBlock masked = block;
    for (std::size_t i : beyond)
      std::fill(masked.t.begin() + static_cast<std::ptrdiff_t>(first[i]),
                masked.t.begin() + static_cast<std::ptrdiff_t>(first[i + 1]), std::numeric_limits<double>::quiet_NaN());
    backend.search(masked, config, results, sink);
    for (std::size_t i : beyond) {
      auto span = [&](const std::vector<double>& v) {
        return v.empty() ? std::span<const double>() : std::span<const double>(v.data() + first[i], block.counts[i]);
      };
      const auto s = prepare_series(span(block.t), span(block.y), span(block.dy), config.model);
      auto& r = results[i];
      r.status = s.status & ~status_not_computed;
      r.cleaned = s.cleaned | (r.n_flagged ? cleaned_flagged : 0u);
      r.n_points = s.n_used();
      r.n_nonfinite = s.n_nonfinite;
      r.n_bad_errors = s.n_bad_errors;
      r.baseline = s.baseline;
      r.t_ref = std::numeric_limits<double>::quiet_NaN();
      mark_not_computed(r, status_time_span_out_of_range);
    }
  }
  for (auto& r : results)
    if ((r.status & (status_not_computed | status_time_span_out_of_range)) == 0 &&
        !(std::isfinite(r.best_power) && r.best_power > 0 && std::isfinite(r.best_frequency)))
      mark_not_computed(r, status_power_out_of_range);
}

}  // namespace astrosweep::period
