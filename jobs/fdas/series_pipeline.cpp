#include "series_pipeline.hpp"

#include <algorithm>
#include <chrono>
#include <numeric>

#include <cmath>
#include <exception>

#include "accel_statistics.hpp"
#include "core/cpu_affinity.hpp"
#include "core/error.hpp"
#include "harmonic_table.hpp"
#include "sifting.hpp"
#include "spectrum.hpp"

namespace astrosweep::fdas {

namespace {

SeriesFound polished_candidate(std::span<const std::complex<float>> spectrum, const Candidate& c,
                               std::span<const StageTrials> stages, double span_s, Accuracy accuracy, int threads) {
  SeriesFound f;
  f.found = c;
  f.polished = polish(spectrum, c.r, c.z, c.numharm, accuracy, threads);
  // The significance of the polished power among the trials of the stage that found it.
  const auto stage = static_cast<std::size_t>(std::log2(c.numharm));
  AS_EXPECTS(stage < stages.size(), UsageError, "a candidate of a stage the search did not run");
  const double n_indep = static_cast<double>(stages[stage].n_indep);
  f.sigma = static_cast<float>(candidate_sigma(f.polished.summed_power, c.numharm, n_indep));
  f.physics = to_physical(f.polished.r, f.polished.z, c.numharm, span_s);
  f.harmonics = harmonic_rows(spectrum, f.polished, c.r, c.z, c.numharm, threads);
  // PRESTO's "Coherent Power" column adds the harmonics' powers relative to their local powers.
  f.polished.coherent_power = coherent_power(f.harmonics);
  return f;
}

}  // namespace

std::vector<SeriesFound> polish_candidates(std::span<const std::complex<float>> spectrum,
                                           std::span<const Candidate> list, std::span<const StageTrials> stages,
                                           double span_s, Accuracy accuracy, int threads) {
  threads = std::max(threads, 1);
  // Polishing evaluates the exact response (Fresnel integrals) for every harmonic at every step:
  // it costs far more per candidate than the search per cell, about in proportion to the
  // harmonics' response widths summed. With at least as many candidates as threads, one candidate
  // a thread, the costliest first so that no thread is left with a long one at the end; with
  // fewer (the usual handful of a long series), one at a time with each step's response terms
  // spread over the threads. (That way starts and joins a team at every step: on a machine whose
  // cores are taken by others it can wait on a descheduled thread at each step, so it is kept to
  // the case where one candidate a thread would leave threads idle.) The results land in list
  // order and their bits depend neither on the way nor on the thread count.
  std::vector<SeriesFound> polished(list.size());
  const auto cost = [&](std::size_t i) {
    const Candidate& c = list[i];
    return c.numharm * (half_width(0) + 0.55 * std::abs(c.z) * (c.numharm + 1) / 2);
  };
  std::vector<std::size_t> order(list.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return cost(a) > cost(b); });
  const bool per_candidate = list.size() >= static_cast<std::size_t>(threads);
  std::exception_ptr failure;
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads) if (per_candidate)
  for (std::size_t j = 0; j < order.size(); ++j) {
    const std::size_t i = order[j];
    try {
      polished[i] = polished_candidate(spectrum, list[i], stages, span_s, accuracy, per_candidate ? 1 : threads);
    } catch (...) {
#pragma omp critical(fdas_polish_failure)
      if (!failure) failure = std::current_exception();
    }
  }
  if (failure) std::rethrow_exception(failure);
  std::stable_sort(polished.begin(), polished.end(),
                   [](const SeriesFound& a, const SeriesFound& b) { return a.sigma > b.sigma; });
  return polished;
}

SeriesResult search_series(std::span<const float> samples, double tsamp, const FdasOptions& options,
                           FdasBackend& backend) {
  AS_EXPECTS(tsamp > 0, UsageError, "the series has no sampling interval");
  using Clock = std::chrono::steady_clock;
  const auto seconds_since = [](Clock::time_point t) {
    return std::chrono::duration<double>(Clock::now() - t).count();
  };
  SeriesResult result;
  result.n_fft = good_fft_length(samples.size());
  result.span_s = static_cast<double>(result.n_fft) * tsamp;
  const int threads = options.backend.threads > 0 ? options.backend.threads : affinity::default_threads();
  const std::size_t bins = result.n_fft / 2;
  SpectrumRequest request;
  request.n_fft = result.n_fft;
  request.deredden = options.normalisation == Normalisation::deredden;
  if (options.normalisation == Normalisation::known_variance)
    request.known_variance_factor = known_variance_factor(samples.size(), options.known_variance);
  request.birdies = birdie_bins(options.birdies, result.span_s, bins);
  request.threads = threads;

  SearchSettings settings;
  settings.numharm = options.numharm;
  settings.sigma_min = options.sigma_min;
  settings.r_lo = std::max(1.0, options.f_lo * result.span_s);
  settings.r_hi = std::min(options.f_hi * result.span_s, static_cast<double>(bins));
  settings.block_normalise = options.normalisation == Normalisation::deredden;
  settings.max_candidates = options.max_candidates;
  settings.threads = options.backend.threads;
  // The spectrum (made, normalised, birdies zeroed) and the search, by the backend: on a GPU the
  // spectrum stays on the device between them, its host copy (for polishing) coming down meanwhile.
  const SpectrumSearch searched = backend.search_samples(samples, request, settings);
  const std::span<const std::complex<float>> spectrum = searched.spectrum;
  const SeriesCandidates& found = searched.found;
  result.spectrum_seconds = searched.spectrum_seconds;
  result.search_seconds = searched.search_seconds;
  auto t = Clock::now();
  result.overflowed = found.overflowed;
  result.stages = found.stages;

  std::vector<Candidate> list = found.candidates;
  sort_by_sigma(list);
  if (options.numharm > 1) result.removed_as_harmonics = eliminate_harmonics(list);
  result.candidates = polish_candidates(spectrum, list, result.stages, result.span_s, options.accuracy, threads);
  result.polish_seconds = seconds_since(t);
  return result;
}

}  // namespace astrosweep::fdas
