#include "candidates.hpp"

#include <algorithm>
#include <cmath>

#include "accel_statistics.hpp"
#include "core/error.hpp"

namespace astrosweep::fdas {

bool insert_candidate(std::vector<Candidate>& list, const Candidate& c) {
  if (list.empty()) {
    list.push_back(c);
    return true;
  }
  // PRESTO walks to the first entry at or above c.r, stopping at the last entry: `next` is that
  // entry, `prev` the one before it (if any).
  std::size_t next = 0;
  while (next + 1 < list.size() && list[next].r < c.r) ++next;
  const bool has_prev = next > 0;
  const std::size_t prev = has_prev ? next - 1 : 0;
  const double next_diff = std::abs(c.r - list[next].r);
  const double prev_diff = has_prev ? std::abs(c.r - list[prev].r) : accel_closest_r + 1.0;

  if (prev_diff < accel_closest_r) {
    bool added = false;
    if (list[prev].sigma < c.sigma) {
      list[prev] = c;
      added = true;
    }
    if (next_diff < accel_closest_r && list[next].sigma < c.sigma) {
      if (added) {
        list.erase(list.begin() + static_cast<std::ptrdiff_t>(next));  // absorbed both neighbours
      } else {
        list[next] = c;
        added = true;
      }
    }
    return added;
  }
  if (next_diff < accel_closest_r) {
    if (list[next].sigma < c.sigma) {
      list[next] = c;
      return true;
    }
    return false;
  }
  // A new candidate. PRESTO appends only when the last entry is more than 15 bins below; at exactly
  // 15 it falls through to inserting before `next` (its list is then out of r order there).
  if (next + 1 == list.size() && list[next].r < c.r - accel_closest_r) {
    list.push_back(c);
  } else {
    list.insert(list.begin() + static_cast<std::ptrdiff_t>(next), c);
  }
  return true;
}

CandidateList::CandidateList(std::size_t max_candidates) : max_(max_candidates) {
  AS_EXPECTS(max_candidates > 0, UsageError, "the candidate cap per series must be at least 1");
}

bool CandidateList::insert(const Candidate& c) {
  const bool added = insert_candidate(list_, c);
  if (list_.size() > max_) {
    overflowed_ = true;
    // Drop the weakest; among equal sigma (and power) the last in the list.
    std::size_t weakest = 0;
    for (std::size_t k = 1; k < list_.size(); ++k) {
      const auto& a = list_[k];
      const auto& w = list_[weakest];
      if (a.sigma < w.sigma || (a.sigma == w.sigma && a.power <= w.power)) weakest = k;
    }
    const bool dropped_new = list_[weakest].r == c.r && list_[weakest].z == c.z && list_[weakest].sigma == c.sigma &&
                             list_[weakest].power == c.power && list_[weakest].numharm == c.numharm;
    list_.erase(list_.begin() + static_cast<std::ptrdiff_t>(weakest));
    return added && !dropped_new;
  }
  return added;
}

namespace {
void check_plane(const StagePlane& plane) {
  AS_EXPECTS(
      plane.z_max >= 0 && plane.z_max % 2 == 0 && plane.n_cols >= 0 &&
          plane.summed.size() == static_cast<std::size_t>(plane.z_max + 1) * static_cast<std::size_t>(plane.n_cols),
      UsageError, "stage plane: its size is not (z_max + 1) × n_cols");
}

Candidate cell_candidate(const HarmonicStage& stage, const StagePlane& plane, int row, std::int64_t k, float power,
                         float sigma) {
  // As PRESTO: r = (r_lo + k·0.5)/H and z = (z_lo + j·2)/H, both exact in double before the division.
  const double r = 0.5 * static_cast<double>(plane.i_begin + k);
  const double z = static_cast<double>(-plane.z_max + 2 * row);
  return Candidate{r / stage.numharm, z / stage.numharm, power, sigma, stage.numharm, stage.stage};
}
}  // namespace

std::size_t detect_stage_candidates(const HarmonicStage& stage, const StagePlane& plane, float powcut, double n_indep,
                                    CandidateList& list) {
  check_plane(plane);
  std::size_t above = 0;
  const auto n_cols = static_cast<std::size_t>(plane.n_cols);
  for (int j = 0; j <= plane.z_max; ++j) {
    const float* row = plane.summed.data() + static_cast<std::size_t>(j) * n_cols;
    for (std::size_t k = 0; k < n_cols; ++k) {
      const float power = row[k];
      if (!(power > powcut)) continue;
      ++above;
      const auto sigma = static_cast<float>(candidate_sigma(power, stage.numharm, n_indep));
      list.insert(cell_candidate(stage, plane, j, static_cast<std::int64_t>(k), power, sigma));
    }
  }
  return above;
}

MeanSd outlier_rejected_mean_sd(std::span<const float> values, double sigma_constant) {
  AS_EXPECTS(sigma_constant > 0, UsageError, "the outlier-rejection constant must be positive");
  auto stats = [&](double lo, double hi) {
    double sum = 0, sum2 = 0;
    std::size_t n = 0;
    for (const float v : values) {
      const auto x = static_cast<double>(v);
      if (x < lo || x > hi) continue;
      sum += x;
      ++n;
    }
    const double mean = n ? sum / static_cast<double>(n) : 0.0;
    for (const float v : values) {
      const auto x = static_cast<double>(v);
      if (x < lo || x > hi) continue;
      sum2 += (x - mean) * (x - mean);
    }
    return MeanSd{mean, n > 1 ? std::sqrt(sum2 / static_cast<double>(n - 1)) : 0.0, n};
  };
  MeanSd m = stats(-HUGE_VAL, HUGE_VAL);
  for (int round = 0; round < 50 && m.used > 1; ++round) {
    const MeanSd next = stats(m.mean - sigma_constant * m.sd, m.mean + sigma_constant * m.sd);
    const bool converged = next.used == m.used;
    m = next;
    if (converged) break;
  }
  return m;
}

std::vector<Candidate> detect_msd_candidates(const HarmonicStage& stage, const StagePlane& plane, double sigma_constant,
                                             double sigma_cutoff) {
  check_plane(plane);
  std::vector<Candidate> found;
  const MeanSd msd = outlier_rejected_mean_sd(plane.summed, sigma_constant);
  if (!(msd.sd > 0)) return found;
  const int n_z = plane.z_max + 1;
  const std::int64_t n_cols = plane.n_cols;
  auto at = [&](int j, std::int64_t k) {
    return plane.summed[static_cast<std::size_t>(j) * static_cast<std::size_t>(n_cols) + static_cast<std::size_t>(k)];
  };
  for (int j = 0; j < n_z; ++j) {
    for (std::int64_t k = 0; k < n_cols; ++k) {
      const float p = at(j, k);
      const double snr = (static_cast<double>(p) - msd.mean) / msd.sd;
      if (!(snr > sigma_cutoff)) continue;
      bool is_max = true;
      for (int dj = -1; dj <= 1 && is_max; ++dj)
        for (int dk = -1; dk <= 1 && is_max; ++dk) {
          if (dj == 0 && dk == 0) continue;
          const int jj = j + dj;
          const std::int64_t kk = k + dk;
          if (jj < 0 || jj >= n_z || kk < 0 || kk >= n_cols) continue;
          const float q = at(jj, kk);
          const bool earlier = dj < 0 || (dj == 0 && dk < 0);  // z-major order
          if (q > p || (earlier && q == p)) is_max = false;
        }
      if (is_max) found.push_back(cell_candidate(stage, plane, j, k, p, static_cast<float>(snr)));
    }
  }
  return found;
}

}  // namespace astrosweep::fdas
