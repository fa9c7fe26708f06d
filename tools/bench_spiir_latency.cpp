// astrosweep_bench_spiir_latency: spec §14's latency of one 1-s chunk end to end, 3 detectors
// (H1, L1, V1) and 1,024 templates (target < 100 ms on the GPU machine), by stage, through the
// OpenMP and (in a CUDA build with a GPU) the CUDA backends.
//
//   astrosweep_bench_spiir_latency [--backend cpu|cuda|all] [--templates N] [--filters F]
//       [--rate HZ] [--chunks C] [--warmup W] [--threads T] [--precision fp32|fp64]
//       [--threshold X] [--sky-order K] [--n-slides S] [--levels L] [--level-sum device|host]
//       [--history device|windows]
//
// A chunk costs what it costs in `astrosweep spiir`, with the job's functions:
// - filter: each detector's chunk through its own backend's filter_max (make_spiir_backend, states
//   carried from chunk to chunk; on CUDA the chunk up, the kernel, the per-sample maximum over
//   templates on the device and only that down: a work unit's first pass);
// - peaks: append_sample_best over the chunk's per-sample best (those above the threshold, as a
//   work unit keeps them) and merged_peaks (the per-template peak of the chunk, spec §9);
// - coherent: coherent_search (the job's sky search, on the GPU with make_sky_search where the
//   backend is CUDA) over every detector's peaks of the chunk, at the job's defaults (HEALPix order
//   5, 100 time slides of 0.1 s, χ² over 201 lags), each candidate's SNR window gathered into a
//   NetworkSnr.
// With --levels L > 1 the bank is multi-rate (spec §4): filter l of F runs at level ⌊l · L / F⌋
// (rate / 2^level; the later filters, the chirp's earlier and lower-frequency part, at the lower
// rates), its pole's frequency divided by 2^level so that it lies in that level's band, mapped by
// at_rate; the filter stage is then the multi-rate stream's filter_max, its levels summed on the
// device (make_multirate_backend; --level-sum device, the default) or, on CUDA, on the host over
// the levels' CUDA backends (MultirateStream; --level-sum host: every level's SNRs come down,
// the form before the sum moved to the device), so the two can be timed side by side.
// With --history device (the default) each detector keeps every template's SNR history in a ring
// (snr_history.hpp; make_snr_history: on the device with the CUDA backend) long enough for the
// slides: "windows" is then the time to append the chunk to the rings (SpiirBackend::append_snr:
// on CUDA a copy on the device, the multi-rate sum's too with --level-sum device; on the CPU and
// with --level-sum host the rows down and written), and "coherent" the search
// over the rings (coherent_history.hpp: on CUDA only the tasks go up and picks, ζ and χ² come
// down). A candidate is searched once its χ²'s last lag is written: those within that reach of a
// chunk's end wait for the next chunk (a streaming search cannot do otherwise), so a chunk's
// candidates are its own but for those, and the previous chunk's last ones. The chunks before the
// rings hold a candidate's whole reach are warm-up. With --history windows, the form before the
// rings:
// The bank is the seed's Table II workload (bench_spiir.cpp: |a1| in [0.9, 0.999), delays l × 20)
// with each template's b0 scaled so that unit white noise gives E|z|² = 2 (spec §7), so that the
// threshold selects as many peaks as in whitened data. The strain is unit white noise per detector.
// The windows reach 10 s before a candidate (the slides): the part inside the chunk is its SNR,
// the rest comes from a pool of white complex noise of the same variance, standing in for the SNR
// history a streaming search keeps (the search's cost does not depend on the values). Gathering
// them (the candidates' templates' SNR rows of the chunk from the backend, snr_rows, then a row
// per candidate and detector: about 4 GB for 1,600 candidates, kept from chunk to chunk with
// their noise, so that per chunk only the chunk's part of a row is rewritten, as a ring of the
// history would take only the new chunk) is timed apart as "windows", the
// stand-in for that history rather than a cost of the job in this form; "coherent"
// is coherent_search alone (on CUDA with its own upload of every task's windows). The offline
// job's second pass (re-filtering each candidate's template over a warm-up) is not part of a
// chunk here: a streaming search keeps the states instead.
#include <omp.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "coherent_history.hpp"
#include "coherent_snr.hpp"
#include "coherent_triggers.hpp"
#include "device.hpp"
#include "multirate.hpp"
#include "multirate_filter.hpp"
#include "snr_history.hpp"
#include "spiir_backend.hpp"
#include "spiir_units.hpp"

