// The linker across slabs and ranks (linker_slabs.hpp) against the linker on the whole cube
// (linker.hpp, the reference): the same labels, the same sources with the same statistics and
// flags, for cubes cut into one slab per rank, several slabs per rank dealt round-robin, and slabs
// of one channel thinner than the merge radius (links that skip a slab); radii 0 to 3, positivity,
// keepNegative, blanks beside slab boundaries, and size limits. Run on 1, 2 and 3 ranks (ctest).
#include <gtest/gtest.h>
#include <mpi.h>

#include <cmath>
#include <limits>
#include <random>
#include <span>
#include <vector>

#include "dist/slab_layout.hpp"
#include "linker.hpp"
#include "linker_slabs.hpp"
#include "random_mask_cube.hpp"
#include "test_data.hpp"

namespace astrosweep::scfind {
namespace {

using RandomCube = RandomMaskCube;

void expect_same(const Component& a, const Component& b, std::size_t n) {
  EXPECT_EQ(a.highest, b.highest) << "source " << n;
  EXPECT_EQ(a.voxels, b.voxels) << "source " << n;
  EXPECT_EQ(a.x_min, b.x_min) << "source " << n;
  EXPECT_EQ(a.x_max, b.x_max) << "source " << n;
  EXPECT_EQ(a.y_min, b.y_min) << "source " << n;
  EXPECT_EQ(a.y_max, b.y_max) << "source " << n;
  EXPECT_EQ(a.z_min, b.z_min) << "source " << n;
  EXPECT_EQ(a.z_max, b.z_max) << "source " << n;
  EXPECT_TRUE(a.sum == b.sum) << "source " << n << ": " << a.sum.value() << " vs " << b.sum.value();
  EXPECT_EQ(a.flags, b.flags) << "source " << n;
}

// Cuts the cube's channels at `bounds` (slab j = [bounds[j], bounds[j+1])), deals slab j to rank
// j mod ranks, links, and compares with the reference.
void check_cut(const RandomCube& cube, const std::vector<std::size_t>& bounds, const LinkerParameters& p) {
  const LinkedSources whole = link_sources(cube.shape, cube.mask, cube.data, p);
  const int rank = test::world_rank(), size = test::world_size();
  const std::size_t plane = cube.shape.plane();
  std::vector<LinkerSlab> slabs;
  for (std::size_t j = 0; j + 1 < bounds.size(); ++j) {
    if (static_cast<int>(j % static_cast<std::size_t>(size)) != rank) continue;
    const std::size_t z0 = bounds[j], z1 = bounds[j + 1], n = (z1 - z0) * plane;
    slabs.push_back({z0, z1, std::span(cube.mask).subspan(z0 * plane, n), std::span(cube.data).subspan(z0 * plane, n)});
  }
  const SlabLinkedSources cut = link_sources_in_slabs(cube.shape, slabs, p, MPI_COMM_WORLD);
  ASSERT_EQ(cut.sources.size(), whole.sources.size());
  for (std::size_t n = 0; n < whole.sources.size(); ++n) expect_same(cut.sources[n], whole.sources[n], n + 1);
  ASSERT_EQ(cut.labels.size(), slabs.size());
  for (std::size_t k = 0; k < slabs.size(); ++k) {
    std::size_t differing = 0;
    for (std::size_t i = 0; i < cut.labels[k].size(); ++i)
      differing += cut.labels[k][i] != whole.labels[slabs[k].z_begin * plane + i] ? 1 : 0;
    EXPECT_EQ(differing, 0u) << "slab at channel " << slabs[k].z_begin;
  }
}

std::vector<std::size_t> even_cut(std::size_t nz, std::size_t parts) { return dist::slab_bounds(nz, parts); }

std::vector<std::size_t> every_channel(std::size_t nz) {
  std::vector<std::size_t> b(nz + 1);
  for (std::size_t z = 0; z <= nz; ++z) b[z] = z;
  return b;
}

LinkerParameters parameters(std::size_t rxy, std::size_t rz) {
  LinkerParameters p;
  p.radius_xy = rxy;
  p.radius_z = rz;
  p.min_size_xy = 0;
  p.min_size_z = 0;
  return p;
}

TEST(LinkerSlabs, EqualsTheWholeCubeForEveryCut) {
  const int size = test::world_size();
  const RandomCube cube({13, 11, 17}, 0.18, 0.02, 5);
  for (auto [rxy, rz] : {std::pair{1, 1}, {2, 2}, {0, 3}, {3, 0}, {1, 2}}) {
    const LinkerParameters p = parameters(static_cast<std::size_t>(rxy), static_cast<std::size_t>(rz));
    SCOPED_TRACE("radii " + std::to_string(rxy) + ", " + std::to_string(rz));
    check_cut(cube, even_cut(cube.shape.nz, static_cast<std::size_t>(size)), p);      // one slab per rank
    check_cut(cube, even_cut(cube.shape.nz, 3 * static_cast<std::size_t>(size)), p);  // three per rank
    check_cut(cube, every_channel(cube.shape.nz), p);  // one channel each: links skip slabs
  }
}

TEST(LinkerSlabs, PositivityKeepNegativeAndLimits) {
  const int size = test::world_size();
  const RandomCube cube({20, 9, 14}, 0.3, 0.01, 9);
  LinkerParameters p = parameters(1, 2);
  for (int variant = 0; variant < 4; ++variant) {
    p.positivity = variant == 1;
    p.keep_negative = variant == 2;
    if (variant == 3) {  // SoFiA-2's size and fill limits drop some of the joined sources
      p.min_size_xy = 3;
      p.min_size_z = 2;
      p.max_size_z = 9;
      p.min_pixels = 4;
      p.max_fill = 0.6;
    }
    SCOPED_TRACE("variant " + std::to_string(variant));
    check_cut(cube, even_cut(cube.shape.nz, static_cast<std::size_t>(size)), p);
    check_cut(cube, every_channel(cube.shape.nz), p);
  }
}

TEST(LinkerSlabs, OneSourceAcrossEverySlabAndBlanksAtTheBoundaries) {
  // A column through the whole cube: one source however it is cut; a blank just across each slab
  // boundary from a neighbour's voxel flags it.
  RandomCube cube({6, 5, 12}, 0.0, 0.0, 1);
  const std::size_t plane = cube.shape.plane();
  for (std::size_t z = 0; z < 12; ++z) {
    cube.mask[z * plane + 2 * 6 + 3] = 1;
    cube.data[z * plane + 2 * 6 + 3] = 1.0F;
  }
  const LinkerParameters p = parameters(1, 1);
  for (std::size_t parts : {1U, 2U, 3U, 4U, 12U}) {
    const LinkedSources whole = link_sources(cube.shape, cube.mask, cube.data, p);
    ASSERT_EQ(whole.sources.size(), 1u);
    EXPECT_EQ(whole.sources[0].flags, flag_spectral_edge);
    check_cut(cube, even_cut(12, parts), p);
  }
  cube.data[6 * plane + 2 * 6 + 4] = std::numeric_limits<float>::quiet_NaN();  // beside channel 6's voxel
  for (std::size_t parts : {2U, 3U, 12U}) check_cut(cube, even_cut(12, parts), p);
  EXPECT_TRUE(link_sources(cube.shape, cube.mask, cube.data, p).sources[0].flags & flag_blank_nearby);
}

TEST(LinkerSlabs, EmptyMaskAndOneVoxelCubes) {
  const RandomCube empty({4, 4, 5}, 0.0, 0.0, 2);
  check_cut(empty, every_channel(5), parameters(1, 1));
  const RandomCube one({1, 1, 7}, 1.0, 0.0, 3);  // a single pixel's spectrum, every channel in the mask
  check_cut(one, every_channel(7), parameters(1, 1));
  check_cut(one, every_channel(7), parameters(0, 0));
}

}  // namespace
}  // namespace astrosweep::scfind
