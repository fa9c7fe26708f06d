#include "sifting.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "accel_statistics.hpp"
#include "core/error.hpp"

namespace astrosweep::fdas {

// ---- Within a series --------------------------------------------------------------------------

void sort_by_sigma(std::vector<Candidate>& list) {
  std::stable_sort(list.begin(), list.end(), [](const Candidate& a, const Candidate& b) {
    if (a.sigma != b.sigma) return a.sigma > b.sigma;
    return a.power > b.power;
  });
}

namespace {
bool harmonically_related(double r_cur, double r_other) {
  constexpr double too_close = 1.5;
  constexpr int max_harm = 16;
  for (int n = 1; n <= max_harm; ++n)
    if (std::abs(r_cur / n - r_other) < too_close) return true;
  for (int n = 1; n <= max_harm; ++n)
    if (std::abs(r_cur * n - r_other) < too_close) return true;
  for (const auto& [num, den] : harmonic_ratios)  // as PRESTO evaluates it: (r·num)/den
    if (std::abs(r_cur * num / den - r_other) < too_close) return true;
  return false;
}
}  // namespace

std::size_t eliminate_harmonics(std::vector<Candidate>& sorted) {
  std::size_t removed = 0;
  for (std::size_t cur = 0; cur + 1 < sorted.size(); ++cur) {
    const double r = sorted[cur].r;
    const auto first = sorted.begin() + static_cast<std::ptrdiff_t>(cur + 1);
    const auto kept_end =
        std::stable_partition(first, sorted.end(), [&](const Candidate& o) { return !harmonically_related(r, o.r); });
    removed += static_cast<std::size_t>(sorted.end() - kept_end);
    sorted.erase(kept_end, sorted.end());
  }
  return removed;
}

std::vector<std::string> candidate_notes(std::span<const NoteInput> list) {
  std::vector<std::string> notes(list.size());
  for (std::size_t i = 0; i < list.size(); ++i) {
    for (std::size_t j = 0; j < list.size(); ++j) {
      if (i == j) continue;
      const auto& a = list[i];
      const auto& b = list[j];
      if (std::abs(a.r - b.r) < 15.0 && std::abs(a.z - b.z) > 1.0 && a.power > b.power) {
        if (notes[j].empty()) notes[j] = "SL? of Cand " + std::to_string(i + 1);
        continue;
      }
      for (int k = 1; k <= 60; ++k) {
        if (std::abs(a.r - b.r / k) < b.r_err * 3 && std::abs(a.z - b.z / k) < b.z_err * 2 && notes[j].empty()) {
          notes[j] = "H " + std::to_string(k) + " of Cand " + std::to_string(i + 1);
          break;
        }
      }
    }
  }
  for (auto& n : notes)
    if (n.size() > 20) n.resize(20);  // PRESTO's fixed 20-byte field
  return notes;
}

// ---- Across DM trials -------------------------------------------------------------------------

SiftedCandidate prepare_for_sifting(const SiftInput& input) {
  AS_EXPECTS(input.numharm >= 1 && input.harmonic_powers.size() == static_cast<std::size_t>(input.numharm), InputError,
             "sifting: a candidate needs one power per harmonic");
  AS_EXPECTS(input.T > 0 && input.r > 0, InputError, "sifting: a candidate needs r > 0 and T > 0");
  SiftedCandidate c{input, 0, 0, 0, {}};
  for (const double p : input.harmonic_powers) {
    c.summed_power += p;
    c.snr += std::sqrt(std::max(0.0, p - 1.0));  // harms_to_snr: the mean noise power removed
  }
  // sifting.py replaces the ACCEL sigma by that of the optimised powers with one trial.
  c.sigma = candidate_sigma(c.summed_power, input.numharm, 1.0);
  c.hits.push_back(DmHit{input.dm, c.snr, c.sigma});
  return c;
}

const char* to_string(SiftRejection reason) {
  switch (reason) {
    case SiftRejection::long_period: return "long_period";
    case SiftRejection::short_period: return "short_period";
    case SiftRejection::known_bird: return "known_bird";
    case SiftRejection::threshold: return "threshold";
    case SiftRejection::harm_pow_cutoff: return "harm_pow_cutoff";
    case SiftRejection::rogue_harm_pow: return "rogue_harm_pow";
    case SiftRejection::duplicate: return "duplicate";
    case SiftRejection::dm_problem: return "dm_problem";
    case SiftRejection::harmonic: return "harmonic";
  }
  return "unknown";
}

SiftOptions accel_sift_defaults() {
  SiftOptions o;
  o.sigma_threshold = 4.0;
  return o;
}

std::optional<SiftRejection> default_rejection(const SiftedCandidate& c, const SiftOptions& o) {
  const double p = c.period();
  if (p > o.long_period) return SiftRejection::long_period;
  if (p < o.short_period) return SiftRejection::short_period;
  for (const auto& [bird, err] : o.known_birds_f)
    if (std::abs(c.f() - bird) < err) return SiftRejection::known_bird;
  for (const auto& [bird, err] : o.known_birds_p)
    if (std::abs(p * 1000.0 - bird) < err) return SiftRejection::known_bird;
  if (c.input.numharm == 1) {
    if (c.sigma < o.sigma_threshold && c.input.coherent_power < o.c_pow_threshold) return SiftRejection::threshold;
  } else if (c.sigma < o.sigma_threshold) {
    return SiftRejection::threshold;
  }
  const auto& pows = c.input.harmonic_powers;
  const auto max_it = std::max_element(pows.begin(), pows.end());  // the first maximum, as argmax
  const auto max_harm = max_it - pows.begin();                     // 0-based, as sifting.py's
  const double max_pow = *max_it;
  if (max_pow < o.harm_pow_cutoff) return SiftRejection::harm_pow_cutoff;
  if (pows.size() >= 2) {
    std::vector<double> sorted(pows);
    std::sort(sorted.begin(), sorted.end());
    const double second = sorted[sorted.size() - 2];
    if (c.input.numharm >= 8 && max_harm > 4 && max_pow > 2 * second) return SiftRejection::rogue_harm_pow;
    if (c.input.numharm >= 4 && max_harm > 2 && max_pow > 3 * second) return SiftRejection::rogue_harm_pow;
  }
  return std::nullopt;
}

namespace {
void sort_by_sifted_sigma(std::vector<SiftedCandidate>& list) {
  std::stable_sort(list.begin(), list.end(),
                   [](const SiftedCandidate& a, const SiftedCandidate& b) { return a.sigma > b.sigma; });
}
void reject(std::vector<SiftedCandidate>& list, std::size_t k, SiftRejection why, Rejected* rejected) {
  if (rejected) rejected->emplace_back(std::move(list[k]), why);
  list.erase(list.begin() + static_cast<std::ptrdiff_t>(k));
}
}  // namespace

std::size_t remove_duplicate_candidates(std::vector<SiftedCandidate>& list, double r_err, Rejected* rejected) {
  std::size_t removed = 0;
  std::stable_sort(list.begin(), list.end(),
                   [](const SiftedCandidate& a, const SiftedCandidate& b) { return a.input.r < b.input.r; });
  std::size_t ii = 0;
  while (ii < list.size()) {
    std::size_t jj = ii + 1;
    if (jj < list.size() && std::abs(list[ii].input.r - list[jj].input.r) < r_err) {
      ++jj;
      while (jj < list.size() && std::abs(list[ii].input.r - list[jj].input.r) < r_err) ++jj;
      // The highest sigma of the run; the first in r order among equals (a stable sort).
      std::size_t best = ii;
      for (std::size_t k = ii + 1; k < jj; ++k)
        if (list[k].sigma > list[best].sigma) best = k;
      // The others, from the last down, give their hits to the best and leave.
      for (std::size_t k = jj; k-- > ii;) {
        if (k == best) continue;
        auto& keep = list[best];
        keep.hits.insert(keep.hits.end(), list[k].hits.begin(), list[k].hits.end());
        reject(list, k, SiftRejection::duplicate, rejected);
        if (k < best) --best;
        ++removed;
      }
      // The best now sits at ii; the scan restarts from it, which may take in more.
    } else {
      ++ii;
    }
  }
  sort_by_sifted_sigma(list);
  return removed;
}

std::size_t remove_dm_problems(std::vector<SiftedCandidate>& list, int min_num_dms, std::span<const double> dms,
                               double low_dm_cutoff, Rejected* rejected) {
  // DMs are matched as sifting.py does, by their "%.2f" text, to their place among the sorted
  // distinct DMs (a later DM with the same text wins the key, as in its dict).
  auto text = [](double dm) {
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%.2f", dm);
    return std::string(buffer);
  };
  std::vector<double> unique(dms.begin(), dms.end());
  std::sort(unique.begin(), unique.end());
  unique.erase(std::unique(unique.begin(), unique.end()), unique.end());
  std::map<std::string, int> index;
  for (std::size_t k = 0; k < unique.size(); ++k) index[text(unique[k])] = static_cast<int>(k);

  sort_by_sifted_sigma(list);
  std::size_t removed = 0;
  for (std::size_t k = list.size(); k-- > 0;) {
    auto& c = list[k];
    bool bad = static_cast<int>(c.hits.size()) < min_num_dms;
    if (!bad && !c.hits.empty()) {
      std::size_t best = 0;  // the first hit of highest sigma, as argmax
      for (std::size_t h = 1; h < c.hits.size(); ++h)
        if (c.hits[h].sigma > c.hits[best].sigma) best = h;
      bad = c.hits[best].dm <= low_dm_cutoff;
    }
    if (!bad && c.hits.size() > 1) {
      std::stable_sort(c.hits.begin(), c.hits.end(), [](const DmHit& a, const DmHit& b) { return a.dm < b.dm; });
      int min_step = -1;
      for (std::size_t h = 0; h < c.hits.size(); ++h) {
        const auto found = index.find(text(c.hits[h].dm));
        AS_EXPECTS(found != index.end(), InputError,
                   "sifting: a candidate's DM " + text(c.hits[h].dm) + " is not among the searched DMs");
        if (h > 0) {
          const int step = found->second - index.at(text(c.hits[h - 1].dm));
          min_step = min_step < 0 ? step : std::min(min_step, step);
        }
      }
      bad = min_step > 1;  // no two hits at consecutive DM trials
    }
    if (bad) {
      reject(list, k, SiftRejection::dm_problem, rejected);
      ++removed;
    }
  }
  return removed;
}

std::size_t remove_harmonics(std::vector<SiftedCandidate>& list, double r_err, Rejected* rejected) {
  if (list.size() < 2) return 0;
  sort_by_sifted_sigma(list);
  const double f_err = r_err / list[0].input.T;
  static constexpr std::pair<double, double> ratios[] = {{3, 2}, {5, 2}, {2, 3}, {4, 3}, {5, 3},
                                                         {3, 4}, {5, 4}, {2, 5}, {3, 5}, {4, 5}};
  std::size_t removed = 0;
  for (std::size_t ii = 0; ii + 1 < list.size(); ++ii) {
    const double f_fund = list[ii].f();
    for (std::size_t jj = list.size() - 1; jj > ii; --jj) {
      const double f = list[jj].f();
      bool zap = false;
      for (int n = 1; n <= 16 && !zap; ++n) {
        const double factor = n;
        zap = std::abs(f_fund - f * factor) < f_err * factor || std::abs(f_fund - f / factor) < f_err / factor;
      }
      for (const auto& [num, den] : ratios) {
        if (zap) break;
        const double factor = num / den;
        zap = std::abs(f_fund - f * factor) < f_err * factor;
      }
      if (zap) {
        reject(list, jj, SiftRejection::harmonic, rejected);
        ++removed;
      }
    }
  }
  return removed;
}

SiftResult sift_candidates(std::span<const SiftInput> candidates, std::span<const double> dms,
                           const SiftOptions& options) {
  SiftResult result;
  for (const auto& input : candidates) {
    auto c = prepare_for_sifting(input);
    if (const auto why = default_rejection(c, options)) {
      result.rejected.emplace_back(std::move(c), *why);
    } else {
      result.kept.push_back(std::move(c));
    }
  }
  if (!result.kept.empty()) remove_duplicate_candidates(result.kept, options.r_err, &result.rejected);
  if (!result.kept.empty())
    remove_dm_problems(result.kept, options.min_num_dms, dms, options.low_dm_cutoff, &result.rejected);
  if (!result.kept.empty()) remove_harmonics(result.kept, options.r_err, &result.rejected);
  sort_by_sifted_sigma(result.kept);
  return result;
}

}  // namespace astrosweep::fdas