using namespace astrosweep;
using namespace astrosweep::spiir;

namespace {

using Clock = std::chrono::steady_clock;

struct Config {
  std::string backend = "all";
  std::string history = "device";
  std::size_t templates = 1024, filters = 512, rate = 4096;
  int chunks = 30, warmup = 3, threads = 0, sky_order = 5, n_slides = 100;
  Precision precision = Precision::fp32;
  double threshold = 4.0;
  int levels = 1;                    ///< rates of the bank (--levels)
  std::string level_sum = "device";  ///< where a multi-rate bank's levels are summed on CUDA
};

/// E|y|² of one template's summed filters for unit white input: Σ_l Σ_m b_l b̄_m Σ_k a_l^k ā_m^(k+Δ)
/// with Δ = d_l − d_m (and the roles swapped for Δ < 0), i.e. b_l b̄_m ā_m^Δ / (1 − a_l ā_m).
double white_noise_power(const std::vector<IirFilter>& filters) {
  std::complex<double> sum = 0;
  for (const IirFilter& l : filters)
    for (const IirFilter& m : filters) {
      const std::int64_t delta = l.delay - m.delay;
      const std::complex<double> lag = delta >= 0 ? std::pow(std::conj(m.a1), static_cast<double>(delta))
                                                  : std::pow(l.a1, static_cast<double>(-delta));
      sum += l.b0 * std::conj(m.b0) * lag / (1.0 - l.a1 * std::conj(m.a1));
    }
  return sum.real();
}

/// The level filter l of `filters` runs at in a bank of `levels` rates.
int level_of(std::size_t l, std::size_t filters, int levels) {
  return static_cast<int>(l * static_cast<std::size_t>(levels) / filters);
}

/// The seed's synthetic bank (bench_spiir.cpp's draws), each template scaled to E|z|² = 2 in unit
/// white noise (spec §7), at the top rate; with levels > 1, each pole's frequency divided by 2^level
/// of the level its filter will run at (multirate_seed_bank).
std::vector<std::vector<IirFilter>> normalised_seed_filters(std::size_t templates, std::size_t filters, int levels,
                                                            int threads) {
  std::mt19937_64 rng(42);
  std::uniform_real_distribution<double> u(0, 1);
  std::vector<std::vector<IirFilter>> per_template(templates);
  for (auto& t : per_template)
    for (std::size_t l = 0; l < filters; ++l) {
      const double radius = 0.9 + 0.099 * u(rng), phase = -3.0 * u(rng);
      t.push_back({std::polar(radius, std::ldexp(phase, -level_of(l, filters, levels))),
                   std::polar(0.1 + u(rng), 6.28 * u(rng)), static_cast<std::int64_t>(l) * 20});
    }
#pragma omp parallel for schedule(dynamic) num_threads(threads)
  for (std::size_t j = 0; j < templates; ++j) {
    const double scale = std::sqrt(2.0 / white_noise_power(per_template[j]));
    for (auto& f : per_template[j]) f.b0 *= scale;
  }
  return per_template;
}

/// The filters spread over `levels` rates from `rate` down (level_of), each mapped to its rate by
/// at_rate (spec §4).
SpiirBank multirate_seed_bank(const std::vector<std::vector<IirFilter>>& per_template, std::int64_t rate, int levels) {
  SpiirBank bank;
  bank.sample_rate_max = static_cast<double>(rate);
  bank.templates.resize(per_template.size());
  for (int level = 0; level < levels; ++level) {
    std::vector<std::vector<IirFilter>> at_level(per_template.size());
    for (std::size_t t = 0; t < per_template.size(); ++t)
      for (std::size_t l = 0; l < per_template[t].size(); ++l)
        if (level_of(l, per_template[t].size(), levels) == level)
          at_level[t].push_back(at_rate(per_template[t][l], 1 << level));
    bank.rates.push_back(RateBank::pack(rate >> level, at_level));
  }
  return bank;
}

/// A detector's filter for the chunks: the single-rate backend, or the multi-rate stream with its
/// levels summed where --level-sum says (on the CPU always on the host).
std::unique_ptr<SpiirBackend> make_chunk_filter(const Config& config, const RateBank& single, const SpiirBank& multi,
                                                const BackendOptions& options) {
  if (config.levels == 1) return make_spiir_backend(single, config.precision, options);
  if (config.level_sum == "host")
    return std::make_unique<MultirateStream>(
        multi, [&](const RateBank& r) { return make_spiir_backend(r, config.precision, options); });
  return make_multirate_backend(multi, config.precision, options);
}

std::vector<double> white_noise(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> g(0, 1);
  std::vector<double> x(n);
  for (auto& v : x) v = g(rng);
  return x;
}

/// Nearest-rank percentile `q` (0 … 1) of `v`.
double percentile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  const auto rank = static_cast<std::size_t>(std::ceil(q * static_cast<double>(v.size())));
  return v[std::min(v.size() - 1, rank > 0 ? rank - 1 : 0)];
}

