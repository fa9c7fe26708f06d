// A slab labelled in blocks of channels on all threads (label_slab.hpp) against the same slab as
// one block (the serial scan) and against the whole-cube reference linker (linker.hpp): the same
// voxels, the same components in the same order with the same statistics and flags, for every
// block size from 1 channel to more than the slab; radii 0 to 3 (links that skip whole blocks), a
// source spanning three blocks, voxels linked across a block edge only through the merge radius,
// blanks just across a block edge, and a slab that starts inside the cube.
#include <gtest/gtest.h>
#include <omp.h>

#include <cmath>
#include <limits>
#include <map>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "label_slab.hpp"
#include "linker.hpp"
#include "random_mask_cube.hpp"

namespace astrosweep::scfind {
namespace {

using Cube = RandomMaskCube;

LinkerParameters parameters(std::size_t rxy, std::size_t rz) {
  LinkerParameters p;
  p.radius_xy = rxy;
  p.radius_z = rz;
  p.min_size_xy = 0;
  p.min_size_z = 0;
  p.keep_negative = true;  // every component kept: the reference's labels are its partition
  return p;
}

struct Offsets {
  std::vector<LinkOffset> around, before;
  explicit Offsets(const LinkerParameters& p) : around(link_neighbourhood(p.radius_xy, p.radius_z)) {
    for (const LinkOffset& o : around)
      if (o.dz < 0 || (o.dz == 0 && (o.dy < 0 || (o.dy == 0 && o.dx < 0)))) before.push_back(o);
  }
};

void expect_same(const Component& a, const Component& b, const std::string& what) {
  EXPECT_EQ(a.highest, b.highest) << what;
  EXPECT_EQ(a.voxels, b.voxels) << what;
  EXPECT_EQ(a.x_min, b.x_min) << what;
  EXPECT_EQ(a.x_max, b.x_max) << what;
  EXPECT_EQ(a.y_min, b.y_min) << what;
  EXPECT_EQ(a.y_max, b.y_max) << what;
  EXPECT_EQ(a.z_min, b.z_min) << what;
  EXPECT_EQ(a.z_max, b.z_max) << what;
  EXPECT_TRUE(a.sum == b.sum) << what;
  EXPECT_EQ(a.value_min, b.value_min) << what;
  EXPECT_EQ(a.value_max, b.value_max) << what;
  EXPECT_EQ(a.flags, b.flags) << what;
}

// Channels [z0, z1) of the cube as one slab: one block against every block size, and one block
// (when the slab is the whole cube) against the reference linker.
void check_every_block_size(const Cube& cube, const LinkerParameters& p, std::size_t z0, std::size_t z1) {
  const std::size_t plane = cube.shape.plane(), n = (z1 - z0) * plane;
  const LinkerSlab slab{z0, z1, std::span(cube.mask).subspan(z0 * plane, n),
                        std::span(cube.data).subspan(z0 * plane, n)};
  const SlabView view(cube.shape, slab, p);
  const Offsets offsets(p);
  const SlabComponents serial = label_slab(view, offsets.around, offsets.before, z1 - z0);
  if (z0 == 0 && z1 == cube.shape.nz) {
    // The serial scan's partition is the reference linker's: label l <-> one component.
    const LinkedSources whole = link_sources(cube.shape, cube.mask, cube.data, p);
    ASSERT_EQ(serial.components.size(), whole.sources.size());
    std::map<std::int32_t, std::uint32_t> component_of_label;
    for (std::size_t a = 0; a < serial.voxels.size(); ++a) {
      const std::int32_t label = whole.labels[serial.voxels[a]];
      ASSERT_GT(label, 0);
      const auto [it, added] = component_of_label.emplace(label, serial.component[a]);
      EXPECT_EQ(it->second, serial.component[a]) << "voxel " << serial.voxels[a];
    }
    for (const auto& [label, c] : component_of_label) {
      Component reference = whole.sources[static_cast<std::size_t>(label - 1)];
      reference.flags &= flag_blank_nearby;  // the edge flags are set once the slabs are joined
      expect_same(serial.components[c], reference, "reference source " + std::to_string(label));
    }
  }
  for (std::size_t block = 1; block <= z1 - z0 + 1; ++block) {
    const SlabComponents cut = label_slab(view, offsets.around, offsets.before, block);
    const std::string what = "blocks of " + std::to_string(block) + " channel(s)";
    ASSERT_EQ(cut.voxels, serial.voxels) << what;
    EXPECT_EQ(cut.component, serial.component) << what;
    ASSERT_EQ(cut.components.size(), serial.components.size()) << what;
    for (std::size_t c = 0; c < cut.components.size(); ++c)
      expect_same(cut.components[c], serial.components[c], what + ", component " + std::to_string(c));
  }
}

TEST(LabelSlab, EveryBlockSizeGivesTheSerialComponents) {
  const Cube cube({13, 11, 17}, 0.18, 0.02, 5);
  for (auto [rxy, rz] : {std::pair{1, 1}, {2, 2}, {0, 3}, {3, 0}, {1, 2}}) {
    SCOPED_TRACE("radii " + std::to_string(rxy) + ", " + std::to_string(rz));
    const LinkerParameters p = parameters(static_cast<std::size_t>(rxy), static_cast<std::size_t>(rz));
    check_every_block_size(cube, p, 0, cube.shape.nz);
    check_every_block_size(cube, p, 5, 14);  // a slab inside the cube: cube-wide z in the statistics
  }
  LinkerParameters positive = parameters(1, 2);
  positive.positivity = true;
  check_every_block_size(cube, positive, 0, cube.shape.nz);
}

TEST(LabelSlab, ASourceAcrossThreeBlocksAndLinksOnlyThroughTheRadius) {
  Cube cube({7, 6, 12}, 0.0, 0.0, 1);
  // A column through channels 2..10: three blocks of 4 (and more of smaller blocks).
  for (std::size_t z = 2; z <= 10; ++z) cube.mask[cube.at(3, 2, z)] = 1;
  // Two voxels two channels apart on either side of the edge between channels 3 and 4 (blocks of
  // 4) and of 1: one source with radiusZ 2, two with radiusZ 1.
  cube.mask[cube.at(0, 5, 3)] = 1;
  cube.mask[cube.at(0, 5, 5)] = 1;
  // A voxel at a block's last channel linked to one at the next block's first.
  cube.mask[cube.at(6, 0, 7)] = 1;
  cube.mask[cube.at(6, 0, 8)] = 1;
  // A blank just across a block edge from a source's voxel: flags it.
  cube.mask[cube.at(0, 0, 3)] = 1;
  cube.data[cube.at(0, 0, 4)] = std::numeric_limits<float>::quiet_NaN();
  for (std::size_t rz : {1U, 2U}) {
    SCOPED_TRACE("radiusZ " + std::to_string(rz));
    const LinkerParameters p = parameters(1, rz);
    const Offsets offsets(p);
    const LinkerSlab slab{0, 12, cube.mask, cube.data};
    const SlabView view(cube.shape, slab, p);
    const SlabComponents four = label_slab(view, offsets.around, offsets.before, 4);
    ASSERT_EQ(four.components.size(), rz == 2 ? 4u : 5u);
    check_every_block_size(cube, p, 0, 12);
  }
}

TEST(LabelSlab, EmptyOneChannelAndTheThreadsDefault) {
  const Cube empty({5, 4, 6}, 0.0, 0.0, 2);
  check_every_block_size(empty, parameters(1, 1), 0, 6);
  const Cube full({3, 3, 5}, 1.0, 0.0, 3);
  check_every_block_size(full, parameters(1, 1), 0, 5);
  check_every_block_size(full, parameters(0, 0), 2, 3);  // one channel
  // Block size 0 (about one block per thread) with more threads than channels. (At most 4
  // threads: LLVM 14's libomp leaks its team arrays in the sanitizer build when a team grows past 4.)
  const Cube cube({9, 8, 3}, 0.3, 0.05, 4);
  const LinkerParameters p = parameters(1, 1);
  const Offsets offsets(p);
  const LinkerSlab slab{0, 3, cube.mask, cube.data};
  const SlabView view(cube.shape, slab, p);
  const SlabComponents serial = label_slab(view, offsets.around, offsets.before, 3);
  const int threads = omp_get_max_threads();
  omp_set_num_threads(4);
  const SlabComponents cut = label_slab(view, offsets.around, offsets.before);
  omp_set_num_threads(threads);
  EXPECT_EQ(cut.component, serial.component);
  EXPECT_EQ(cut.components.size(), serial.components.size());
}

}  // namespace
}  // namespace astrosweep::scfind
