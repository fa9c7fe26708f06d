// Sifting (spec fdas.md §8): within a series, PRESTO's harmonic elimination (the exact ratio list and
// its 1.5-bin edge) and its notes; across DM trials, sifting.py's rejections, DM grouping, the
// ≥ 2-hit and best-DM rules, gaps in DM, and removal of harmonically related groups.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "accel_statistics.hpp"
#include "core/error.hpp"
#include "sifting.hpp"

namespace astrosweep::fdas {
namespace {

Candidate cand(double r, float sigma) { return Candidate{r, 0, sigma * 10, sigma, 8, 3}; }

std::vector<double> rs(const std::vector<Candidate>& list) {
  std::vector<double> out;
  for (const auto& c : list) out.push_back(c.r);
  return out;
}

TEST(WithinSeries, SortBySigmaThenPower) {
  std::vector<Candidate> list{cand(1, 3), cand(2, 5), Candidate{3, 0, 99, 3, 1, 0}, cand(4, 5)};
  sort_by_sigma(list);
  EXPECT_EQ(rs(list), (std::vector<double>{2, 4, 3, 1}));
}

TEST(WithinSeries, HarmonicsCollapseToTheFundamental) {
  // Fundamental r = 1000; 2nd, 3rd harmonics and the 3:2 ratio within 1.5 bins; r = 2001.5 is
  // exactly 1.5 from 2·1000 (kept: strict <); 1234.5 is unrelated.
  std::vector<Candidate> list{cand(1000, 10),    cand(2000.5, 8), cand(2999, 7),    cand(1500.9, 6),
                              cand(2001.5, 5.5), cand(1234.5, 5), cand(500.2, 4.5), cand(4000, 4)};
  sort_by_sigma(list);
  EXPECT_EQ(eliminate_harmonics(list), 5u);
  EXPECT_EQ(rs(list), (std::vector<double>{1000, 2001.5, 1234.5}));
  // Every ratio of the list removes, just inside 1.5 bins; just outside, nothing does.
  for (const auto& [num, den] : harmonic_ratios) {
    const double target = 1000.0 * num / den;
    std::vector<Candidate> in{cand(1000, 9), cand(target + 1.49, 3)};
    EXPECT_EQ(eliminate_harmonics(in), 1u) << num << "/" << den;
  }
  for (int n = 2; n <= 16; ++n) {
    std::vector<Candidate> up{cand(1000, 9), cand(1000.0 * n - 1.49, 3)};
    std::vector<Candidate> down{cand(48000, 9), cand(48000.0 / n + 1.49, 3)};
    EXPECT_EQ(eliminate_harmonics(up), 1u) << n;
    EXPECT_EQ(eliminate_harmonics(down), 1u) << n;
  }
  std::vector<Candidate> seventeen{cand(1000, 9), cand(17000, 3)};  // n = 17 is beyond the list
  EXPECT_EQ(eliminate_harmonics(seventeen), 0u);
  std::vector<Candidate> none;
  EXPECT_EQ(eliminate_harmonics(none), 0u);
  std::vector<Candidate> one{cand(5, 1)};
  EXPECT_EQ(eliminate_harmonics(one), 0u);
}

TEST(WithinSeries, Notes) {
  const std::vector<NoteInput> list{{100, 0, 0.5, 2, 50}, {300.2, 0.3, 0.5, 2, 20}, {105, 10, 0.5, 2, 10}};
  const auto notes = candidate_notes(list);
  ASSERT_EQ(notes.size(), 3u);
  EXPECT_EQ(notes[0], "");
  EXPECT_EQ(notes[1], "H 3 of Cand 1");
  EXPECT_EQ(notes[2], "SL? of Cand 1");
  EXPECT_TRUE(candidate_notes({}).empty());
  const std::vector<NoteInput> single{{100, 0, 0.5, 2, 50}};
  EXPECT_EQ(candidate_notes(single), (std::vector<std::string>{""}));
}

// ---- Across DM trials ---------------------------------------------------------------------------

constexpr double T = 100.0;

SiftInput input(double dm, double r, std::vector<double> powers, double cpow = 0) {
  SiftInput s;
  s.dm = dm;
  s.T = T;
  s.r = r;
  s.numharm = static_cast<int>(powers.size());
  s.harmonic_powers = std::move(powers);
  s.coherent_power = cpow;
  return s;
}

const std::vector<double> dms{0.5, 1.0, 10.0, 11.0, 12.0, 13.0, 14.0};

TEST(AcrossDm, PrepareRecomputesSigmaAndSnr) {
  const auto c = prepare_for_sifting(input(11, 1000, {30, 20, 0.5, 5}));
  EXPECT_DOUBLE_EQ(c.summed_power, 55.5);
  EXPECT_DOUBLE_EQ(c.snr, std::sqrt(29.0) + std::sqrt(19.0) + 0.0 + 2.0);
  EXPECT_DOUBLE_EQ(c.sigma, candidate_sigma(55.5, 4, 1));
  ASSERT_EQ(c.hits.size(), 1u);
  EXPECT_EQ(c.hits[0].dm, 11.0);
  EXPECT_DOUBLE_EQ(c.f(), 10.0);
  EXPECT_DOUBLE_EQ(c.period(), 0.1);
  EXPECT_THROW(prepare_for_sifting(input(11, 1000, {})), InputError);
}

TEST(AcrossDm, DefaultRejections) {
  const SiftOptions o;
  auto why = [&](const SiftInput& s) { return default_rejection(prepare_for_sifting(s), o); };
  EXPECT_EQ(why(input(11, 5, {60, 40})), SiftRejection::long_period);        // P = 20 s
  EXPECT_EQ(why(input(11, 250000, {60, 40})), SiftRejection::short_period);  // P = 0.4 ms
  EXPECT_EQ(why(input(11, 1000, {12, 10})), SiftRejection::threshold);       // sigma < 6
  EXPECT_EQ(why(input(11, 1000, {20}, 99)), SiftRejection::threshold);       // one harmonic, both low
  EXPECT_EQ(why(input(11, 1000, {20}, 100)), std::nullopt);                  // coherent power saves it
  EXPECT_EQ(why(input(11, 1000, {7.9, 7.9, 7.9, 7.9, 7.9, 7.9, 7.9, 7.9})), SiftRejection::harm_pow_cutoff);
  EXPECT_EQ(why(input(11, 1000, {8.0, 7.9, 7.9, 7.9, 7.9, 7.9, 7.9, 7.9})), std::nullopt);    // 8.0 is enough
  EXPECT_EQ(why(input(11, 1000, {9, 9, 9, 9, 9, 40, 9, 9})), SiftRejection::rogue_harm_pow);  // 6th of 8
  EXPECT_EQ(why(input(11, 1000, {9, 9, 9, 30})), SiftRejection::rogue_harm_pow);              // 4th of 4, 3×
  EXPECT_EQ(why(input(11, 1000, {9, 9, 9, 26})), std::nullopt);                               // < 3× the next
  SiftOptions birds;
  birds.known_birds_f = {{10.0, 0.05}};
  EXPECT_EQ(default_rejection(prepare_for_sifting(input(11, 1000, {60, 40})), birds), SiftRejection::known_bird);
  // The sigma threshold: 6.0 by default, ACCEL_sift.py's 4.0 as an option.
  const auto mid = prepare_for_sifting(input(11, 1000, {13, 10}));
  ASSERT_GT(mid.sigma, 4.0);
  ASSERT_LT(mid.sigma, 6.0);
  EXPECT_EQ(default_rejection(mid, o), SiftRejection::threshold);
  SiftOptions four;
  four.sigma_threshold = 4.0;
  EXPECT_EQ(default_rejection(mid, four), std::nullopt);
}

TEST(AcrossDm, DuplicatesGroupWithinRErr) {
  std::vector<SiftedCandidate> list;
  for (const auto& s : {input(10, 1000.3, {20, 15}), input(11, 999.8, {40, 30}), input(12, 1000.8, {25, 15}),
                        input(13, 1001.0, {20, 10}), input(11, 1500, {30, 20})})
    list.push_back(prepare_for_sifting(s));
  Rejected rejected;
  // Sorted by r: 999.8 starts a run with 1000.3 and 1000.8 (< 1.1 away, measured from the run's
  // first, not chained); 999.8 is its best and takes their hits. The scan restarts from it: 1001.0
  // is 1.2 away and stays a separate candidate, as does 1500.
  EXPECT_EQ(remove_duplicate_candidates(list, 1.1, &rejected), 2u);
  ASSERT_EQ(list.size(), 3u);
  EXPECT_EQ(list[0].input.r, 999.8);  // the highest sigma first
  std::vector<double> hit_dms;
  for (const auto& h : list[0].hits) hit_dms.push_back(h.dm);
  EXPECT_EQ(hit_dms, (std::vector<double>{11, 12, 10}));  // its own, then the others from the last down
  EXPECT_EQ(rejected.size(), 2u);
  EXPECT_EQ(rejected[0].second, SiftRejection::duplicate);
  std::vector<SiftedCandidate> empty;
  EXPECT_EQ(remove_duplicate_candidates(empty, 1.1), 0u);
}

TEST(AcrossDm, DmRules) {
  auto with_hits = [](double r, std::vector<double> hit_dms, double best_dm) {
    auto c = prepare_for_sifting(input(best_dm, r, {40, 30}));
    c.hits.clear();
    for (double dm : hit_dms) c.hits.push_back(DmHit{dm, 1, dm == best_dm ? 9.0 : 5.0});
    return c;
  };
  std::vector<SiftedCandidate> list{with_hits(100, {11}, 11),           // one hit
                                    with_hits(200, {11, 12}, 11),       // two consecutive: kept
                                    with_hits(300, {0.5, 1.0}, 1.0),    // best DM ≤ 2
                                    with_hits(400, {10, 14}, 10),       // a gap
                                    with_hits(500, {14, 10, 11}, 14)};  // 10, 11 consecutive: kept
  Rejected rejected;
  EXPECT_EQ(remove_dm_problems(list, 2, dms, 2.0, &rejected), 3u);
  std::vector<double> kept;
  for (const auto& c : list) kept.push_back(c.input.r);
  std::sort(kept.begin(), kept.end());
  EXPECT_EQ(kept, (std::vector<double>{200, 500}));
  std::vector<SiftedCandidate> unknown{with_hits(1, {11, 11.5}, 11)};
  EXPECT_THROW(remove_dm_problems(unknown, 2, dms, 2.0), InputError);
}

TEST(AcrossDm, HarmonicGroupsRemoved) {
  std::vector<SiftedCandidate> list;
  for (const auto& s : {input(11, 1000, {60, 40}), input(11, 2000.3, {40, 30}), input(11, 1500.2, {35, 30}),
                        input(11, 3000.5, {30, 25}), input(11, 1234, {30, 20})})
    list.push_back(prepare_for_sifting(s));
  EXPECT_EQ(remove_harmonics(list, 1.1), 3u);
  ASSERT_EQ(list.size(), 2u);
  EXPECT_EQ(list[0].input.r, 1000);
  EXPECT_EQ(list[1].input.r, 1234);
  std::vector<SiftedCandidate> one{prepare_for_sifting(input(11, 1000, {60, 40}))};
  EXPECT_EQ(remove_harmonics(one, 1.1), 0u);  // sifting.py would drop it (and fail)
  EXPECT_EQ(one.size(), 1u);
}

TEST(AcrossDm, WholeSift) {
  std::vector<SiftInput> in{
      // The pulsar at r ≈ 1000 (10 Hz) at DMs 10 … 12, strongest at 11.
      input(10, 999.8, {30, 20, 10, 5}), input(11, 1000.0, {40, 30, 15, 8}), input(12, 1000.3, {28, 18, 9, 5}),
      // Its 2nd harmonic and 3:2 ratio at two DMs each.
      input(11, 2000.3, {30, 20}), input(12, 2000.5, {25, 15}), input(11, 1500.2, {28, 20}),
      input(12, 1500.4, {26, 19}),
      // Seen at one DM only.
      input(11, 777, {60, 40}),
      // Strongest at DM 1.0.
      input(0.5, 555, {40, 20}), input(1.0, 555.2, {60, 40}),
      // Too long a period.
      input(11, 5, {60, 40}), input(12, 5, {60, 40})};
  const auto result = sift_candidates(in, dms);
  ASSERT_EQ(result.kept.size(), 1u);
  const auto& best = result.kept[0];
  EXPECT_EQ(best.input.r, 1000.0);
  EXPECT_EQ(best.input.dm, 11.0);
  ASSERT_EQ(best.hits.size(), 3u);
  std::vector<double> hit_dms;
  for (const auto& h : best.hits) hit_dms.push_back(h.dm);
  std::sort(hit_dms.begin(), hit_dms.end());
  EXPECT_EQ(hit_dms, (std::vector<double>{10, 11, 12}));
  EXPECT_EQ(result.kept.size() + result.rejected.size(), in.size());
  auto count = [&](SiftRejection why) {
    return std::count_if(result.rejected.begin(), result.rejected.end(),
                         [&](const auto& r) { return r.second == why; });
  };
  EXPECT_EQ(count(SiftRejection::long_period), 2);
  EXPECT_EQ(count(SiftRejection::duplicate), 2 + 1 + 1 + 1);
  EXPECT_EQ(count(SiftRejection::dm_problem), 2);  // 777 (one hit) and 555 (best DM 1.0)
  EXPECT_EQ(count(SiftRejection::harmonic), 2);
  // Edge cases: nothing in, one candidate (one hit: dropped by the DM rule).
  EXPECT_TRUE(sift_candidates({}, dms).kept.empty());
  const std::vector<SiftInput> single{input(11, 1000, {60, 40})};
  const auto lone = sift_candidates(single, dms);
  EXPECT_TRUE(lone.kept.empty());
  EXPECT_EQ(lone.rejected.at(0).second, SiftRejection::dm_problem);
  SiftOptions one_dm;
  one_dm.min_num_dms = 1;
  EXPECT_EQ(sift_candidates(single, dms, one_dm).kept.size(), 1u);
}

}  // namespace
}  // namespace astrosweep::fdas
