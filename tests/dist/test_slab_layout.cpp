// The slab layout (dist/slab_layout.hpp): slabs dealt round-robin that cover the axis once, their
// halos clipped to the axis, the fewest slabs per rank that fit; on a cube's channels (planes of
// voxels, the state flowing down) and on a time series (one sample a position, flowing up).
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "dist/slab_layout.hpp"

namespace astrosweep::dist {
namespace {

TEST(SlabLayout, DealsSlabsRoundRobinAndCoversTheCube) {
  const Axis cube{23, 5 * 4, Halo{3, 4}, Flow::down};  // 23 channels of 5 × 4 voxels, radius 3
  for (int ranks : {1, 2, 3, 4}) {
    for (std::size_t k : {1U, 2U, 5U}) {
      if (static_cast<std::size_t>(ranks) * k > cube.n) continue;
      const SlabLayout layout(cube, ranks, k);
      ASSERT_EQ(layout.count(), static_cast<std::size_t>(ranks) * k);
      std::vector<int> owners(cube.n, -1);
      for (int r = 0; r < ranks; ++r) {
        const auto mine = layout.slabs_of(r);
        ASSERT_EQ(mine.size(), k);
        EXPECT_TRUE(std::is_sorted(mine.rbegin(), mine.rend())) << "top of the cube first";
        for (std::size_t j : mine) {
          EXPECT_EQ(layout.owner(j), r);
          const Slab s = layout.slab(j);
          EXPECT_GT(s.owned_positions(), 0U);
          for (std::size_t z = s.own_begin; z < s.own_end; ++z) {
            EXPECT_EQ(owners[z], -1) << "channel " << z << " owned twice";
            owners[z] = r;
          }
        }
      }
      EXPECT_EQ(std::count(owners.begin(), owners.end(), -1), 0);
      // Neighbouring slabs on different ranks whenever there are several ranks.
      if (ranks > 1) {
        for (std::size_t j = 0; j + 1 < layout.count(); ++j) EXPECT_NE(layout.owner(j), layout.owner(j + 1));
      }
      EXPECT_EQ(layout.group_begin(0), 0U);
      EXPECT_EQ(layout.group_end(ranks - 1), cube.n);
    }
  }
}

TEST(SlabLayout, FewestSlabsThatFit) {
  const Axis cube{30, 8 * 8, Halo{2, 3}, Flow::down};
  // Fits when the thickest held slab is at most 9 channels: ceil(30/k)+radius 2 below+3 above.
  auto fits = [](const SlabLayout& l) { return l.thickest_held() <= 9; };
  auto fits_k = [&](std::size_t k) { return fits(SlabLayout(cube, 2, k)); };
  const std::size_t k = fewest_slabs_per_rank(cube.n, 2, fits_k);
  ASSERT_GT(k, 0U);
  EXPECT_TRUE(fits(SlabLayout(cube, 2, k)));
  if (k > 1) {
    EXPECT_FALSE(fits(SlabLayout(cube, 2, k - 1)));
  }
  EXPECT_EQ(fewest_slabs_per_rank(cube.n, 2, [](std::size_t) { return false; }), 0U);
  EXPECT_EQ(fewest_slabs_per_rank(cube.n, 2, [](std::size_t) { return true; }), 1U);
}

TEST(SlabLayout, HalosAreClippedToTheAxis) {
  const Halo halo{2, 3};
  const Slab first = make_slab(10, 0, 4, halo);
  EXPECT_EQ(first.held_begin, 0U);
  EXPECT_EQ(first.held_end, 7U);
  const Slab middle = make_slab(10, 4, 6, halo);
  EXPECT_EQ(middle.held_begin, 2U);
  EXPECT_EQ(middle.held_end, 9U);
  const Slab last = make_slab(10, 6, 10, halo);
  EXPECT_EQ(last.held_begin, 4U);
  EXPECT_EQ(last.held_end, 10U);
  const Slab one = make_slab(1, 0, 1, halo);  // an axis of one position
  EXPECT_EQ(one.held_positions(), 1U);
  const Slab empty = make_slab(10, 5, 5, halo);  // holds nothing, not a halo
  EXPECT_EQ(empty.held_positions(), 0U);
  EXPECT_EQ(empty.held_begin, 5U);
}

// The layout away from cubes: a strain time series of 1000 samples (plane 1) filtered forward in
// time, so the state flows up and a rank works through its slabs from the start of the series;
// each slab holds 128 samples of history below and none above.
TEST(SlabLayout, TimeSeriesFlowingUp) {
  const Axis series{1000, 1, Halo{128, 0}, Flow::up};
  for (int ranks : {1, 2, 3, 7}) {
    for (std::size_t k : {1U, 3U, 33U}) {
      const SlabLayout layout(series, ranks, k);
      ASSERT_EQ(layout.count(), static_cast<std::size_t>(ranks) * k);
      std::size_t covered = 0;
      for (std::size_t j = 0; j < layout.count(); ++j) {
        const Slab s = layout.slab(j);
        EXPECT_EQ(s.own_begin, covered) << "slab " << j;
        covered = s.own_end;
        EXPECT_EQ(s.held_begin, s.own_begin - std::min<std::size_t>(s.own_begin, 128));
        EXPECT_EQ(s.held_end, s.own_end);
        EXPECT_LE(s.owned_positions(), series.n / layout.count() + 1) << "near-equal slabs";
      }
      EXPECT_EQ(covered, series.n);
      for (int r = 0; r < ranks; ++r) {
        const auto mine = layout.slabs_of(r);
        ASSERT_EQ(mine.size(), k);
        EXPECT_TRUE(std::is_sorted(mine.begin(), mine.end())) << "start of the series first";
        for (std::size_t j : mine) EXPECT_EQ(layout.owner(j), r);
        EXPECT_EQ(layout.group_begin(r), layout.slab(static_cast<std::size_t>(r) * k).own_begin);
        EXPECT_EQ(layout.group_end(r), layout.slab((static_cast<std::size_t>(r) + 1) * k - 1).own_end);
      }
      std::size_t thickest = 0;
      for (std::size_t j = 0; j < layout.count(); ++j)
        thickest = std::max(thickest, layout.slab(j).own_end - layout.slab(j).held_begin);
      EXPECT_EQ(layout.thickest_held(), thickest);
    }
  }
  // As many slabs as samples: every sample its own slab.
  const SlabLayout finest(Axis{12, 1, Halo{1, 1}, Flow::up}, 3, 4);
  for (std::size_t j = 0; j < finest.count(); ++j) EXPECT_EQ(finest.slab(j).owned_positions(), 1U);
  EXPECT_EQ(fewest_slabs_per_rank(12, 3, [](std::size_t k) { return k == 4; }), 4U);
  EXPECT_EQ(fewest_slabs_per_rank(12, 3, [](std::size_t k) { return k > 4; }), 0U) << "at most n / ranks";
}

}  // namespace
}  // namespace astrosweep::dist