double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

struct ChunkTimes {
  std::vector<double> filter, peaks, windows, coherent, total, candidates;
  double mean_power = 0;  ///< E|z|² over H1's last chunk: 2 where the bank's normalisation holds

  /// A timed chunk: its stages' ends (start, filtered, peaks, windows, searched) and candidates.
  void record(const std::array<Clock::time_point, 5>& at, std::size_t n_candidates) {
    const auto ms = [&](std::size_t i) { return std::chrono::duration<double, std::milli>(at[i + 1] - at[i]).count(); };
    filter.push_back(ms(0));
    peaks.push_back(ms(1));
    windows.push_back(ms(2));
    coherent.push_back(ms(3));
    total.push_back(ms_since(at[0]));
    candidates.push_back(static_cast<double>(n_candidates));
  }
};

/// E|z|² over a detector's last chunk, every template's row (after the timed chunks).
double mean_power(SpiirBackend& filter, std::size_t n_templates, std::size_t chunk) {
  std::vector<std::size_t> every(n_templates);
  for (std::size_t t = 0; t < every.size(); ++t) every[t] = t;
  std::vector<std::complex<double>> z(n_templates * chunk);
  filter.snr_rows(every, z);
  double sum = 0;
  for (const auto& v : z) sum += std::norm(v);
  return sum / static_cast<double>(z.size());
}

/// spiirbank's --autocorrelation-length 201: lags −100 … 100.
constexpr std::size_t chisq_half = 100;

