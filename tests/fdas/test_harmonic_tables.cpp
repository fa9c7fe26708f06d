// Harmonic-summing lookup tables (spec fdas.md §6), verbatim: hand-worked small cases, PRESTO's own
// double-precision formulas for every stage and all i < 10⁵, and the stage-by-stage float sum of a
// synthetic plane against a naive per-cell sum over all h.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "core/error.hpp"
#include "harmonic_tables.hpp"

namespace astrosweep::fdas {
namespace {

TEST(HarmonicTables, Stages) {
  const auto one = harmonic_stages(1);
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one[0].numharm, 1);
  EXPECT_TRUE(one[0].harmonics.empty());
  const auto eight = harmonic_stages(8);
  ASSERT_EQ(eight.size(), 4u);
  EXPECT_EQ(eight[1].harmonics, (std::vector<int>{1}));
  EXPECT_EQ(eight[2].harmonics, (std::vector<int>{1, 3}));
  EXPECT_EQ(eight[3].harmonics, (std::vector<int>{1, 3, 5, 7}));
  EXPECT_EQ(eight[3].stage, 3);
  EXPECT_EQ(eight[3].numharm, 8);
  const auto all = harmonic_stages(32);
  ASSERT_EQ(all.size(), 6u);
  EXPECT_EQ(all[5].harmonics.size(), 16u);
  EXPECT_EQ(all[5].harmonics.back(), 31);
  for (int bad : {0, 3, 6, 64, -1}) EXPECT_THROW(harmonic_stages(bad), UsageError) << bad;
}

TEST(HarmonicTables, HandWorkedIndices) {
  // H = 2, h = 1: ⌊i/2 + ½⌋
  EXPECT_EQ(sub_harmonic_index_table(0, 6, 1, 2), (std::vector<std::int64_t>{0, 1, 1, 2, 2, 3}));
  // H = 4, h = 1: ⌊i/4 + ½⌋ (i = 2 is exactly 1.0; i = 1 is 0.75)
  EXPECT_EQ(sub_harmonic_index_table(0, 9, 1, 4), (std::vector<std::int64_t>{0, 0, 1, 1, 1, 1, 2, 2, 2}));
  // H = 4, h = 3: ⌊3i/4 + ½⌋: 0, 1.25, 2, 2.75, 3.5, 4.25, 5
  EXPECT_EQ(sub_harmonic_index_table(0, 7, 3, 4), (std::vector<std::int64_t>{0, 1, 2, 2, 3, 4, 5}));
  // H = 32, h = 31 at i = 16: 15.5 + 0.5 = 16; i = 1000: 968.75 → 969
  EXPECT_EQ(sub_harmonic_index(16, 31, 32), 16);
  EXPECT_EQ(sub_harmonic_index(1000, 31, 32), 969);
  EXPECT_EQ(sub_harmonic_index_table(1000, 2, 1, 8), (std::vector<std::int64_t>{125, 125}));  // 125.5, 125.625
}

TEST(HarmonicTables, HandWorkedZ) {
  // H = 2, h = 1: 2·nearest(z/4), halves away from zero.
  EXPECT_EQ(sub_harmonic_z(-6, 1, 2), -4);
  EXPECT_EQ(sub_harmonic_z(-4, 1, 2), -2);
  EXPECT_EQ(sub_harmonic_z(-2, 1, 2), -2);  // −0.5 → −1
  EXPECT_EQ(sub_harmonic_z(0, 1, 2), 0);
  EXPECT_EQ(sub_harmonic_z(2, 1, 2), 2);  // 0.5 → 1
  EXPECT_EQ(sub_harmonic_z(6, 1, 2), 4);  // 1.5 → 2
  // H = 4, h = 3: 2·nearest(3z/8)
  EXPECT_EQ(sub_harmonic_z(2, 3, 4), 2);      // 0.75
  EXPECT_EQ(sub_harmonic_z(-2, 3, 4), -2);    // −0.75
  EXPECT_EQ(sub_harmonic_z(4, 3, 4), 4);      // 1.5
  EXPECT_EQ(sub_harmonic_z(-4, 3, 4), -4);    // −1.5
  EXPECT_EQ(sub_harmonic_z(200, 3, 4), 150);  // 75
  // H = 8, h = 1: z/16
  EXPECT_EQ(sub_harmonic_z(8, 1, 8), 2);  // 0.5
  EXPECT_EQ(sub_harmonic_z(-8, 1, 8), -2);
  EXPECT_EQ(sub_harmonic_z(6, 1, 8), 0);  // 0.375
  // Rows for z_max = 4 (z = −4, −2, 0, 2, 4), H = 2, h = 1: z_sub = −2, −2, 0, 2, 2.
  EXPECT_EQ(sub_harmonic_z_row_table(4, 1, 2), (std::vector<int>{1, 1, 2, 3, 3}));
  EXPECT_EQ(nearest_int_ratio(-5, 2), -3);
  EXPECT_EQ(nearest_int_ratio(5, 2), 3);
  EXPECT_EQ(nearest_int_ratio(-7, 4), -2);
  EXPECT_EQ(nearest_int_ratio(0, 4), 0);
}

// PRESTO's expressions, in double: (int)(i·harm_fract + 0.5) with harm_fract = h/(double)H, and
// NEAREST_INT(0.5·z·harm_fract)·2.
int presto_nearest_int(double x) { return static_cast<int>(x < 0 ? x - 0.5 : x + 0.5); }

TEST(HarmonicTables, AgreeWithDoubleFormulasEverywhere) {
  for (const auto& stage : harmonic_stages(32)) {
    for (const int h : stage.harmonics) {
      const double fract = static_cast<double>(h) / static_cast<double>(stage.numharm);
      const auto table = sub_harmonic_index_table(0, 100000, h, stage.numharm);
      for (std::int64_t i = 0; i < 100000; ++i)
        ASSERT_EQ(table[static_cast<std::size_t>(i)], static_cast<std::int64_t>(static_cast<double>(i) * fract + 0.5))
            << "i " << i << " h " << h << " H " << stage.numharm;
      for (int z = -1200; z <= 1200; z += 2)
        ASSERT_EQ(sub_harmonic_z(z, h, stage.numharm), presto_nearest_int(0.5 * z * fract) * 2)
            << "z " << z << " h " << h << " H " << stage.numharm;
      const auto rows = sub_harmonic_z_row_table(200, h, stage.numharm);
      for (int j = 0; j <= 200; ++j) {
        // PRESTO's index_from_z: (int)((subz − zlo)·0.5 + DBLCORRECT)
        const int subz = presto_nearest_int(0.5 * (-200 + 2 * j) * fract) * 2;
        ASSERT_EQ(rows[static_cast<std::size_t>(j)], static_cast<int>((subz + 200) * 0.5 + 1e-14));
      }
    }
  }
}

struct Plane {
  int z_max;
  std::int64_t i_first, n_i;
  std::vector<float> p;
  PowerPlaneView view() const { return {p.data(), z_max, i_first, n_i}; }
};

Plane random_plane(int z_max, std::int64_t i_first, std::int64_t n_i, unsigned seed) {
  std::mt19937 rng(seed);
  std::exponential_distribution<float> e(1.0f);
  Plane plane{z_max, i_first, n_i, std::vector<float>(static_cast<std::size_t>((z_max + 1) * n_i))};
  for (auto& v : plane.p) v = e(rng);
  return plane;
}

// Naive: every h = 1 … H of every stage straight from the floating-point definition, in double.
double naive_sum(const Plane& plane, int row, std::int64_t i, int harmonics) {
  const int z = -plane.z_max + 2 * row;
  double s = 0;
  for (int h = 1; h <= harmonics; ++h) {
    const double fract = static_cast<double>(h) / harmonics;
    const auto i_sub = static_cast<std::int64_t>(std::floor(static_cast<double>(i) * fract + 0.5));
    const int z_sub = presto_nearest_int(0.5 * z * fract) * 2;
    s += static_cast<double>(
        plane.p[static_cast<std::size_t>((z_sub + plane.z_max) / 2 * plane.n_i + (i_sub - plane.i_first))]);
  }
  return s;
}

TEST(HarmonicSum, MatchesNaiveSumAtEveryStage) {
  for (const int numharm : {1, 2, 8, 32}) {
    const auto plane = random_plane(20, 7, 3000, 11u + static_cast<unsigned>(numharm));
    const std::int64_t i_begin = 7 * numharm + 3, i_end = 7 + 3000;
    int stages_seen = 0;
    harmonic_sum_reference(
        plane.view(), i_begin, i_end, numharm, [&](const HarmonicStage& stage, std::span<const float> summed) {
          EXPECT_EQ(stage.stage, stages_seen++);
          const auto n_cols = static_cast<std::size_t>(i_end - i_begin);
          ASSERT_EQ(summed.size(), 21 * n_cols);
          for (int j = 0; j <= 20; ++j)
            for (std::size_t k = 0; k < n_cols; ++k) {
              const double want = naive_sum(plane, j, i_begin + static_cast<std::int64_t>(k), stage.numharm);
              ASSERT_NEAR(summed[static_cast<std::size_t>(j) * n_cols + k], want, 2e-6 * want)
                  << "stage " << stage.stage << " row " << j << " col " << k;
            }
        });
    EXPECT_EQ(stages_seen, static_cast<int>(harmonic_stages(numharm).size()));
  }
}

TEST(HarmonicSum, SignalAtHarmonicsAddsUp) {
  // Power only at the harmonics of r = 100.5 (i = 201·h/8 rounded), z = 0: the 8-harmonic stage
  // collects all eight at i = 1608 (r = 804, the 8th harmonic), z = 0.
  Plane plane{8, 0, 2000, std::vector<float>(9 * 2000, 0.0f)};
  for (int h = 1; h <= 8; ++h) plane.p[4 * 2000 + static_cast<std::size_t>(sub_harmonic_index(1608, h, 8))] = 10.0f;
  std::vector<float> last;
  harmonic_sum_reference(plane.view(), 1600, 1616, 8, [&](const HarmonicStage& s, std::span<const float> summed) {
    if (s.numharm == 8) last.assign(summed.begin(), summed.end());
  });
  ASSERT_EQ(last.size(), 9u * 16u);
  EXPECT_EQ(last[4 * 16 + 8], 80.0f);
}

TEST(HarmonicSum, EdgeCases) {
  const auto plane = random_plane(0, 0, 64, 3);
  int calls = 0;
  harmonic_sum_reference(plane.view(), 10, 10, 4, [&](const HarmonicStage&, std::span<const float> s) {
    EXPECT_TRUE(s.empty());
    ++calls;
  });
  EXPECT_EQ(calls, 3);
  // One column, numharm 1: the plane itself.
  harmonic_sum_reference(plane.view(), 5, 6, 1, [&](const HarmonicStage&, std::span<const float> s) {
    ASSERT_EQ(s.size(), 1u);
    EXPECT_EQ(s[0], plane.p[5]);
  });
  const auto high = random_plane(2, 100, 100, 4);
  EXPECT_THROW(harmonic_sum_reference(high.view(), 150, 200, 2, [](const HarmonicStage&, std::span<const float>) {}),
               UsageError);  // reads half bin 75, below the plane
  EXPECT_THROW(harmonic_sum_reference(high.view(), 150, 201, 1, [](const HarmonicStage&, std::span<const float>) {}),
               UsageError);  // beyond its end
}

}  // namespace
}  // namespace astrosweep::fdas
