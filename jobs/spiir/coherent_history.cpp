#include "coherent_history.hpp"

#include <omp.h>

#include <algorithm>
#include <array>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "coherent_search_parts.hpp"
#include "core/error.hpp"

namespace astrosweep::spiir {
namespace {

using namespace coherent_parts;

// Tasks per batch on the host path (their windows: 1,024 × 3 × 621 samples, 30 MB in double for
// the latency bench's reach) and on an engine that reads the histories (tasks' descriptors and
// results only: about 100 bytes a task).
constexpr std::size_t host_batch = 1024;
constexpr std::size_t device_batch = std::size_t{1} << 18;

int thread_count(int threads) { return threads > 0 ? threads : omp_get_max_threads(); }

// Detector d's base sample of task (c, trial): the candidate's, the other detectors `trial` slides earlier.
std::int64_t base_of(const Candidate& c, std::size_t d, int trial, std::int64_t slide) {
  return c.sample - (d == c.ref_ifo ? 0 : trial * slide);
}

void check_inputs(const SkyMap& map, std::span<const SnrHistory* const> histories,
                  const TemplateAutocorrelations& autocorrelations, std::span<const Candidate> candidates,
                  const CoherentSettings& settings, Precision precision) {
  AS_EXPECTS(histories.size() == map.n_det(), UsageError, "one SNR history per detector of the sky map is needed");
  for (const SnrHistory* h : histories) {
    AS_EXPECTS(h != nullptr, UsageError, "an SNR history is missing");
    AS_EXPECTS(h->n_templates() == autocorrelations.n_templates, UsageError,
               "the autocorrelations do not fit the SNR histories' templates");
    AS_EXPECTS(h->precision() == precision, UsageError, "the SNR histories hold another precision than the search's");
  }
  AS_EXPECTS(autocorrelations.per_ifo.size() == map.n_det(), UsageError,
             "the autocorrelations do not fit the sky map's detectors");
  AS_EXPECTS(settings.n_slides >= 0 && settings.slide_samples >= 0, UsageError,
             "time slides need a count and a step ≥ 0");
  AS_EXPECTS(settings.sky_stride >= 1 && static_cast<std::size_t>(settings.sky_stride) <= map.n_pix(), UsageError,
             "--sky-stride must be between 1 and the number of pixels (" + std::to_string(map.n_pix()) + ")");
  const SearchReach reach = search_reach(map, settings, autocorrelations.half_length());
  for (const Candidate& c : candidates) {
    AS_EXPECTS(c.ref_ifo < map.n_det() && c.tmpl < autocorrelations.n_templates, UsageError,
               "a candidate names a detector or template that does not exist");
    for (const SnrHistory* h : histories)
      AS_EXPECTS(h->holds(c.sample - reach.before, c.sample + reach.after + 1), UsageError,
                 "the candidate at sample " + std::to_string(c.sample) + " reads samples " +
                     std::to_string(c.sample - reach.before) + " … " + std::to_string(c.sample + reach.after) +
                     ", not all in the SNR history (" + std::to_string(h->oldest()) + " … " +
                     std::to_string(h->written() - 1) + ")",
                 "keep a longer history, or search a candidate once the samples after it are written");
  }
}

// The host path: tasks in batches, each task's windows (read margin and χ² half-length either side
// of its base) read from the histories, the pixel loop on the CPU or on a window engine, the rest
// on the CPU with the code of coherent_search over a NetworkSnr.
template <typename Real>
void search_on_host(const SkyMap& map, const PixelTables<Real>& tables, const ChisqTables& chisq,
                    std::span<const SnrHistory* const> histories, std::span<const Candidate> candidates,
                    const CoherentSettings& settings, int threads, SkySearchEngine* engine,
                    std::vector<CoherentResult>& results) {
  const std::size_t n_det = map.n_det();
  const int trials = settings.n_slides + 1;
  const auto n_tasks = static_cast<std::int64_t>(candidates.size()) * trials;
  const std::int64_t margin = read_margin(map, settings);
  const std::int64_t half = margin + static_cast<std::int64_t>(chisq.ac.half_length());
  const auto length = static_cast<std::size_t>(2 * half + 1);
  if (engine != nullptr) {
    const std::vector<std::int32_t>& reads = settings.subsample ? tables.first_tap : map.offsets;
    engine->load(SkySearchTables<Real>{n_det, map.n_pix(), tables.u01, reads, tables.weights});
  }
  std::vector<HistoryRead> reads;
  std::vector<std::vector<std::complex<double>>> windows(n_det);  // per detector: [t · length + s]
  std::vector<SkyPick> picks;
  std::vector<std::int64_t> window_at;
  std::vector<std::int32_t> ref, first;
  for (std::int64_t begin = 0; begin < n_tasks; begin += static_cast<std::int64_t>(host_batch)) {
    const auto n = static_cast<std::size_t>(std::min<std::int64_t>(host_batch, n_tasks - begin));
    const auto task_of = [&](std::size_t t) {
      const std::int64_t task = begin + static_cast<std::int64_t>(t);
      return std::pair<const Candidate&, int>(candidates[static_cast<std::size_t>(task / trials)],
                                              static_cast<int>(task % trials));
    };
    for (std::size_t d = 0; d < n_det; ++d) {
      reads.clear();
      for (std::size_t t = 0; t < n; ++t) {
        const auto [c, trial] = task_of(t);
        reads.push_back({c.tmpl, base_of(c, d, trial, settings.slide_samples) - half});
      }
      windows[d].resize(n * length);
      histories[d]->read(reads, length, windows[d]);
    }
    const auto bases = [&](std::size_t t) {
      Bases b{};
      for (std::size_t d = 0; d < n_det; ++d) b[d] = windows[d].data() + t * length + half;
      return b;
    };
    picks.assign(n, {});
    if (engine != nullptr) {
      // Every window as it was read, in Real as the CPU's loop converts each sample it reads; a
      // task's search window is the read margin either side of its base.
      const std::size_t n_values = n_det * n * length * 2;
      const std::span<std::byte> memory = engine->host_samples(n_values * sizeof(Real));
      AS_ASSERT(memory.size() >= n_values * sizeof(Real) &&
                reinterpret_cast<std::uintptr_t>(memory.data()) % alignof(Real) == 0);
      const std::span<Real> samples{reinterpret_cast<Real*>(memory.data()), n_values};
      window_at.resize(n * n_det);
      ref.resize(n);
      first.resize(n);
      for (std::size_t d = 0; d < n_det; ++d)
        for (std::size_t i = 0; i < n * length; ++i) {
          samples[(d * n * length + i) * 2] = static_cast<Real>(windows[d][i].real());
          samples[(d * n * length + i) * 2 + 1] = static_cast<Real>(windows[d][i].imag());
        }
      for (std::size_t t = 0; t < n; ++t) {
        const auto [c, trial] = task_of(t);
        ref[t] = static_cast<std::int32_t>(c.ref_ifo);
        first[t] = trial % settings.sky_stride;
        for (std::size_t d = 0; d < n_det; ++d)
          window_at[t * n_det + d] = static_cast<std::int64_t>((d * n + t) * length) + (half - margin);
      }
      engine->search(SkySearchBatch<Real>{n, static_cast<std::size_t>(2 * margin + 1), margin, settings.sky_stride,
                                          samples, window_at, ref, first},
                     picks);
    }
#pragma omp parallel num_threads(thread_count(threads))
    {
      std::vector<Real> coh;
      std::vector<std::complex<double>> scratch;
#pragma omp for schedule(dynamic, 4)
      for (std::int64_t i = 0; i < static_cast<std::int64_t>(n); ++i) {
        const auto t = static_cast<std::size_t>(i);
        const auto [c, trial] = task_of(t);
        const Bases base = bases(t);
        if (engine == nullptr) picks[t] = pick_pixel<Real>(map, tables, base, c, trial, settings, coh);
        finish_one<Real>(map, base, chisq, c, trial, settings, picks[t], scratch,
                         results[static_cast<std::size_t>(begin + i)]);
      }
    }
  }
}

// One task's result from an engine that read the histories: finish_one's fields from the pick and
// the returned ζ and χ² (rounded reads: the delay is the offset).
template <typename Real>
void finish_from_engine(const SkyMap& map, const Candidate& c, int trial, const CoherentSettings& settings,
                        const SkyPick& pick, const std::complex<double>* zeta, const double* chisq,
                        CoherentResult& out) {
  const std::size_t n_det = map.n_det();
  const auto best_coh = static_cast<Real>(pick.coh_snr2);  // exact: the pick holds values of Real
  const auto best_total = static_cast<Real>(pick.total);
  out.coh_snr2 = static_cast<double>(best_coh);
  out.null_snr2 = static_cast<double>(resolved_null_energy(best_total - best_coh, best_total));
  out.pixel = pick.pixel;
  out.snr.assign(zeta, zeta + n_det);
  out.chisq.assign(chisq, chisq + n_det);
  out.offset.resize(n_det);
  out.delay.resize(n_det);
  out.network_chisq = 0;
  for (std::size_t d = 0; d < n_det; ++d) {
    const std::int32_t off = map.offset(c.ref_ifo, static_cast<std::size_t>(pick.pixel), d);
    const double delay = off;
    const auto slide = static_cast<std::int32_t>(d == c.ref_ifo ? 0 : trial * settings.slide_samples);
    out.offset[d] = off - slide;
    out.delay[d] = delay - slide;
    out.network_chisq += out.chisq[d];
  }
}

// The bank's χ² tables as the engine keeps them, every template's (not only this search's
// candidates'): a row per template, so that the next searches over the same autocorrelations send
// none (the CPU path takes the norms per search, ChisqTables; the same function, the same bits).
void load_bank_chisq(const TemplateAutocorrelations& ac, const SkyChisqKey& key, SkySearchEngine& engine) {
  const std::size_t n_det = key.n_det;
  for (const auto& per_ifo : ac.per_ifo)
    AS_EXPECTS(per_ifo.size() == ac.n_templates * ac.length, UsageError,
               "the autocorrelations do not hold n_templates × length values per detector");
  std::vector<double> r(ac.n_templates * n_det * ac.length * 2), norms(ac.n_templates * n_det);
  for (std::size_t j = 0; j < ac.n_templates; ++j)
    for (std::size_t d = 0; d < n_det; ++d) {
      const std::complex<double>* from = ac.of(d, j);
      double* to = &r[(j * n_det + d) * ac.length * 2];
      for (std::size_t s = 0; s < ac.length; ++s) {
        to[2 * s] = from[s].real();
        to[2 * s + 1] = from[s].imag();
      }
      norms[j * n_det + d] = autocorrelation_chisq_norm(from, ac.length);
    }
  engine.load_chisq(SkyChisqTables{key, r, norms});
}

// The device path: the pixel tables per search and the bank's χ² tables when the engine does not
// hold them yet, per batch the tasks' descriptors to `engine`, which reads the histories where they
// lie, and picks, ζ and χ² back.
template <typename Real>
void search_on_histories(const SkyMap& map, const PixelTables<Real>& tables, const TemplateAutocorrelations& ac,
                         std::span<const SnrHistory* const> histories, std::span<const Candidate> candidates,
                         const CoherentSettings& settings, int threads, SkySearchEngine& engine,
                         std::vector<CoherentResult>& results) {
  const std::size_t n_det = map.n_det();
  engine.load(SkySearchTables<Real>{n_det, map.n_pix(), tables.u01, map.offsets, {}});
  const SkyChisqKey key{ac.instance.value(), n_det, ac.n_templates, ac.length};
  if (engine.chisq_key() != key) load_bank_chisq(ac, key, engine);
  const int trials = settings.n_slides + 1;
  const auto n_tasks = static_cast<std::int64_t>(candidates.size()) * trials;
  std::vector<std::int32_t> tmpl, ref, first;
  std::vector<std::int64_t> base;
  std::vector<SkyPick> picks;
  std::vector<std::complex<double>> zeta;
  std::vector<double> chi;
  for (std::int64_t begin = 0; begin < n_tasks; begin += static_cast<std::int64_t>(device_batch)) {
    const auto n = static_cast<std::size_t>(std::min<std::int64_t>(device_batch, n_tasks - begin));
    tmpl.resize(n);
    ref.resize(n);
    first.resize(n);
    base.resize(n * n_det);
    for (std::size_t t = 0; t < n; ++t) {
      const std::int64_t task = begin + static_cast<std::int64_t>(t);
      const Candidate& c = candidates[static_cast<std::size_t>(task / trials)];
      const int trial = static_cast<int>(task % trials);
      tmpl[t] = static_cast<std::int32_t>(c.tmpl);
      ref[t] = static_cast<std::int32_t>(c.ref_ifo);
      first[t] = trial % settings.sky_stride;
      for (std::size_t d = 0; d < n_det; ++d) base[t * n_det + d] = base_of(c, d, trial, settings.slide_samples);
    }
    picks.assign(n, {});
    zeta.assign(n * n_det, {});
    chi.assign(n * n_det, 0.0);
    engine.search_histories(histories,
                            SkyHistoryBatch{n, settings.sky_stride, read_margin(map, settings), tmpl, base, ref, first},
                            SkyHistoryOut{picks, zeta, chi});
#pragma omp parallel for schedule(static) num_threads(thread_count(threads))
    for (std::int64_t i = 0; i < static_cast<std::int64_t>(n); ++i) {
      const std::int64_t task = begin + i;
      const auto t = static_cast<std::size_t>(i);
      finish_from_engine<Real>(map, candidates[static_cast<std::size_t>(task / trials)],
                               static_cast<int>(task % trials), settings, picks[t], &zeta[t * n_det], &chi[t * n_det],
                               results[static_cast<std::size_t>(task)]);
    }
  }
}

template <typename Real>
void search_all(const SkyMap& map, std::span<const SnrHistory* const> histories,
                const TemplateAutocorrelations& autocorrelations, std::span<const Candidate> candidates,
                const CoherentSettings& settings, int threads, SkySearchEngine* engine,
                std::vector<CoherentResult>& results) {
  if (candidates.empty()) return;
  std::vector<bool> refs(map.n_det(), false);
  for (const auto& c : candidates) refs[c.ref_ifo] = true;
  const PixelTables<Real> tables(map, settings.subsample, refs);
  if (engine != nullptr && !settings.subsample && engine->reads_histories(histories))
    search_on_histories(map, tables, autocorrelations, histories, candidates, settings, threads, *engine, results);
  else
    search_on_host(map, tables, ChisqTables(autocorrelations, candidates), histories, candidates, settings, threads,
                   engine, results);
}

}  // namespace

SearchReach search_reach(const SkyMap& map, const CoherentSettings& settings, std::size_t chisq_half_length) {
  const auto k = static_cast<std::int64_t>(chisq_half_length);
  const std::int64_t margin = read_margin(map, settings);
  return {margin + settings.n_slides * settings.slide_samples + k, margin + k};
}

std::vector<CoherentResult> coherent_search(const SkyMap& map, std::span<const SnrHistory* const> histories,
                                            const TemplateAutocorrelations& autocorrelations,
                                            std::span<const Candidate> candidates, const CoherentSettings& settings,
                                            Precision precision, int threads, SkySearchEngine* engine) {
  check_inputs(map, histories, autocorrelations, candidates, settings, precision);
  std::vector<CoherentResult> results(candidates.size() * static_cast<std::size_t>(settings.n_slides + 1));
  if (precision == Precision::fp32)
    search_all<float>(map, histories, autocorrelations, candidates, settings, threads, engine, results);
  else
    search_all<double>(map, histories, autocorrelations, candidates, settings, threads, engine, results);
  return results;
}

}  // namespace astrosweep::spiir