/// What both ways of streaming chunks make once: three detectors' filters (states carried from
/// chunk to chunk), the sky search engine and the coherent stage's fixed parts, as the job makes
/// them once per run, and one autocorrelation that every template shares.
struct ChunkStage {
  ChunkStage(const Config& config, const RateBank& bank, const SpiirBank& multi, BackendKind kind,
             std::string& described)
      : chunk(config.rate), rate(static_cast<double>(config.rate)) {
    options.kind = kind;
    options.threads = config.threads;
    for (std::size_t d = 0; d < n_det; ++d) filters.push_back(make_chunk_filter(config, bank, multi, options));
    described = filters.front()->describe();
    engine = make_sky_search(options);
    map = make_sky_map(config.sky_order, ifos, {1.0, 1.0, 0.5}, 1187008882.4, rate);
    search.n_slides = config.n_slides;
    search.slide_samples = static_cast<std::int64_t>(std::llround(0.1 * rate));
    for (int s = -static_cast<int>(chisq_half); s <= static_cast<int>(chisq_half); ++s)
      acf.push_back(std::exp(-0.002 * s * s) * std::polar(1.0, 0.3 * s));
    for (std::size_t d = 0; d < n_det; ++d) strain.push_back(white_noise(chunk * 4, 100 + d));
    best.assign(n_det, std::vector<SampleMax>(chunk));
    usable.assign(chunk, true);
  }
  /// Chunk c of every detector's strain (four chunks of noise, in turn) through its filter, the
  /// per-sample maximum over templates kept in best.
  void filter_chunk(int c) {
    for (std::size_t d = 0; d < n_det; ++d)
      filters[d]->filter_max(std::span(strain[d]).subspan((static_cast<std::size_t>(c) % 4) * chunk, chunk), best[d]);
  }
  /// Detector d's peaks of the chunk: its samples above the threshold, merged per template (§9).
  [[nodiscard]] std::vector<SampleBest> chunk_peaks(std::size_t d, double threshold) const {
    std::vector<SampleBest> above;
    append_sample_best(best[d], usable, threshold, 0, 0, above);
    return merged_peaks(std::move(above), chunk, threshold);
  }
  std::vector<std::string> ifos{"H1", "L1", "V1"};
  std::size_t n_det = 3, chunk;
  double rate;
  BackendOptions options;
  std::vector<std::unique_ptr<SpiirBackend>> filters;
  std::unique_ptr<SkySearchEngine> engine;
  SkyMap map;
  CoherentSettings search;
  std::vector<std::complex<double>> acf;
  std::vector<std::vector<double>> strain;
  std::vector<std::vector<SampleMax>> best;
  std::vector<bool> usable;  ///< every sample of a chunk (white noise has no gaps)
};

