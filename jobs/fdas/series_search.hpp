#pragma once
// One series' acceleration search on the CPU, from its normalised spectrum to its candidate list
// (spec §4–§7): the correlation plane over the bins the harmonics need, the harmonic sum stage by
// stage, and at every stage the cells above that stage's threshold merged into the list.
// The reference composition the backends are compared with; the job's CPU backend runs it.

#include <complex>
#include <cstdint>
#include <span>
#include <vector>

#include "candidates.hpp"
#include "correlation.hpp"
#include "template_bank.hpp"

namespace astrosweep::fdas {

struct SearchSettings {
  int numharm = 8;         ///< 1, 2, 4, …, 32
  double sigma_min = 2.0;  ///< PRESTO's -sigma
  double r_lo = 0;         ///< searched band, bins of the highest harmonic: [r_lo, r_hi)
  double r_hi = 0;
  bool block_normalise = true;
  std::size_t max_candidates = default_max_candidates;
  int threads = 0;
};

struct StageTrials {
  int numharm = 1;
  std::int64_t n_indep = 0;  ///< independent trials of the stage (spec §7)
  float powcut = 0;          ///< its power threshold
  std::size_t above = 0;     ///< cells above it
};

struct SeriesCandidates {
  std::vector<Candidate> candidates;  ///< merged, r ascending (PRESTO's list order)
  bool overflowed = false;            ///< the list reached max_candidates
  std::vector<StageTrials> stages;
};

/// Searches bins [settings.r_lo, settings.r_hi) of `spectrum` (normalised: noise power mean 1)
/// with `bank` (numbetween 2: the harmonic tables index half bins) and its kernel spectra.
template <class Real>
SeriesCandidates search_spectrum(std::span<const std::complex<float>> spectrum, const TemplateBank& bank,
                                 const KernelSpectra<Real>& kernels, const SearchSettings& settings);

}  // namespace astrosweep::fdas
