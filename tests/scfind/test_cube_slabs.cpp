// The cube's slabs (slab_layout.hpp, slab_samples.hpp): SoFiA-2's spectral halo on the framework's
// slab layout, and the regrouping of noise samples when a rank owns several slabs, on however many
// ranks run this program (ctest: 1, 2 and 3). Each rank checks its results against what one
// process holding the whole cube would have.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <vector>

#include "slab_layout.hpp"
#include "slab_samples.hpp"

namespace astrosweep::scfind {
namespace {

int world(int (*query)(MPI_Comm, int*)) {
  int value = 0;
  query(MPI_COMM_WORLD, &value);
  return value;
}

// A slab holds radius channels below and radius + 1 above (none without spectral smoothing),
// clipped to the cube, and the ranks work down the cube.
TEST(CubeSlabs, HoldTheSpectralHaloAndGoDownTheCube) {
  const CubeShape cube{5, 4, 23};
  for (std::size_t radius : {0U, 1U, 3U}) {
    for (std::size_t k : {1U, 2U, 5U}) {
      const SlabLayout layout(cube, radius, 3, k);
      EXPECT_EQ(layout.axis().n, cube.nz);
      EXPECT_EQ(layout.axis().plane, cube.plane());
      for (std::size_t j = 0; j < layout.count(); ++j) {
        const Slab s = layout.slab(j);
        EXPECT_EQ(s.cube.voxels(), cube.voxels());
        EXPECT_EQ(s.held_begin, s.own_begin - std::min(s.own_begin, radius));
        EXPECT_EQ(s.held_end, std::min(cube.nz, s.own_end + (radius > 0 ? radius + 1 : 0)));
        const Slab same = make_slab(cube, s.own_begin, s.own_end, radius);
        EXPECT_EQ(same.held_begin, s.held_begin);
        EXPECT_EQ(same.held_end, s.held_end);
        EXPECT_EQ(s.at_top(), j + 1 == layout.count());
        EXPECT_EQ(s.at_bottom(), j == 0);
      }
      for (int r = 0; r < 3; ++r) {
        const auto mine = layout.slabs_of(r);
        EXPECT_TRUE(std::is_sorted(mine.rbegin(), mine.rend())) << "top of the cube first";
      }
    }
  }
}

TEST(CubeSlabs, RegroupedSamplesAreTheGroupsRunOfTheGlobalSequence) {
  const int rank = world(MPI_Comm_rank);
  const int ranks = world(MPI_Comm_size);
  const CubeShape cube{7, 5, 19};
  for (std::size_t cadence : {1U, 3U, 7U, 10U}) {
    for (std::size_t k : {1U, 2U, 3U}) {
      if (static_cast<std::size_t>(ranks) * k > cube.nz) continue;
      const SlabLayout layout(cube, 2, ranks, k);
      const std::uint64_t plane = cube.plane();
      // A sample's value is its global index, so the order is visible.
      std::vector<SlabSamples> mine;
      for (std::size_t j : layout.slabs_of(rank)) {
        const Slab s = layout.slab(j);
        const SampleRange range = samples_in(cube.voxels(), cadence, s.own_begin * plane, s.own_end * plane);
        SlabSamples samples{j, {}};
        for (std::uint64_t i = 0; i < range.count; ++i)
          samples.values.push_back(static_cast<float>(range.highest - i * cadence));
        mine.push_back(std::move(samples));
      }
      const auto run = regroup_samples(layout, cadence, std::move(mine), MPI_COMM_WORLD);
      const SampleRange group =
          samples_in(cube.voxels(), cadence, layout.group_begin(rank) * plane, layout.group_end(rank) * plane);
      ASSERT_EQ(run.size(), group.count) << "cadence " << cadence << " k " << k;
      for (std::uint64_t i = 0; i < group.count; ++i)
        ASSERT_EQ(run[i], static_cast<float>(group.highest - i * cadence)) << "sample " << i;
    }
  }
}

}  // namespace
}  // namespace astrosweep::scfind