/// Streams `config.warmup + config.chunks` chunks of 3 detectors through `kind`; the warm-up
/// chunks are not recorded.
ChunkTimes stream_chunks(const Config& config, const RateBank& bank, const SpiirBank& multi, BackendKind kind,
                         std::string& described) {
  ChunkStage stage(config, bank, multi, kind, described);
  // Plain names (not a structured binding: lambdas below capture some, which clang 14 refuses).
  const std::size_t n_det = stage.n_det, chunk = stage.chunk;
  const auto& ifos = stage.ifos;
  auto& filters = stage.filters;
  const auto& engine = stage.engine;
  const auto& map = stage.map;
  const auto& search = stage.search;
  const auto& acf = stage.acf;
  const std::int64_t reach = read_margin(map, search) + static_cast<std::int64_t>(chisq_half);
  const std::int64_t before = reach + search.n_slides * search.slide_samples, after = reach;
  const auto window = static_cast<std::size_t>(before + after + 1);
  std::vector<std::complex<double>> pool(window * 8);
  {
    std::mt19937_64 rng(11);
    std::normal_distribution<double> g(0, 1);
    for (auto& z : pool) z = {g(rng), g(rng)};
  }

  // Per detector: the SNR rows of the chunk's candidates' templates, and each template's row there.
  std::vector<std::vector<std::complex<double>>> rows(n_det);
  std::vector<std::size_t> row_templates;
  std::vector<std::size_t> row_of(bank.n_templates);
  // One NetworkSnr row per candidate: its template's SNR over the window, the chunk's where the
  // window overlaps it (the candidate at index `before` of its row); the same autocorrelation for
  // every row. Both kept from chunk to chunk and grown as needed (fresh pages would cost more than
  // the copies).
  NetworkSnr snr;
  snr.ifos = ifos;
  snr.n_samples = window;
  snr.z.resize(n_det);
  TemplateAutocorrelations ac;
  ac.length = acf.size();
  ac.per_ifo.resize(n_det);
  // Per row and detector, the part [lo, hi) that holds the chunk's SNR (the rest is noise); rows
  // get their noise once, when first needed.
  std::vector<std::pair<std::int64_t, std::int64_t>> chunk_part;
  const auto noise_of = [&](std::size_t k, std::size_t d) { return pool.data() + (k * 3 + d) % 8 * window / 8; };
  const auto grow_noise = [&](std::size_t n_rows) {
    for (std::size_t k = chunk_part.size() / n_det; k < n_rows; ++k)
      for (std::size_t d = 0; d < n_det; ++d) {
        std::copy(noise_of(k, d), noise_of(k, d) + window, snr.z[d].data() + k * window);
        chunk_part.emplace_back(0, 0);
      }
  };
  ChunkTimes times;
  for (int c = 0; c < config.warmup + config.chunks; ++c) {
    const auto t0 = Clock::now();
    stage.filter_chunk(c);
    const auto t1 = Clock::now();
    std::vector<std::vector<SampleBest>> peaks(n_det);
    for (std::size_t d = 0; d < n_det; ++d) peaks[d] = stage.chunk_peaks(d, config.threshold);
    const auto t2 = Clock::now();
    std::vector<Candidate> candidates;
    for (std::size_t d = 0; d < n_det; ++d)
      for (std::size_t i = 0; i < peaks[d].size(); ++i) candidates.push_back({d, candidates.size(), before});
    snr.n_templates = candidates.size();
    // Grown, never shrunk: kept rows keep their noise, and no fresh pages or zeros a chunk.
    for (auto& per_ifo : snr.z) per_ifo.resize(std::max(per_ifo.size(), candidates.size() * window));
    grow_noise(candidates.size());
    // The candidates' templates (each once), their rows of the chunk from every detector's backend.
    row_templates.clear();
    std::vector<bool> wanted(bank.n_templates, false);
    for (const auto& per_detector : peaks)
      for (const SampleBest& p : per_detector) wanted[static_cast<std::size_t>(p.template_index)] = true;
    for (std::size_t t = 0; t < bank.n_templates; ++t)
      if (wanted[t]) {
        row_of[t] = row_templates.size();
        row_templates.push_back(t);
      }
    for (std::size_t d = 0; d < n_det; ++d) {
      rows[d].resize(row_templates.size() * chunk);
      filters[d]->snr_rows(row_templates, rows[d]);
    }
    // Rows apart, a thread per candidate. A row is its noise but for the chunk's part: the noise
    // stays from chunk to chunk (row k's is always the same), so a row gets back the noise where
    // its previous chunk's part was and this chunk's part over it, as a ring of the SNR history
    // would take only the new chunk (the copies are memory-bound: the whole rows were 4 GB).
    std::vector<const SampleBest*> peak_of;
    for (const auto& per_detector : peaks)
      for (const SampleBest& p : per_detector) peak_of.push_back(&p);
#pragma omp parallel for schedule(static) num_threads(config.threads)
    for (std::size_t k = 0; k < peak_of.size(); ++k) {
      const SampleBest& p = *peak_of[k];
      for (std::size_t d = 0; d < n_det; ++d) {
        std::complex<double>* row = snr.z[d].data() + k * window;
        const std::complex<double>* noise = noise_of(k, d);
        auto& [was_lo, was_hi] = chunk_part[k * n_det + d];
        std::copy(noise + was_lo, noise + was_hi, row + was_lo);
        const std::int64_t first = p.sample - before;  // chunk sample of row[0]
        const std::int64_t lo = std::max<std::int64_t>(0, first);
        const std::int64_t hi = std::min(static_cast<std::int64_t>(chunk), first + static_cast<std::int64_t>(window));
        const auto* series = rows[d].data() + row_of[static_cast<std::size_t>(p.template_index)] * chunk;
        if (lo < hi) std::copy(series + lo, series + hi, row + (lo - first));
        was_lo = lo < hi ? lo - first : 0;
        was_hi = lo < hi ? hi - first : 0;
      }
    }
    ac.n_templates = candidates.size();
    for (auto& per_ifo : ac.per_ifo)
      while (per_ifo.size() < candidates.size() * acf.size()) per_ifo.insert(per_ifo.end(), acf.begin(), acf.end());
    const auto t_windows = Clock::now();
    if (!candidates.empty())
      (void)coherent_search(map, snr, ac, candidates, search, config.precision, config.threads, engine.get());
    const auto t3 = Clock::now();
    if (c < config.warmup) {
      // Room (and pages) for half again as many candidates, so that a timed chunk rarely grows them.
      for (auto& per_ifo : snr.z) per_ifo.resize(std::max(per_ifo.size(), candidates.size() * 3 / 2 * window));
      grow_noise(candidates.size() * 3 / 2);
      continue;
    }
    times.record({t0, t1, t2, t_windows, t3}, candidates.size());
  }
  times.mean_power = mean_power(*filters.front(), bank.n_templates, chunk);
  return times;
}

