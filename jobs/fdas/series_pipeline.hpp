#pragma once
// One time series from samples to its polished candidates on the CPU (docs/fdas.md): the spectrum
// at a smooth FFT length, its normalisation and birdies, the search over [f_lo, f_hi), PRESTO's
// within-series harmonic elimination (numharm > 1), then every survivor polished and put in
// physical units. The spectrum and the search are the backend's (FdasBackend::search_samples: on
// a GPU both on the device); the rest runs here, on the host, for either backend.

#include <span>
#include <vector>

#include "candidate_rows.hpp"
#include "fdas_backend.hpp"
#include "fdas_options.hpp"
#include "optimise.hpp"
#include "physics.hpp"
#include "series_search.hpp"
#include "template_bank.hpp"

namespace astrosweep::fdas {

struct SeriesFound {
  Candidate found;                     ///< as the search found it (grid r, z; summed power; sigma)
  Polished polished;                   ///< its polished (r, z), powers and phases
  float sigma = 0;                     ///< recomputed from the polished summed power
  PhysicalCandidate physics;           ///< of the polished fundamental
  std::vector<HarmonicRow> harmonics;  ///< its harmonic table (series and number left 0)
};

struct SeriesResult {
  std::size_t n_fft = 0;
  double span_s = 0;                    ///< T = n_fft · tsamp
  std::vector<SeriesFound> candidates;  ///< sigma descending
  std::size_t removed_as_harmonics = 0;
  bool overflowed = false;
  std::vector<StageTrials> stages;
  /// Wall seconds of the phases, for the rank's summary: the spectrum (FFT, normalisation,
  /// birdies), the backend's search (correlation, harmonic sum, thresholds), polishing (with the
  /// harmonic tables).
  double spectrum_seconds = 0, search_seconds = 0, polish_seconds = 0;
};

/// Polishes `list` (sifted, sigma descending) on `spectrum`: each candidate's (r, z) optimised, its
/// sigma recomputed among the trials of the stage that found it (`stages`, indexed by stage), its
/// physics for a series of `span_s` seconds and its harmonic table. The result is in sigma order
/// (stable: ties keep the list's order) and bit for bit the same on any number of `threads`.
std::vector<SeriesFound> polish_candidates(std::span<const std::complex<float>> spectrum,
                                           std::span<const Candidate> list, std::span<const StageTrials> stages,
                                           double span_s, Accuracy accuracy, int threads);

/// Searches one series with the rank's backend (built for the run's bank); throws UsageError when
/// the band is empty for this series.
SeriesResult search_series(std::span<const float> samples, double tsamp, const FdasOptions& options,
                           FdasBackend& backend);

}  // namespace astrosweep::fdas
