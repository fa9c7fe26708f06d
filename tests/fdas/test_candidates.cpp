// PRESTO's candidate merging (insert_new_accelcand) and the per-series cap, stage detection above
// powcut, and the MSD alternative: the 15-bin rule at its edges, absorption of both neighbours,
// cases where the insertion order does not matter (and one where, as in PRESTO, it does).
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>

#include "accel_statistics.hpp"
#include "candidates.hpp"
#include "core/error.hpp"

namespace astrosweep::fdas {
namespace {

Candidate cand(double r, float sigma, double z = 0) { return Candidate{r, z, sigma * 10, sigma, 1, 0}; }

std::vector<double> rs(const std::vector<Candidate>& list) {
  std::vector<double> out;
  for (const auto& c : list) out.push_back(c.r);
  return out;
}

TEST(CandidateMerging, EmptyAndOne) {
  std::vector<Candidate> list;
  EXPECT_TRUE(insert_candidate(list, cand(100, 5)));
  ASSERT_EQ(list.size(), 1u);
  EXPECT_EQ(list[0].r, 100);
}

TEST(CandidateMerging, FifteenBinEdgesAbove) {
  for (const double dr : {14.9, 15.0, 15.1}) {
    std::vector<Candidate> weaker{cand(100, 5)};
    const bool merged = dr < 15.0;
    // A weaker detection: dropped when within 15 bins, kept otherwise.
    EXPECT_EQ(insert_candidate(weaker, cand(100 + dr, 4)), !merged) << dr;
    EXPECT_EQ(weaker.size(), merged ? 1u : 2u) << dr;
    // A stronger one: replaces within 15 bins.
    std::vector<Candidate> stronger{cand(100, 5)};
    EXPECT_TRUE(insert_candidate(stronger, cand(100 + dr, 6)));
    if (merged) {
      EXPECT_EQ(rs(stronger), (std::vector<double>{100 + dr})) << dr;
    } else if (dr == 15.0) {
      // PRESTO's quirk: exactly 15 bins above the last entry inserts before it.
      EXPECT_EQ(rs(stronger), (std::vector<double>{115.0, 100.0}));
    } else {
      EXPECT_EQ(rs(stronger), (std::vector<double>{100, 100 + dr})) << dr;
    }
  }
}

TEST(CandidateMerging, FifteenBinEdgesBelow) {
  for (const double dr : {14.9, 15.0, 15.1}) {
    std::vector<Candidate> list{cand(100, 5), cand(200, 5)};
    EXPECT_EQ(insert_candidate(list, cand(100 - dr, 4)), dr >= 15.0) << dr;
    if (dr < 15.0) {
      EXPECT_EQ(rs(list), (std::vector<double>{100, 200}));
    } else {
      EXPECT_EQ(rs(list), (std::vector<double>{100 - dr, 100, 200}));
    }
    // Between two entries, 15.0 from the lower one and far from the upper: a new entry in order.
    std::vector<Candidate> mid{cand(100, 5), cand(200, 5)};
    EXPECT_TRUE(insert_candidate(mid, cand(100 + dr, dr < 15.0 ? 6.0f : 1.0f)));
    if (dr < 15.0) {
      EXPECT_EQ(rs(mid), (std::vector<double>{100 + dr, 200}));
    } else {
      EXPECT_EQ(rs(mid), (std::vector<double>{100, 100 + dr, 200}));
    }
  }
}

TEST(CandidateMerging, AbsorbsBothNeighbours) {
  std::vector<Candidate> list{cand(100, 5), cand(120, 5), cand(300, 5)};
  EXPECT_TRUE(insert_candidate(list, cand(110, 6)));
  EXPECT_EQ(rs(list), (std::vector<double>{110, 300}));
  EXPECT_EQ(list[0].sigma, 6.0f);
  // Stronger than the upper neighbour only: it takes that one's place, the lower stays.
  std::vector<Candidate> partial{cand(100, 7), cand(120, 5)};
  EXPECT_TRUE(insert_candidate(partial, cand(110, 6)));
  EXPECT_EQ(rs(partial), (std::vector<double>{100, 110}));
  EXPECT_EQ(partial[0].sigma, 7.0f);
  // Stronger than neither: nothing changes.
  std::vector<Candidate> none{cand(100, 7), cand(120, 7)};
  EXPECT_FALSE(insert_candidate(none, cand(110, 6)));
  EXPECT_EQ(rs(none), (std::vector<double>{100, 120}));
  // Equal sigma does not replace (PRESTO compares with <).
  std::vector<Candidate> equal{cand(100, 5)};
  EXPECT_FALSE(insert_candidate(equal, cand(105, 5)));
  EXPECT_EQ(rs(equal), (std::vector<double>{100}));
}

std::vector<Candidate> insert_all(const std::vector<Candidate>& cs, const std::vector<int>& order) {
  std::vector<Candidate> list;
  for (int k : order) insert_candidate(list, cs[static_cast<std::size_t>(k)]);
  return list;
}

TEST(CandidateMerging, OrderIndependentCases) {
  // Separated by more than 15 bins: every order gives the same r-ordered list.
  const std::vector<Candidate> apart{cand(20, 3), cand(40, 1), cand(55.5, 2), cand(400, 9), cand(71, 4)};
  std::vector<int> order(apart.size());
  std::iota(order.begin(), order.end(), 0);
  do {
    EXPECT_EQ(rs(insert_all(apart, order)), (std::vector<double>{20, 40, 55.5, 71, 400}));
  } while (std::next_permutation(order.begin(), order.end()));
  // A cluster narrower than 15 bins with one strongest member: that member alone, in any order;
  // with a separate cluster beside it.
  const std::vector<Candidate> cluster{cand(50, 2),     cand(52, 1.5), cand(55, 3), cand(58, 1),
                                       cand(64.5, 2.5), cand(200, 1),  cand(210, 4)};
  std::vector<int> o(cluster.size());
  std::iota(o.begin(), o.end(), 0);
  int n = 0;
  do {
    const auto list = insert_all(cluster, o);
    ASSERT_EQ(rs(list), (std::vector<double>{55, 210}));
    ++n;
  } while (std::next_permutation(o.begin(), o.end()));
  EXPECT_EQ(n, 5040);
}

TEST(CandidateMerging, ChainsDependOnOrderAsInPresto) {
  // 0, 10, 20 with rising sigma: in r order each replaces the last; in reverse the 0 and 20 are 20
  // bins apart and both stay. The job therefore inserts in PRESTO's serial order.
  const std::vector<Candidate> chain{cand(0, 1), cand(10, 2), cand(20, 3)};
  EXPECT_EQ(rs(insert_all(chain, {0, 1, 2})), (std::vector<double>{20}));
  EXPECT_EQ(rs(insert_all(chain, {2, 1, 0})), (std::vector<double>{0, 20}));
}

TEST(CandidateList, CapKeepsTheStrongest) {
  CandidateList list(3);
  for (int k = 0; k < 5; ++k) list.insert(cand(100.0 * k, static_cast<float>(k + 1)));
  EXPECT_TRUE(list.overflowed());
  EXPECT_EQ(rs(list.candidates()), (std::vector<double>{200, 300, 400}));
  // A newcomer weaker than all kept ones is dropped and reported as not added.
  EXPECT_FALSE(list.insert(cand(1000, 0.5f)));
  EXPECT_EQ(list.candidates().size(), 3u);
  CandidateList roomy(3);
  for (int k = 0; k < 3; ++k) roomy.insert(cand(100.0 * k, 1));
  EXPECT_FALSE(roomy.overflowed());
  EXPECT_THROW(CandidateList(0), UsageError);
}

TEST(StageDetection, ThresholdAndCoordinates) {
  // z_max = 4 (rows z = −4 … 4), half-bin columns 800 … 809, stage H = 4.
  const HarmonicStage stage{2, 4, {1, 3}};
  std::vector<float> p(5 * 10, 1.0f);
  const float powcut = static_cast<float>(power_threshold(3.0, 4, 1000));
  p[1 * 10 + 2] = powcut;          // equal: not above
  p[3 * 10 + 7] = powcut + 5.0f;   // z = 2, i = 807
  p[0 * 10 + 9] = powcut + 30.0f;  // z = −4, i = 809 (r = 404.5): 0.125 bins from the other
  CandidateList list;
  const StagePlane plane{p, 4, 800, 10};
  EXPECT_EQ(detect_stage_candidates(stage, plane, powcut, 1000, list), 2u);
  // Both are within 15 fundamental bins: the stronger, found first (row 0), stays.
  ASSERT_EQ(list.candidates().size(), 1u);
  const auto& c = list.candidates()[0];
  EXPECT_EQ(c.r, 809 * 0.5 / 4);
  EXPECT_EQ(c.z, -1.0);
  EXPECT_EQ(c.numharm, 4);
  EXPECT_EQ(c.stage, 2);
  EXPECT_EQ(c.power, powcut + 30.0f);
  EXPECT_EQ(c.sigma, static_cast<float>(candidate_sigma(powcut + 30.0f, 4, 1000)));
  // Numharm 1 and 32 stages: the same cell divides by H.
  for (const int h : {1, 32}) {
    CandidateList one;
    std::vector<float> q(1 * 4, 0.0f);
    q[3] = 1000.0f;
    detect_stage_candidates(HarmonicStage{h == 1 ? 0 : 5, h, {}}, StagePlane{q, 0, 64, 4}, 50.0f, 1e6, one);
    ASSERT_EQ(one.candidates().size(), 1u);
    EXPECT_EQ(one.candidates()[0].r, 67 * 0.5 / h);
  }
  // Empty plane.
  CandidateList empty;
  EXPECT_EQ(detect_stage_candidates(stage, StagePlane{{}, 0, 0, 0}, 1.0f, 1, empty), 0u);
  EXPECT_THROW(detect_stage_candidates(stage, StagePlane{p, 2, 800, 10}, 1.0f, 1, empty), UsageError);
}

TEST(MsdDetection, OutlierRejectionAndLocalMaxima) {
  std::mt19937 rng(7);
  std::normal_distribution<float> g(10.0f, 2.0f);
  std::vector<float> p(11 * 500);
  for (auto& v : p) v = g(rng);
  // Strong outliers that would inflate a plain σ.
  for (int k = 0; k < 40; ++k) p[static_cast<std::size_t>(k * 137)] = 200.0f;
  const auto msd = outlier_rejected_mean_sd(p, 3.0);
  EXPECT_NEAR(msd.mean, 10.0, 0.1);
  EXPECT_NEAR(msd.sd, 2.0, 0.1);
  // A peak of two equal cells (one wins) and its lower shoulder (not a maximum).
  std::vector<float> q(11 * 500, 10.0f);
  for (std::size_t k = 0; k < q.size(); ++k) q[k] = 10.0f + static_cast<float>(k % 7) * 0.1f;
  q[5 * 500 + 100] = 60.0f;
  q[5 * 500 + 101] = 60.0f;
  q[5 * 500 + 102] = 50.0f;
  q[2 * 500 + 400] = 40.0f;
  const auto found = detect_msd_candidates(HarmonicStage{1, 2, {1}}, StagePlane{q, 10, 0, 500}, 3.0, 6.0);
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[0].r, 400 * 0.5 / 2);
  EXPECT_EQ(found[0].z, (-10 + 4) / 2.0);
  EXPECT_EQ(found[1].r, 100 * 0.5 / 2);
  EXPECT_EQ(found[1].z, 0.0);
  EXPECT_GT(found[1].sigma, 6.0f);
  EXPECT_TRUE(detect_msd_candidates(HarmonicStage{}, StagePlane{{}, 0, 0, 0}, 3.0, 6.0).empty());
}

}  // namespace
}  // namespace astrosweep::fdas