/// The same chunks with every template's SNR history kept in rings (--history device).
ChunkTimes stream_chunks_history(const Config& config, const RateBank& bank, const SpiirBank& multi, BackendKind kind,
                                 std::string& described) {
  ChunkStage stage(config, bank, multi, kind, described);
  // Plain names (not a structured binding: lambdas below capture some, which clang 14 refuses).
  const std::size_t n_det = stage.n_det, chunk = stage.chunk;
  const double rate = stage.rate;
  const auto& options = stage.options;
  auto& filters = stage.filters;
  const auto& engine = stage.engine;
  const auto& map = stage.map;
  const auto& search = stage.search;
  const auto& acf = stage.acf;
  const SearchReach reach = search_reach(map, search, chisq_half);
  // Room for a candidate that waited a chunk for its χ²'s last lags: its reach and a chunk.
  const std::size_t length = history_length_for(chunk + static_cast<std::size_t>(reach.before + reach.after + 1));
  std::vector<std::unique_ptr<SnrHistory>> rings;
  std::vector<const SnrHistory*> histories;
  for (std::size_t d = 0; d < n_det; ++d) {
    rings.push_back(make_snr_history(bank.n_templates, length, config.precision, options));
    histories.push_back(rings.back().get());
  }
  std::printf(
      "# SNR history: %zu samples (%.1f s) of %zu templates per detector, %.0f MiB each\n", length,
      static_cast<double>(length) / rate, bank.n_templates,
      static_cast<double>(bank.n_templates * length * 2 * (config.precision == Precision::fp32 ? 4 : 8)) / (1 << 20));
  TemplateAutocorrelations ac;  // the same autocorrelation for every template
  ac.length = acf.size();
  ac.n_templates = bank.n_templates;
  ac.per_ifo.resize(n_det);
  for (auto& per_ifo : ac.per_ifo)
    for (std::size_t t = 0; t < bank.n_templates; ++t) per_ifo.insert(per_ifo.end(), acf.begin(), acf.end());

  std::vector<Candidate> waiting, ready;
  ChunkTimes times;
  for (int c = 0; c < config.warmup + config.chunks; ++c) {
    const auto t0 = Clock::now();
    stage.filter_chunk(c);
    const auto t1 = Clock::now();
    const std::int64_t chunk_start = rings.front()->written();
    for (std::size_t d = 0; d < n_det; ++d)
      for (const SampleBest& p : stage.chunk_peaks(d, config.threshold))
        waiting.push_back({d, static_cast<std::size_t>(p.template_index), chunk_start + p.sample});
    const auto t2 = Clock::now();
    for (std::size_t d = 0; d < n_det; ++d) filters[d]->append_snr(*rings[d]);
    const auto t_windows = Clock::now();
    // Those whose reach is written now; those whose reach begins before the oldest sample held (the
    // first chunks only) are dropped.
    const std::int64_t written = rings.front()->written(), oldest = rings.front()->oldest();
    ready.clear();
    std::erase_if(waiting, [&](const Candidate& k) {
      if (k.sample - reach.before < oldest) return true;
      if (k.sample + reach.after >= written) return false;
      ready.push_back(k);
      return true;
    });
    if (!ready.empty())
      (void)coherent_search(map, histories, ac, ready, search, config.precision, config.threads, engine.get());
    const auto t3 = Clock::now();
    if (c < config.warmup) continue;
    times.record({t0, t1, t2, t_windows, t3}, ready.size());
  }
  times.mean_power = mean_power(*filters.front(), bank.n_templates, chunk);
  return times;
}

