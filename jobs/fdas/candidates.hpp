#pragma once
// Candidates of one series: detection of a harmonic stage's cells above its power threshold and
// PRESTO's merging of nearby detections (spec fdas.md §7), with a per-series cap; and
// AstroAccelerate's alternative detector (outlier-rejecting mean/σ, 3×3 local maxima).
//
// PRESTO keeps one list per series ordered by r. A new detection within ACCEL_CLOSEST_R = 15 bins
// (fundamental r) of the list entries either side of its place replaces them only if its sigma is
// higher; if it beats both, it takes the first one's place and the second is dropped. Merging is
// therefore order-dependent where chains of detections overlap; the job feeds detections in
// PRESTO's serial order (stage by stage; within a stage z-major, r ascending) so that results are
// reproducible, and the GPU path must hand the host its per-stage maxima in that same order.

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "harmonic_tables.hpp"

namespace astrosweep::fdas {

/// PRESTO's ACCEL_CLOSEST_R: detections closer than this (fundamental bins, strictly) merge.
inline constexpr double accel_closest_r = 15.0;
/// The default cap on candidates kept per series.
inline constexpr std::size_t default_max_candidates = 2000;

/// A detection, in the fundamental's terms. power and sigma are float because PRESTO stores and
/// compares them so (its accelcand); ties in merging are decided on the float values.
struct Candidate {
  double r = 0;     ///< fundamental Fourier frequency (bins): summed-plane r / numharm
  double z = 0;     ///< fundamental drift (bins): summed-plane z / numharm
  float power = 0;  ///< summed power of numharm harmonics
  float sigma = 0;  ///< candidate_sigma(power, numharm, n_indep of the stage)
  int numharm = 1;  ///< harmonics summed (2^stage)
  int stage = 0;    ///< harmonic-summing stage
};

/// PRESTO's insert_new_accelcand on a list kept in its order. Returns whether `c` entered the list
/// (as a new entry or replacing one or two). Follows PRESTO exactly, including its one oddity: if
/// the last entry lies exactly 15 bins below c.r, c is inserted before it rather than after.
bool insert_candidate(std::vector<Candidate>& list, const Candidate& c);

/// A series' candidate list with a cap: when a new entry would exceed it, the entry of lowest sigma
/// (the newcomer included; among equals the last in the list) is dropped and the list is flagged.
class CandidateList {
 public:
  explicit CandidateList(std::size_t max_candidates = default_max_candidates);
  bool insert(const Candidate& c);
  [[nodiscard]] const std::vector<Candidate>& candidates() const { return list_; }
  [[nodiscard]] bool overflowed() const { return overflowed_; }
  [[nodiscard]] std::size_t max_candidates() const { return max_; }

 private:
  std::vector<Candidate> list_;
  std::size_t max_;
  bool overflowed_ = false;
};

/// Where a summed stage plane lies: z_max + 1 rows z_j = −z_max + 2j, columns of half-bin index
/// i_begin + k (k < n_cols), z-major, row stride n_cols (as harmonic_sum_reference hands it over).
struct StagePlane {
  std::span<const float> summed;
  int z_max = 0;
  std::int64_t i_begin = 0;
  std::int64_t n_cols = 0;
};

/// PRESTO's search_ffdotpows: every cell with power > powcut (compared in float, as PRESTO stores
/// powcut) becomes Candidate{r = (i/2)/H, z = z_j/H, power, sigma = candidate_sigma(power, H,
/// n_indep)} and is inserted into `list` in z-major, r-ascending order. Returns the number of cells
/// above the threshold.
std::size_t detect_stage_candidates(const HarmonicStage& stage, const StagePlane& plane, float powcut, double n_indep,
                                    CandidateList& list);

/// Outlier-rejecting mean and standard deviation (AstroAccelerate's MSD with outlier rejection):
/// from all values, repeatedly drop those farther than sigma_constant·σ from the mean and
/// recompute, until no value is dropped (at most 50 rounds).
struct MeanSd {
  double mean = 0;
  double sd = 0;
  std::size_t used = 0;  ///< values left after rejection
};
MeanSd outlier_rejected_mean_sd(std::span<const float> values, double sigma_constant);

/// `--detect msd`: cells that are the maximum of their 3×3 (z, r) neighbourhood (neighbours off the
/// plane ignored; among equal values the first in z-major order wins) with (P − μ)/σ > sigma_cutoff,
/// μ and σ from outlier_rejected_mean_sd of the whole stage plane. Returned in z-major, r-ascending
/// order as Candidates whose sigma is that (P − μ)/σ.
std::vector<Candidate> detect_msd_candidates(const HarmonicStage& stage, const StagePlane& plane, double sigma_constant,
                                             double sigma_cutoff);

}  // namespace astrosweep::fdas
