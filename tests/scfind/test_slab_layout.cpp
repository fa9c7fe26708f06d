// Several slabs per rank (slab_layout.hpp): the round-robin layout, the mask-halo exchange between
// slabs (of other ranks and of the same rank) and the regrouping of noise samples, on however many
// ranks run this program (ctest: 1, 2 and 3). Each rank checks its results against what one
// process holding the whole cube would have.
#include <gtest/gtest.h>
#include <mpi.h>

#include <map>
#include <numeric>

#include "scfind_exchange.hpp"
#include "slab_layout.hpp"
#include "slab_samples.hpp"

namespace astrosweep::scfind {
namespace {

int world(int (*query)(MPI_Comm, int*)) {
  int value = 0;
  query(MPI_COMM_WORLD, &value);
  return value;
}

TEST(SlabLayout, DealsSlabsRoundRobinAndCoversTheCube) {
  const CubeShape cube{5, 4, 23};
  for (int ranks : {1, 2, 3, 4}) {
    for (std::size_t k : {1U, 2U, 5U}) {
      if (static_cast<std::size_t>(ranks) * k > cube.nz) continue;
      const SlabLayout layout(cube, 3, ranks, k);
      ASSERT_EQ(layout.count(), static_cast<std::size_t>(ranks) * k);
      std::vector<int> owners(cube.nz, -1);
      for (int r = 0; r < ranks; ++r) {
        const auto mine = layout.slabs_of(r);
        ASSERT_EQ(mine.size(), k);
        EXPECT_TRUE(std::is_sorted(mine.rbegin(), mine.rend())) << "top of the cube first";
        for (std::size_t j : mine) {
          EXPECT_EQ(layout.owner(j), r);
          const Slab s = layout.slab(j);
          EXPECT_GT(s.owned_channels(), 0U);
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
      EXPECT_EQ(layout.group_end(ranks - 1), cube.nz);
    }
  }
}

TEST(SlabLayout, FewestSlabsThatFit) {
  const CubeShape cube{8, 8, 30};
  // Fits when the thickest held slab is at most 9 channels: ceil(30/k)+radius 2 below+3 above.
  auto fits = [](const SlabLayout& l) { return l.thickest_held_channels() <= 9; };
  const std::size_t k = fewest_slabs_per_rank(cube, 2, 2, fits);
  ASSERT_GT(k, 0U);
  EXPECT_TRUE(fits(SlabLayout(cube, 2, 2, k)));
  if (k > 1) {
    EXPECT_FALSE(fits(SlabLayout(cube, 2, 2, k - 1)));
  }
  EXPECT_EQ(fewest_slabs_per_rank(cube, 2, 2, [](const SlabLayout&) { return false; }), 0U);
  EXPECT_EQ(fewest_slabs_per_rank(cube, 2, 2, [](const SlabLayout&) { return true; }), 1U);
}

// The value every voxel's mask holds after the exchange: a function of its channel and position.
std::uint8_t truth(std::size_t z, std::size_t i) { return static_cast<std::uint8_t>((z * 7 + i) % 3 == 0); }

TEST(SlabLayout, MaskHalosComeFromTheSlabsThatOwnThem) {
  const int rank = world(MPI_Comm_rank);
  const int ranks = world(MPI_Comm_size);
  const CubeShape cube{3, 2, 17};
  for (std::size_t radius : {0U, 1U, 4U}) {
    for (std::size_t k : {1U, 2U, 4U}) {
      if (static_cast<std::size_t>(ranks) * k > cube.nz) continue;
      const SlabLayout layout(cube, radius, ranks, k);
      // Each slab knows only its owned channels; halos start as 2 (unknown).
      std::map<std::size_t, std::vector<std::uint8_t>> held;
      for (std::size_t j : layout.slabs_of(rank)) {
        const Slab s = layout.slab(j);
        auto& m = held[j];
        m.assign(s.held_voxels(), 2);
        for (std::size_t z = s.own_begin; z < s.own_end; ++z)
          for (std::size_t i = 0; i < cube.plane(); ++i) m[(z - s.held_begin) * cube.plane() + i] = truth(z, i);
      }
      MaskAccess access;
      access.get = [&](std::size_t j, std::size_t z0, std::size_t z1) {
        const Slab s = layout.slab(j);
        const auto first = held[j].begin() + static_cast<std::ptrdiff_t>((z0 - s.held_begin) * cube.plane());
        return std::vector<std::uint8_t>(first, first + static_cast<std::ptrdiff_t>((z1 - z0) * cube.plane()));
      };
      access.set = [&](std::size_t j, std::size_t z0, std::span<const std::uint8_t> values) {
        const Slab s = layout.slab(j);
        std::copy(values.begin(), values.end(),
                  held[j].begin() + static_cast<std::ptrdiff_t>((z0 - s.held_begin) * cube.plane()));
      };
      exchange_mask_halos(layout, access, MPI_COMM_WORLD);
      for (std::size_t j : layout.slabs_of(rank)) {
        const Slab s = layout.slab(j);
        for (std::size_t z = s.held_begin; z < s.held_end; ++z)
          for (std::size_t i = 0; i < cube.plane(); ++i)
            ASSERT_EQ(held[j][(z - s.held_begin) * cube.plane() + i], truth(z, i))
                << "slab " << j << " channel " << z << " radius " << radius << " k " << k;
      }
    }
  }
}

TEST(SlabLayout, RegroupedSamplesAreTheGroupsRunOfTheGlobalSequence) {
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