void print_rows(const std::string& where, const char* precision, const ChunkTimes& t, bool history) {
  const auto row = [&](const char* stage, const std::vector<double>& v, const char* unit) {
    std::printf("%-34s %-5s %-30s %12.2f %s %12.2f %s\n", where.c_str(), precision, stage, percentile(v, 0.5), unit,
                percentile(v, 0.99), unit);
  };
  row("filter+max (3 det, transfers)", t.filter, "ms");
  row("peaks (3 det)", t.peaks, "ms");
  row(history ? "windows (chunk into the rings)" : "windows (SNR rows, see header)", t.windows, "ms");
  row("coherent (chunk's candidates)", t.coherent, "ms");
  row("total per 1-s chunk", t.total, "ms");
  row("candidates per chunk", t.candidates, "  ");
  std::printf("%-34s %-5s %-30s %12.3f    (2 for a normalised bank)\n", where.c_str(), precision,
              "E|z|^2 (H1, last chunk)", t.mean_power);
  std::fflush(stdout);
}

/// ", L<levels> <where>-sum" for a multi-rate bank (its levels summed on the host or the device),
/// else nothing: short enough for the table's first column.
std::string levels_label(const Config& config, const std::string& where) {
  return config.levels > 1 ? ", L" + std::to_string(config.levels) + " " + where + "-sum" : "";
}

[[noreturn]] void usage(const char* argv0) {
  std::fprintf(stderr,
               "usage: %s [--backend cpu|cuda|all] [--templates N] [--filters F] [--rate HZ] [--chunks C] "
               "[--warmup W] [--threads T] [--precision fp32|fp64] [--threshold X] [--sky-order K] [--n-slides S] "
               "[--levels L] [--level-sum device|host] [--history device|windows]\n",
               argv0);
  std::exit(2);
}

}  // namespace

