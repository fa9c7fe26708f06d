#include "label_slab.hpp"

#include <omp.h>

#include <algorithm>
#include <limits>

#include "core/error.hpp"

namespace astrosweep::scfind {

UnionFind::UnionFind(std::size_t n) : parent_(n) {
  for (std::size_t i = 0; i < n; ++i) parent_[i] = i;
}

UnionFind::UnionFind(std::span<const UnionFind> blocks) {
  std::size_t n = 0;
  for (const UnionFind& b : blocks) n += b.size();
  parent_.resize(n);
  std::size_t offset = 0;
  for (const UnionFind& b : blocks) {
    // A shift keeps each root its set's smallest member.
    for (std::size_t i = 0; i < b.size(); ++i) parent_[offset + i] = offset + b.parent_[i];
    offset += b.size();
  }
}

std::size_t position_of(const SlabComponents& s, std::uint64_t i) {
  return static_cast<std::size_t>(std::lower_bound(s.voxels.begin(), s.voxels.end(), i) - s.voxels.begin());
}

namespace {

// One block's voxels that take part (slab-local indices, ascending) and their links inside it.
struct Block {
  std::size_t begin = 0, end = 0;  ///< slab-local linear indices [begin, end)
  std::vector<std::uint64_t> voxels;
  UnionFind sets{0};
};

void label_block(const SlabView& view, std::span<const LinkOffset> before, Block& block) {
  for (std::size_t i = block.begin; i < block.end; ++i)
    if (view.takes_part(i)) block.voxels.push_back(i);
  block.sets = UnionFind(block.voxels.size());
  for (std::size_t a = 0; a < block.voxels.size(); ++a) {
    const std::size_t i = block.voxels[a];
    for (const LinkOffset& o : before) {
      const std::ptrdiff_t j = view.at(view.x_of(i), view.y_of(i), view.z_of(i), o);
      // Links to earlier blocks are the join's; "before" never reaches past the block's end.
      if (j < static_cast<std::ptrdiff_t>(block.begin) || !view.takes_part(static_cast<std::size_t>(j))) continue;
      const auto b = std::lower_bound(block.voxels.begin(), block.voxels.begin() + static_cast<std::ptrdiff_t>(a),
                                      static_cast<std::uint64_t>(j));
      block.sets.unite(a, static_cast<std::uint64_t>(b - block.voxels.begin()));
    }
  }
}

}  // namespace

SlabComponents label_slab(const SlabView& view, std::span<const LinkOffset> around, std::span<const LinkOffset> before,
                          std::size_t block_channels) {
  const std::size_t channels = view.channels(), plane = view.plane();
  if (block_channels == 0) {
    const auto threads = static_cast<std::size_t>(std::max(1, omp_get_max_threads()));
    block_channels = std::max<std::size_t>(1, (channels + threads - 1) / threads);
  }
  std::vector<Block> blocks((channels + block_channels - 1) / block_channels);
  for (std::size_t b = 0; b < blocks.size(); ++b) {
    blocks[b].begin = b * block_channels * plane;
    blocks[b].end = std::min(channels, (b + 1) * block_channels) * plane;
  }
  // The scan of the whole slab is the cost (the mask is sparse): one block per thread at a time.
  const auto count = static_cast<std::ptrdiff_t>(blocks.size());
#pragma omp parallel for schedule(dynamic, 1)
  for (std::ptrdiff_t b = 0; b < count; ++b) label_block(view, before, blocks[static_cast<std::size_t>(b)]);

  SlabComponents s;
  std::size_t total = 0;
  for (const Block& b : blocks) total += b.voxels.size();
  s.voxels.reserve(total);
  std::vector<UnionFind> block_sets;
  block_sets.reserve(blocks.size());
  for (Block& b : blocks) {
    s.voxels.insert(s.voxels.end(), b.voxels.begin(), b.voxels.end());
    block_sets.push_back(std::move(b.sets));
    b.voxels = {};
  }
  UnionFind sets{std::span<const UnionFind>(block_sets)};
  block_sets = {};
  // The join: links from a block's voxels to voxels of earlier blocks (within radiusZ channels of
  // its first channel; a block thinner than the radius reaches several blocks back).
  std::size_t radius_z = 0;
  for (const LinkOffset& o : before) radius_z = std::max(radius_z, static_cast<std::size_t>(-o.dz));
  std::size_t first = 0;  // position of the block's first voxel
  for (std::size_t b = 0; b < blocks.size(); ++b) {
    const std::size_t begin = blocks[b].begin;
    const auto first_it = s.voxels.begin() + static_cast<std::ptrdiff_t>(first);
    const std::size_t reach = std::min(blocks[b].end, begin + radius_z * plane);
    const auto last_it = std::lower_bound(first_it, s.voxels.end(), static_cast<std::uint64_t>(reach));
    for (auto it = first_it; it != last_it && b > 0; ++it) {
      const std::size_t i = *it;
      for (const LinkOffset& o : before) {
        const std::ptrdiff_t j = view.at(view.x_of(i), view.y_of(i), view.z_of(i), o);
        if (j < 0 || j >= static_cast<std::ptrdiff_t>(begin) || !view.takes_part(static_cast<std::size_t>(j))) continue;
        sets.unite(static_cast<std::uint64_t>(it - s.voxels.begin()), position_of(s, static_cast<std::uint64_t>(j)));
      }
    }
    first = static_cast<std::size_t>(std::lower_bound(first_it, s.voxels.end(), blocks[b].end) - s.voxels.begin());
  }

  s.component.resize(s.voxels.size());
  for (std::size_t a = 0; a < s.voxels.size(); ++a) {
    const std::uint64_t root = sets.find(a);
    if (root == a) {
      AS_EXPECTS(s.components.size() < std::numeric_limits<std::uint32_t>::max(), UsageError,
                 "more than 2^32 components in one slab", "raise scfind.threshold or run on more ranks");
      s.component[a] = static_cast<std::uint32_t>(s.components.size());
      s.components.emplace_back();
    } else {
      s.component[a] = s.component[root];
    }
    const std::size_t i = s.voxels[a];
    s.components[s.component[a]].add(view.cube_index(i), view.x_of(i), view.y_of(i), view.z_of(i), view.value(i));
  }
  // Blanks within the merge radius, inside this slab (those in other slabs come with the exchange).
  for (std::size_t a = 0; a < s.voxels.size(); ++a) {
    Component& c = s.components[s.component[a]];
    if (c.flags & flag_blank_nearby) continue;
    const std::size_t i = s.voxels[a];
    for (const LinkOffset& o : around) {
      const std::ptrdiff_t j = view.at(view.x_of(i), view.y_of(i), view.z_of(i), o);
      if (j >= 0 && view.blank(static_cast<std::size_t>(j))) {
        c.flags |= flag_blank_nearby;
        break;
      }
    }
  }
  return s;
}

}  // namespace astrosweep::scfind
