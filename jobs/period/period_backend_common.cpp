#include "period_backend_common.hpp"

#include <limits>

#include "false_alarm.hpp"

namespace astrosweep::period {

namespace {
constexpr double nan = std::numeric_limits<double>::quiet_NaN();
}

std::vector<PreparedSeries> prepare_block(const io::LightCurveBlock& block, Model model, int threads) {
  const std::size_t n = block.n_objects();
  std::vector<std::uint64_t> offset(n + 1, 0);
  for (std::size_t i = 0; i < n; ++i) offset[i + 1] = offset[i] + block.counts[i];
  std::vector<PreparedSeries> series(n);
#pragma omp parallel for schedule(dynamic, 16) num_threads(threads)
  for (std::size_t i = 0; i < n; ++i) {
    auto span_of = [&](const std::vector<double>& v) {
      return v.empty() ? std::span<const double>() : std::span<const double>(v.data() + offset[i], block.counts[i]);
    };
    series[i] = prepare_series(span_of(block.t), span_of(block.y), span_of(block.dy), model);
  }
  return series;
}

void init_results(const io::LightCurveBlock& block, const std::vector<PreparedSeries>& series,
                  const PeriodConfig& config, std::span<ObjectResult> results) {
  for (std::size_t i = 0; i < series.size(); ++i) {
    auto& r = results[i];
    const auto& s = series[i];
    r = ObjectResult{};
    r.id = block.ids[i];
    r.n_flagged = block.n_flagged.empty() ? 0 : block.n_flagged[i];
    r.status = s.status;
    r.cleaned = s.cleaned | (r.n_flagged ? cleaned_flagged : 0u);
    r.n_points = s.n_used();
    r.n_nonfinite = s.n_nonfinite;
    r.n_bad_errors = s.n_bad_errors;
    r.t_ref = s.computable() ? s.t_ref : nan;
    r.baseline = s.baseline;
    r.best_frequency = r.best_period = r.best_power = r.fap = nan;
    r.peak_frequency.assign(static_cast<std::size_t>(config.top_k), nan);
    r.peak_power.assign(static_cast<std::size_t>(config.top_k), nan);
  }
}

void fill_from_peaks(ObjectResult& r, const PreparedSeries& s, const std::vector<ChunkPeaks>& chunks,
                     const PeriodConfig& cfg) {
  const double separation = s.baseline > 0 ? cfg.peak_separation / s.baseline : 0.0;
  const auto sel = select_peaks(chunks, cfg.grid, cfg.top_k, separation);
  r.best_frequency = cfg.grid.at(sel.best.index);
  r.best_period = 1.0 / r.best_frequency;
  r.best_power = sel.best.power;
  r.fap = false_alarm_baluev(r.best_power, s.n_used(), cfg.grid.last(), s.t_variance, cfg.normalization);
  for (std::size_t i = 0; i < sel.peaks.size(); ++i) {
    r.peak_frequency[i] = cfg.grid.at(sel.peaks[i].index);
    r.peak_power[i] = sel.peaks[i].power;
  }
}

}  // namespace astrosweep::period