int main(int argc, char** argv) {
  Config config;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (i + 1 >= argc) usage(argv[0]);
    const char* v = argv[++i];
    if (a == "--backend")
      config.backend = v;
    else if (a == "--templates")
      config.templates = static_cast<std::size_t>(std::atoll(v));
    else if (a == "--filters")
      config.filters = static_cast<std::size_t>(std::atoll(v));
    else if (a == "--rate")
      config.rate = static_cast<std::size_t>(std::atoll(v));
    else if (a == "--chunks")
      config.chunks = std::atoi(v);
    else if (a == "--warmup")
      config.warmup = std::atoi(v);
    else if (a == "--threads")
      config.threads = std::atoi(v);
    else if (a == "--precision" && (std::string(v) == "fp32" || std::string(v) == "fp64"))
      config.precision = std::string(v) == "fp32" ? Precision::fp32 : Precision::fp64;
    else if (a == "--threshold")
      config.threshold = std::atof(v);
    else if (a == "--sky-order")
      config.sky_order = std::atoi(v);
    else if (a == "--n-slides")
      config.n_slides = std::atoi(v);
    else if (a == "--levels")
      config.levels = std::atoi(v);
    else if (a == "--level-sum" && (std::string(v) == "device" || std::string(v) == "host"))
      config.level_sum = v;
    else if (a == "--history" && (std::string(v) == "device" || std::string(v) == "windows"))
      config.history = v;
    else
      usage(argv[0]);
  }
  if (config.templates == 0 || config.filters == 0 || config.rate < 64 || config.chunks < 1 || config.warmup < 0 ||
      config.n_slides < 0 || config.levels < 1 || config.levels > 7 ||
      config.rate % (std::size_t{1} << (config.levels - 1)) != 0 ||
      config.filters < static_cast<std::size_t>(config.levels) ||
      (config.backend != "cpu" && config.backend != "cuda" && config.backend != "all"))
    usage(argv[0]);
  if (config.threads <= 0) config.threads = omp_get_max_threads();
  const char* precision = config.precision == Precision::fp32 ? "fp32" : "fp64";

  std::printf(
      "# astrosweep_bench_spiir_latency --backend %s --templates %zu --filters %zu --rate %zu --chunks %d --warmup %d "
      "--threads %d --precision %s --threshold %g --sky-order %d --n-slides %d --levels %d --level-sum %s "
      "--history %s\n",
      config.backend.c_str(), config.templates, config.filters, config.rate, config.chunks, config.warmup,
      config.threads, precision, config.threshold, config.sky_order, config.n_slides, config.levels,
      config.level_sum.c_str(), config.history.c_str());
  std::printf(
      "# 1-s chunks of unit white noise in H1 L1 V1; seed Table II bank (delays l x 20, |a1| in [0.9, 0.999)),"
      " E|z|^2 = 2 per template; target (spec 14): < 100 ms per chunk, 3 detectors, 1024 templates\n");
  const auto t0 = Clock::now();
  const auto rate = static_cast<std::int64_t>(config.rate);
  const auto seed_filters = normalised_seed_filters(config.templates, config.filters, config.levels, config.threads);
  const RateBank bank = RateBank::pack(rate, seed_filters);
  const SpiirBank multi = config.levels > 1 ? multirate_seed_bank(seed_filters, rate, config.levels) : SpiirBank{};
  const std::size_t latency = config.levels > 1 ? MultirateLayout(multi).latency : 0;
  // Chunks before the filters have settled (every filter reached by the input, the slowest pole,
  // |a1| = 0.999, decayed by 1e-3: 6,905 samples, and the multi-rate stream's latency) give fewer
  // peaks: never timed.
  const auto settle = static_cast<std::size_t>(bank.max_delay()) + 6905 + latency;
  config.warmup = std::max(config.warmup, static_cast<int>((settle + config.rate - 1) / config.rate));
  // Nor chunks before the rings hold a candidate's whole reach (the slides': 10 s and the margins),
  // in either form, so that both time the same chunks.
  const auto slides_reach = static_cast<std::size_t>(config.n_slides) *
                                static_cast<std::size_t>(std::llround(0.1 * static_cast<double>(config.rate))) +
                            1024;
  config.warmup = std::max(config.warmup, static_cast<int>((slides_reach + config.rate - 1) / config.rate) + 1);
  std::printf(
      "# bank made and normalised in %.1f s; per chunk: median and 99th percentile (nearest rank) of %d chunks after "
      "%d (at least the filters' settling)\n",
      ms_since(t0) * 1e-3, config.chunks, config.warmup);
  std::printf("%-34s %-5s %-30s %15s %15s\n", "backend", "prec", "stage", "median", "p99");

  const bool want_cpu = config.backend != "cuda", want_cuda = config.backend != "cpu";
  const bool history = config.history == "device";
  if (want_cpu) {
    std::string described;
    const ChunkTimes t = history ? stream_chunks_history(config, bank, multi, BackendKind::cpu, described)
                                 : stream_chunks(config, bank, multi, BackendKind::cpu, described);
    print_rows("OpenMP, " + std::to_string(config.threads) + " threads" + levels_label(config, "host"), precision, t,
               history);
  }
  if (want_cuda) {
    if (cuda_device_count() == 0) {
      std::printf("%-34s skipped: no CUDA device (or a CPU-only build)\n", "cuda");
      return config.backend == "cuda" ? 5 : 0;
    }
    std::string described;
    const ChunkTimes t = history ? stream_chunks_history(config, bank, multi, BackendKind::cuda, described)
                                 : stream_chunks(config, bank, multi, BackendKind::cuda, described);
    if (config.levels > 1) described = "cuda" + levels_label(config, config.level_sum);
    if (described.size() > 34) described.resize(34);
    print_rows(described, precision, t, history);
  }
  return 0;
}
