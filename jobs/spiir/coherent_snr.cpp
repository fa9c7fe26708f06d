#include "coherent_snr.hpp"

#include <omp.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <set>

#include "coherent_search_parts.hpp"
#include "core/error.hpp"
#include "detector_geometry.hpp"
#include "subsample_interpolation.hpp"

namespace astrosweep::spiir {
namespace {

using namespace coherent_parts;

// U of A (n × 2, n = 2 or 3) from the eigen-decomposition of the 2 × 2 AᵀA = V S² Vᵀ:
// u_k = A v_k / s_k, completed by u_0 × u_1 for three detectors. Written column by column into
// `u` (n × n).
void signal_basis(const std::vector<std::array<double, 2>>& a, double* u) {
  const std::size_t n = a.size();
  double p = 0, q = 0, r = 0;  // AᵀA = [[p, q], [q, r]]
  for (const auto& row : a) {
    p += row[0] * row[0];
    q += row[0] * row[1];
    r += row[1] * row[1];
  }
  // The larger eigenvalue's eigenvector, from whichever of the two forms is better conditioned.
  const double mean = 0.5 * (p + r), half_gap = std::hypot(0.5 * (p - r), q);
  const double lambda0 = mean + half_gap;
  double v0x = q, v0y = lambda0 - p;
  if (std::hypot(lambda0 - r, q) > std::hypot(v0x, v0y)) {
    v0x = lambda0 - r;
    v0y = q;
  }
  const double norm_v = std::hypot(v0x, v0y);
  if (norm_v == 0) {  // AᵀA already diagonal with p ≥ r
    v0x = 1;
    v0y = 0;
  } else {
    v0x /= norm_v;
    v0y /= norm_v;
  }
  const double v1x = -v0y, v1y = v0x;
  auto column = [&](std::size_t k) { return u + k * n; };
  auto normalise = [n](double* c) {
    double s = 0;
    for (std::size_t d = 0; d < n; ++d) s += c[d] * c[d];
    s = std::sqrt(s);
    for (std::size_t d = 0; d < n; ++d) c[d] /= s;
    return s;
  };
  for (std::size_t d = 0; d < n; ++d) {
    column(0)[d] = a[d][0] * v0x + a[d][1] * v0y;
    column(1)[d] = a[d][0] * v1x + a[d][1] * v1y;
  }
  normalise(column(0));
  // A v_1 is orthogonal to A v_0 in exact arithmetic; take out the rounding so U stays orthogonal.
  double dot = 0;
  for (std::size_t d = 0; d < n; ++d) dot += column(0)[d] * column(1)[d];
  for (std::size_t d = 0; d < n; ++d) column(1)[d] -= dot * column(0)[d];
  normalise(column(1));
  if (n == 3) {
    const double* a0 = column(0);
    const double* a1 = column(1);
    double* c2 = column(2);
    c2[0] = a0[1] * a1[2] - a0[2] * a1[1];
    c2[1] = a0[2] * a1[0] - a0[0] * a1[2];
    c2[2] = a0[0] * a1[1] - a0[1] * a1[0];
  }
}

std::int32_t round_samples(double x) { return static_cast<std::int32_t>(std::floor(x + 0.5)); }

// Each detector's series at the candidate's sample, the slide of `trial` already applied.
std::array<const std::complex<double>*, 3> trial_bases(const SkyMap& map, const NetworkSnr& snr, const Candidate& c,
                                                       int trial, std::int64_t slide_samples) {
  std::array<const std::complex<double>*, 3> base{};
  for (std::size_t d = 0; d < map.n_det(); ++d)
    base[d] = snr.series(d, c.tmpl) + c.sample - (d == c.ref_ifo ? 0 : trial * slide_samples);
  return base;
}

// A task's window in one detector's series: where it starts in snr.z[d], and its place
// t · n_det + d in the batch's window offsets.
struct TaskWindow {
  std::int64_t start;
  std::size_t slot;
};

// Windows that overlap or touch in a detector's series, stored once: [start, end) in snr.z[d], at
// `at` (in the detector's runs, then in the batch's samples).
struct WindowRun {
  std::int64_t start, end, at;
};

// What a device reads for a batch of tasks: SkySearchBatch's samples (in the engine's host
// memory), windows, references and first pixels, and the scratch that lays them out, kept from
// batch to batch.
template <typename Real>
struct DeviceWindows {
  std::span<Real> samples;
  std::vector<std::int64_t> window;
  std::vector<std::int32_t> ref, first;
  std::vector<std::vector<TaskWindow>> in_order;  // per detector: the windows in series order
  std::vector<std::vector<WindowRun>> runs;       // per detector
};

// Detector d's windows of the batch (their starts in window[t · n_det + d]) in series order, into
// `out`. A candidate's windows in one detector are one start repeated (its reference detector, or
// no slide) or fall by a slide per trial, so its trials taken last to first are in order; where
// every candidate's windows lie at or after the previous one's (each candidate in a row of its
// own, in row order, as the job's second pass and the latency bench lay them) the candidates taken
// in order are too, and no sort is needed: linear, where the sort of the 1.9·10⁵ tasks of a
// latency-bench chunk cost more than the rest of the layout. Otherwise (candidates sharing a row
// out of order) a sort. Either way the same starts in the same order, so the same runs.
inline void order_windows(std::span<const std::int64_t> window, std::size_t n_det, std::size_t d, std::int64_t begin,
                          int trials, std::vector<TaskWindow>& out) {
  const std::size_t n = window.size() / n_det;
  out.clear();
  bool in_order = true;
  for (std::size_t t0 = 0; t0 < n;) {
    // Tasks [t0, t1): one candidate's trials in this batch.
    const std::int64_t c = (begin + static_cast<std::int64_t>(t0)) / trials;
    const auto t1 = std::min(n, static_cast<std::size_t>((c + 1) * trials - begin));
    for (std::size_t t = t1; t-- > t0;) {
      const std::int64_t start = window[t * n_det + d];
      in_order = in_order && (out.empty() || out.back().start <= start);
      out.push_back({start, t * n_det + d});
    }
    t0 = t1;
  }
  if (!in_order)
    std::sort(out.begin(), out.end(), [](const TaskWindow& a, const TaskWindow& b) { return a.start < b.start; });
}

// The windows of tasks [begin, begin + n) for a device: every detector's samples within the read
// margin of the task's base, in Real (the CPU's loop converts each sample it reads the same way),
// written into `engine`'s host memory. Windows that overlap or touch in a detector's series (a
// candidate's reference window in each of its trials, neighbouring candidates, slides shorter than
// a window) are stored once, as one run.
template <typename Real>
void fill_windows(const SkyMap& map, const NetworkSnr& snr, std::span<const Candidate> candidates,
                  const CoherentSettings& settings, std::int64_t begin, std::size_t n, std::int64_t margin, int threads,
                  SkySearchEngine& engine, DeviceWindows<Real>& out) {
  const int trials = settings.n_slides + 1;
  const std::size_t n_det = map.n_det();
  const std::int64_t length = 2 * margin + 1;
  out.ref.resize(n);
  out.first.resize(n);
  out.window.resize(n * n_det);  // first each window's start in snr.z[d], then its place in the samples
  out.in_order.resize(n_det);
  out.runs.resize(n_det);
  for (std::size_t t = 0; t < n; ++t) {
    const std::int64_t task = begin + static_cast<std::int64_t>(t);
    const Candidate& c = candidates[static_cast<std::size_t>(task / trials)];
    const int trial = static_cast<int>(task % trials);
    const auto base = trial_bases(map, snr, c, trial, settings.slide_samples);
    out.ref[t] = static_cast<std::int32_t>(c.ref_ifo);
    out.first[t] = trial % settings.sky_stride;
    for (std::size_t d = 0; d < n_det; ++d) out.window[t * n_det + d] = (base[d] - snr.z[d].data()) - margin;
  }
  // Per detector, the windows in series order and the runs they make; a run's place in the
  // samples is set once every detector's runs are known.
  const int pool = threads > 0 ? threads : omp_get_max_threads();
  const int sorters = std::min(static_cast<int>(n_det), pool);
#pragma omp parallel for schedule(static, 1) num_threads(sorters)
  for (std::size_t d = 0; d < n_det; ++d) {
    auto& mine = out.in_order[d];
    auto& runs = out.runs[d];
    order_windows(out.window, n_det, d, begin, trials, mine);
    runs.clear();
    for (const TaskWindow& w : mine) {
      if (runs.empty() || w.start > runs.back().end) {
        const std::int64_t at = runs.empty() ? 0 : runs.back().at + (runs.back().end - runs.back().start);
        runs.push_back({w.start, w.start + length, at});
      } else {
        runs.back().end = std::max(runs.back().end, w.start + length);
      }
      out.window[w.slot] = runs.back().at + (w.start - runs.back().start);
    }
  }
  std::int64_t stored = 0;
  for (std::size_t d = 0; d < n_det; ++d) {
    const std::int64_t detector_at = stored;
    for (WindowRun& r : out.runs[d]) r.at += detector_at;
    for (const TaskWindow& w : out.in_order[d]) out.window[w.slot] += detector_at;
    if (!out.runs[d].empty()) stored = out.runs[d].back().at + (out.runs[d].back().end - out.runs[d].back().start);
  }
  const auto n_values = static_cast<std::size_t>(stored) * 2;
  const std::span<std::byte> memory = engine.host_samples(n_values * sizeof(Real));
  AS_ASSERT(memory.size() >= n_values * sizeof(Real) &&
            reinterpret_cast<std::uintptr_t>(memory.data()) % alignof(Real) == 0);
  out.samples = {reinterpret_cast<Real*>(memory.data()), n_values};
  for (std::size_t d = 0; d < n_det; ++d) {
    const auto& runs = out.runs[d];
#pragma omp parallel for schedule(dynamic, 16) num_threads(pool)
    for (std::int64_t r = 0; r < static_cast<std::int64_t>(runs.size()); ++r) {
      const WindowRun& run = runs[static_cast<std::size_t>(r)];
      const std::complex<double>* from = snr.z[d].data() + run.start;
      Real* to = &out.samples[static_cast<std::size_t>(run.at) * 2];
      for (std::int64_t s = 0; s < run.end - run.start; ++s) {
        to[2 * s] = static_cast<Real>(from[s].real());
        to[2 * s + 1] = static_cast<Real>(from[s].imag());
      }
    }
  }
}

// The pixel loop on `engine`, batch by batch (its tables loaded once), then the rest on the CPU.
template <typename Real>
void search_on_engine(const SkyMap& map, const PixelTables<Real>& tables, const NetworkSnr& snr,
                      const ChisqTables& chisq, std::span<const Candidate> candidates, const CoherentSettings& settings,
                      int threads, SkySearchEngine& engine, std::vector<CoherentResult>& results) {
  const std::vector<std::int32_t>& reads = settings.subsample ? tables.first_tap : map.offsets;
  engine.load(SkySearchTables<Real>{map.n_det(), map.n_pix(), tables.u01, reads, tables.weights});
  const std::int64_t margin = read_margin(map, settings);
  const auto length = static_cast<std::size_t>(2 * margin + 1);
  const int trials = settings.n_slides + 1;
  const auto n_tasks = static_cast<std::int64_t>(candidates.size()) * trials;
  const std::size_t per_batch = std::max<std::size_t>(1, engine.max_batch(map.n_det() * length * 2 * sizeof(Real)));
  DeviceWindows<Real> windows;
  std::vector<SkyPick> picks;
  for (std::int64_t begin = 0; begin < n_tasks; begin += static_cast<std::int64_t>(per_batch)) {
    const auto n =
        static_cast<std::size_t>(std::min<std::int64_t>(static_cast<std::int64_t>(per_batch), n_tasks - begin));
    fill_windows(map, snr, candidates, settings, begin, n, margin, threads, engine, windows);
    picks.assign(n, {});
    engine.search(SkySearchBatch<Real>{n, length, margin, settings.sky_stride, windows.samples, windows.window,
                                       windows.ref, windows.first},
                  picks);
#pragma omp parallel num_threads(threads > 0 ? threads : omp_get_max_threads())
    {
      std::vector<std::complex<double>> scratch;
#pragma omp for schedule(dynamic, 16)
      for (std::int64_t i = 0; i < static_cast<std::int64_t>(n); ++i) {
        const std::int64_t task = begin + i;
        const auto c = static_cast<std::size_t>(task / trials);
        const int trial = static_cast<int>(task % trials);
        const Bases base = trial_bases(map, snr, candidates[c], trial, settings.slide_samples);
        finish_one<Real>(map, base, chisq, candidates[c], trial, settings, picks[static_cast<std::size_t>(i)], scratch,
                         results[static_cast<std::size_t>(task)]);
      }
    }
  }
}

template <typename Real>
void search_all(const SkyMap& map, const NetworkSnr& snr, const TemplateAutocorrelations& autocorrelations,
                std::span<const Candidate> candidates, const CoherentSettings& settings, int threads,
                SkySearchEngine* engine, std::vector<CoherentResult>& results) {
  std::vector<bool> refs(map.n_det(), false);
  for (const auto& c : candidates) refs[c.ref_ifo] = true;
  const PixelTables<Real> tables(map, settings.subsample, refs);
  const ChisqTables chisq(autocorrelations, candidates);
  if (engine != nullptr && !candidates.empty()) {
    search_on_engine(map, tables, snr, chisq, candidates, settings, threads, *engine, results);
    return;
  }
  const int trials = settings.n_slides + 1;
  const auto n_tasks = static_cast<std::int64_t>(candidates.size()) * trials;
#pragma omp parallel num_threads(threads > 0 ? threads : omp_get_max_threads())
  {
    std::vector<Real> coh;
    std::vector<std::complex<double>> scratch;
#pragma omp for schedule(dynamic, 4)
    for (std::int64_t task = 0; task < n_tasks; ++task) {
      const auto c = static_cast<std::size_t>(task / trials);
      const int trial = static_cast<int>(task % trials);
      const Bases base = trial_bases(map, snr, candidates[c], trial, settings.slide_samples);
      const SkyPick pick = pick_pixel<Real>(map, tables, base, candidates[c], trial, settings, coh);
      finish_one<Real>(map, base, chisq, candidates[c], trial, settings, pick, scratch,
                       results[static_cast<std::size_t>(task)]);
    }
  }
}

template <typename Real>
std::vector<double> sky_map_values(const SkyMap& map, const NetworkSnr& snr, const Candidate& c,
                                   const CoherentSettings& settings, int trial) {
  std::vector<bool> refs(map.n_det(), false);
  refs[c.ref_ifo] = true;
  const PixelTables<Real> tables(map, settings.subsample, refs);
  const auto base = trial_bases(map, snr, c, trial, settings.slide_samples);
  std::vector<double> out(map.n_pix());
  for (std::size_t p = 0; p < map.n_pix(); ++p) {
    Real total = 0;
    out[p] = static_cast<double>(tables.coherent(map, base, c.ref_ifo, p, total));
  }
  return out;
}

void check_search_inputs(const SkyMap& map, const NetworkSnr& snr, const TemplateAutocorrelations& autocorrelations,
                         std::span<const Candidate> candidates, const CoherentSettings& settings) {
  AS_EXPECTS(snr.ifos == map.ifos, UsageError, "the SNR series' detectors differ from the sky map's");
  AS_EXPECTS(autocorrelations.per_ifo.size() == map.n_det() && autocorrelations.n_templates == snr.n_templates,
             UsageError, "the autocorrelations do not fit the SNR series");
  AS_EXPECTS(settings.n_slides >= 0 && settings.slide_samples >= 0, UsageError,
             "time slides need a count and a step ≥ 0");
  AS_EXPECTS(settings.sky_stride >= 1 && static_cast<std::size_t>(settings.sky_stride) <= map.n_pix(), UsageError,
             "--sky-stride must be between 1 and the number of pixels (" + std::to_string(map.n_pix()) + ")");
  for (const auto& c : candidates) {
    AS_EXPECTS(c.ref_ifo < map.n_det() && c.tmpl < snr.n_templates, UsageError,
               "a candidate names a detector or template that does not exist");
    AS_EXPECTS(candidate_fits(map, settings, autocorrelations.half_length(), snr.n_samples, c.sample), UsageError,
               "the candidate at sample " + std::to_string(c.sample) +
                   " lacks the margin for the delays, slides and χ² inside " + std::to_string(snr.n_samples) +
                   " samples");
  }
}

}  // namespace

std::span<std::byte> SkySearchEngine::host_samples(std::size_t bytes) {
  if (host_samples_.size() < bytes) {
    host_samples_.clear();  // nothing to keep: the caller overwrites what it asked for
    host_samples_.resize(bytes);
  }
  return {host_samples_.data(), bytes};
}

bool SkySearchEngine::reads_histories(std::span<const SnrHistory* const>) const { return false; }

void SkySearchEngine::load_chisq(const SkyChisqTables&) {
  AS_EXPECTS(false, UsageError, "this sky search engine does not read SNR histories (reads_histories)");
}

SkyChisqKey SkySearchEngine::chisq_key() const { return {}; }

void SkySearchEngine::search_histories(std::span<const SnrHistory* const>, const SkyHistoryBatch&,
                                       const SkyHistoryOut&) {
  AS_EXPECTS(false, UsageError, "this sky search engine does not read SNR histories (reads_histories)");
}

std::vector<double> network_basis(const std::vector<std::array<double, 2>>& a) {
  AS_EXPECTS(a.size() == 2 || a.size() == 3, UsageError, "the coherent stage needs 2 or 3 detectors");
  std::vector<double> u(a.size() * a.size());
  signal_basis(a, u.data());
  return u;
}

SkyMap make_sky_map(int order, const std::vector<std::string>& ifos, const std::vector<double>& sigma, double gps,
                    double sample_rate) {
  AS_EXPECTS(ifos.size() == 2 || ifos.size() == 3, UsageError,
             "the coherent stage needs 2 or 3 detectors, not " + std::to_string(ifos.size()));
  AS_EXPECTS(std::set<std::string>(ifos.begin(), ifos.end()).size() == ifos.size(), UsageError,
             "a detector is named twice for the coherent stage");
  AS_EXPECTS(sigma.size() == ifos.size(), UsageError, "one sensitivity per detector is needed");
  for (double s : sigma)
    AS_EXPECTS(s > 0 && std::isfinite(s), UsageError, "detector sensitivities must be positive and finite");
  AS_EXPECTS(sample_rate > 0, UsageError, "the sample rate must be positive");
  SkyMap map;
  map.order = order;
  map.gps = gps;
  map.sample_rate = sample_rate;
  map.ifos = ifos;
  map.pixels = sky_grid(order);
  const std::size_t n_det = ifos.size(), n_pix = map.pixels.size();
  std::vector<const Detector*> dets;
  for (const auto& name : ifos) dets.push_back(&detector(name));
  const double gmst = gmst_from_gps(gps);
  map.u.resize(n_pix * n_det * n_det);
  map.offsets.resize(n_det * n_pix * n_det);
  map.delays.resize(n_det * n_pix * n_det);
  std::vector<std::array<double, 2>> a(n_det);
  std::vector<double> delay(n_det);
  for (std::size_t p = 0; p < n_pix; ++p) {
    for (std::size_t d = 0; d < n_det; ++d) {
      const AntennaPattern f = antenna_pattern(*dets[d], map.pixels[p], 0.0, gmst);  // ψ drops out (spec §9)
      a[d] = {sigma[d] * f.plus, sigma[d] * f.cross};
      delay[d] = delay_from_geocentre(*dets[d], map.pixels[p], gmst);
    }
    const auto u = network_basis(a);
    std::copy(u.begin(), u.end(), map.u.begin() + static_cast<std::ptrdiff_t>(p * n_det * n_det));
    for (std::size_t i = 0; i < n_det; ++i)
      for (std::size_t d = 0; d < n_det; ++d) {
        const double samples = (delay[d] - delay[i]) * sample_rate;
        const std::int32_t o = round_samples(samples);
        map.offsets[(i * n_pix + p) * n_det + d] = o;
        map.delays[(i * n_pix + p) * n_det + d] = samples;
        map.max_offset = std::max(map.max_offset, std::abs(o));
      }
  }
  return map;
}

std::int64_t read_margin(const SkyMap& map, const CoherentSettings& settings) {
  return map.max_offset + (settings.subsample ? interpolation_half_width : 0);
}

bool candidate_fits(const SkyMap& map, const CoherentSettings& settings, std::size_t chisq_half_length,
                    std::size_t n_samples, std::int64_t sample) {
  const auto k = static_cast<std::int64_t>(chisq_half_length);
  const std::int64_t before = read_margin(map, settings) + settings.n_slides * settings.slide_samples + k;
  const std::int64_t after = read_margin(map, settings) + k;
  return sample - before >= 0 && sample + after < static_cast<std::int64_t>(n_samples);
}

std::vector<CoherentResult> coherent_search(const SkyMap& map, const NetworkSnr& snr,
                                            const TemplateAutocorrelations& autocorrelations,
                                            std::span<const Candidate> candidates, const CoherentSettings& settings,
                                            Precision precision, int threads, SkySearchEngine* engine) {
  check_search_inputs(map, snr, autocorrelations, candidates, settings);
  std::vector<CoherentResult> results(candidates.size() * static_cast<std::size_t>(settings.n_slides + 1));
  if (precision == Precision::fp32)
    search_all<float>(map, snr, autocorrelations, candidates, settings, threads, engine, results);
  else
    search_all<double>(map, snr, autocorrelations, candidates, settings, threads, engine, results);
  return results;
}

std::vector<double> coherent_sky_map(const SkyMap& map, const NetworkSnr& snr, const Candidate& candidate,
                                     const CoherentSettings& settings, int trial, Precision precision) {
  // The map needs no χ² window; a zero-length autocorrelation set checks the rest.
  TemplateAutocorrelations none;
  none.n_templates = snr.n_templates;
  none.per_ifo.resize(map.n_det());
  check_search_inputs(map, snr, none, {&candidate, 1}, settings);
  AS_EXPECTS(trial >= 0 && trial <= settings.n_slides, UsageError, "a sky map's trial must be 0 … n_slides");
  return precision == Precision::fp32 ? sky_map_values<float>(map, snr, candidate, settings, trial)
                                      : sky_map_values<double>(map, snr, candidate, settings, trial);
}

}  // namespace astrosweep::spiir
