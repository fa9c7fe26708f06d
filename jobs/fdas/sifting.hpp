#pragma once
// Sifting (spec fdas.md §8): within a series, PRESTO accelsearch's removal of harmonically related
// candidates and its notes column; across DM trials, PRESTO's sifting module as its example script
// ACCEL_sift.py drives it. Pure functions over plain structs, so the job can call them on rank 0.
//
// Orders and comparisons follow PRESTO (accel_utils.c: sort_accelcands, eliminate_harmonics,
// compare_rzw_cands; python/presto/sifting.py: Candlist.default_rejection,
// remove_duplicate_candidates, remove_DM_problems, remove_harmonics). Python's sorts are stable,
// so ours are std::stable_sort.

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "candidates.hpp"

namespace astrosweep::fdas {

// ---- Within a series --------------------------------------------------------------------------

/// PRESTO's sort_accelcands: sigma descending, then power descending; stable otherwise.
void sort_by_sigma(std::vector<Candidate>& list);

/// The ratios other than n and 1/n (n = 1 … 16) at which eliminate_harmonics removes a weaker
/// candidate, as {numerator, denominator}, in PRESTO's order.
inline constexpr std::pair<int, int> harmonic_ratios[] = {
    {3, 2}, {5, 2}, {2, 3}, {4, 3}, {5, 3}, {3, 4},  {5, 4},  {2, 5},  {3, 5},  {4, 5},  {5, 6}, {2, 7},
    {3, 7}, {4, 7}, {3, 8}, {5, 8}, {2, 9}, {3, 10}, {2, 11}, {3, 11}, {2, 13}, {3, 13}, {2, 15}};

/// PRESTO's eliminate_harmonics on a list sorted by sort_by_sigma: walking the list, each
/// candidate removes every later one whose r is within 1.5 bins of r·n or r/n (n = 1 … 16) or of
/// r times a harmonic_ratios entry. Returns how many were removed. (accelsearch skips this step
/// when numharm = 1; that choice is the caller's.)
std::size_t eliminate_harmonics(std::vector<Candidate>& sorted);

/// What compare_rzw_cands reads of an optimised candidate: its r, z, their errors (0.5/H, 2/H)
/// and the fundamental harmonic's power.
struct NoteInput {
  double r = 0;
  double z = 0;
  double r_err = 0;
  double z_err = 0;
  double power = 0;
};

/// The notes column of the ACCEL table (PRESTO's compare_rzw_cands), one string per candidate
/// (empty, or at most 20 characters), candidates numbered from 1 in list order: for every ordered
/// pair (i, j), if |r_i − r_j| < 15, |z_i − z_j| > 1 and power_i > power_j, j is noted
/// "SL? of Cand i" (a possible sidelobe); otherwise the first k = 1 … 60 with
/// |r_i − r_j/k| < 3·r_err_j and |z_i − z_j/k| < 2·z_err_j notes j as "H k of Cand i". A note,
/// once written, is kept.
std::vector<std::string> candidate_notes(std::span<const NoteInput> list);

// ---- Across DM trials -------------------------------------------------------------------------

/// One candidate of one series' ACCEL list, as the sifting reads it.
struct SiftInput {
  double dm = 0;  ///< DM of the series
  double T = 0;   ///< span of the series (s): f = r/T
  double r = 0;   ///< fundamental r (bins)
  double z = 0;   ///< fundamental z (bins)
  int numharm = 1;
  double coherent_power = 0;
  std::vector<double> harmonic_powers;  ///< numharm normalised powers, fundamental first
  int series = 0;                       ///< which series (for the caller)
  int candnum = 0;                      ///< its number in that series' list (for the caller)
};

/// A detection at one DM: (DM, S/N, sigma), sifting.py's hit tuple.
struct DmHit {
  double dm = 0;
  double snr = 0;
  double sigma = 0;
};

/// A candidate during and after sifting.
struct SiftedCandidate {
  SiftInput input;
  double sigma = 0;         ///< candidate_sigma(Σ harmonic_powers, numharm, 1), as sifting.py recomputes it
  double snr = 0;           ///< Σ_h √max(0, P_h − 1)
  double summed_power = 0;  ///< Σ harmonic_powers
  std::vector<DmHit> hits;  ///< DMs it was seen at: its own first
  [[nodiscard]] double f() const { return input.r / input.T; }
  [[nodiscard]] double period() const { return input.T / input.r; }
};

/// From a series' candidate to a sifted one, with its sigma, S/N and single hit.
SiftedCandidate prepare_for_sifting(const SiftInput& input);

/// Why a candidate was dropped.
enum class SiftRejection {
  long_period,      ///< P > long_period
  short_period,     ///< P < short_period
  known_bird,       ///< within a known birdie
  threshold,        ///< sigma < sigma_threshold (one harmonic: and coherent power < c_pow_threshold)
  harm_pow_cutoff,  ///< no harmonic reaches harm_pow_cutoff
  rogue_harm_pow,   ///< a high-numbered harmonic dominates
  duplicate,        ///< merged into a stronger candidate within r_err (its hits go there)
  dm_problem,       ///< too few DM hits, best DM too low, or gaps in the DMs of its hits
  harmonic,         ///< a harmonic of a stronger candidate
};
const char* to_string(SiftRejection reason);

/// sifting.py's globals and ACCEL_sift.py's arguments. The defaults are the module's
/// (sigma_threshold 6.0); ACCEL_sift.py sets 4.0.
struct SiftOptions {
  double sigma_threshold = 6.0;
  double c_pow_threshold = 100.0;
  double harm_pow_cutoff = 8.0;
  double r_err = 1.1;
  double short_period = 0.0005;
  double long_period = 15.0;
  int min_num_dms = 2;
  double low_dm_cutoff = 2.0;
  std::vector<std::pair<double, double>> known_birds_f;  ///< (Hz, one-sided width Hz)
  std::vector<std::pair<double, double>> known_birds_p;  ///< (ms, one-sided width ms)
};

/// What ACCEL_sift.py sets over the module's defaults: sigma_threshold 4.0.
SiftOptions accel_sift_defaults();

/// Candlist.default_rejection for one candidate: the first reason that applies, in sifting.py's
/// order (long period, short period, known birds, threshold, harmonic power, rogue harmonic).
std::optional<SiftRejection> default_rejection(const SiftedCandidate& c, const SiftOptions& options);

/// remove_duplicate_candidates: sort by r; a run of candidates within r_err of the run's first
/// collapses into its highest-sigma member, which collects their hits (the scan then restarts from
/// that member). Ends sorted by sigma, descending. Returns how many were merged away.
using Rejected = std::vector<std::pair<SiftedCandidate, SiftRejection>>;
std::size_t remove_duplicate_candidates(std::vector<SiftedCandidate>& list, double r_err, Rejected* rejected = nullptr);

/// remove_DM_problems: drop candidates with fewer than min_num_dms hits, whose highest-sigma hit
/// is at DM ≤ low_dm_cutoff, or whose hits' DMs (positions in the sorted `dms`, matched as "%.2f")
/// are nowhere consecutive. InputError if a hit's DM is not in `dms`. Returns how many were dropped.
std::size_t remove_dm_problems(std::vector<SiftedCandidate>& list, int min_num_dms, std::span<const double> dms,
                               double low_dm_cutoff, Rejected* rejected = nullptr);

/// remove_harmonics: sort by sigma; each candidate removes every weaker one whose f times (or
/// over) n = 1 … 16, or times 3/2, 5/2, 2/3, 4/3, 5/3, 3/4, 5/4, 2/5, 3/5, 4/5, is within f_err
/// times the factor of its f (f_err = r_err/T). Returns how many were removed. (sifting.py, given
/// a single candidate, would remove it and fail; here one candidate stays.)
std::size_t remove_harmonics(std::vector<SiftedCandidate>& list, double r_err, Rejected* rejected = nullptr);

struct SiftResult {
  std::vector<SiftedCandidate> kept;  ///< by sigma, descending
  Rejected rejected;                  ///< in the order they were dropped
};

/// ACCEL_sift.py: default rejection of every candidate, then duplicates, DM problems, harmonics;
/// `dms` is the list of every DM trial searched.
SiftResult sift_candidates(std::span<const SiftInput> candidates, std::span<const double> dms,
                           const SiftOptions& options = {});

}  // namespace astrosweep::fdas
