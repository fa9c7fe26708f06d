#pragma once
// The coherent search over SNR histories (snr_history.hpp) instead of a NetworkSnr: a streaming
// search's form (issue 13), where every template's recent SNR stays in a ring per detector and the
// candidates' samples are absolute. The same results as coherent_search over a NetworkSnr holding
// the same values (bit for bit: the same per-task code reads the same samples). Where `engine`
// reads the histories where they lie (SkySearchEngine::reads_histories: the CUDA engine with CUDA
// histories on its device; rounded reads) only the tasks go to it and picks, ζ and χ² come back
// (the bank's χ² tables go to it once, on the first search over an `autocorrelations` object whose
// tables it does not hold: SkyChisqKey); otherwise each task's windows are read from the histories
// (SnrHistory::read) and searched on `engine` (its window search) or the CPU.
#include <span>
#include <vector>

#include "autocorrelation_chisq.hpp"
#include "coherent_snr.hpp"
#include "snr_history.hpp"

namespace astrosweep::spiir {

/// Samples before and after a candidate's sample that its search reads: the read margin, the
/// slides (before) and the χ² half-length K.
struct SearchReach {
  std::int64_t before = 0, after = 0;
};
SearchReach search_reach(const SkyMap& map, const CoherentSettings& settings, std::size_t chisq_half_length);

/// The search over `histories` (one per detector of the map, in its order, in `precision`, every
/// one of autocorrelations.n_templates templates): candidate-major results, 1 + n_slides per
/// candidate, as coherent_search. A candidate's `sample` is absolute (SnrHistory's count). Throws
/// UsageError when a candidate's reads are not all held by the histories (search_reach), or the
/// histories do not fit the map, the autocorrelations or the precision.
std::vector<CoherentResult> coherent_search(const SkyMap& map, std::span<const SnrHistory* const> histories,
                                            const TemplateAutocorrelations& autocorrelations,
                                            std::span<const Candidate> candidates, const CoherentSettings& settings,
                                            Precision precision, int threads = 0, SkySearchEngine* engine = nullptr);

}  // namespace astrosweep::spiir
