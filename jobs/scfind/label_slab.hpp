#pragma once
// Step 1 of the linker across slabs (linker_slabs.hpp): one slab's voxels that take part, linked
// into components, on all OpenMP threads.
//
// The slab is cut into blocks of channels. Each thread labels its blocks alone (the scan of the
// whole block for voxels that take part, then a union-find over them with the links inside the
// block); the blocks' union-finds are then put end to end and the links that cross a block
// boundary (the "before" offsets reaching an earlier block, any number of blocks back when the
// merge radius is thicker than a block) are united: the same scheme the slabs use across ranks.
// Every union-find keeps its sets' smallest member as the root, so the result does not depend on
// the cut: the same voxels, the same partition, and the components numbered by their smallest
// voxel, as one block (the serial scan) gives. Which cut is only a matter of speed.

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "linker.hpp"
#include "linker_slabs.hpp"

namespace astrosweep::scfind {

/// Union-find whose roots are their sets' smallest members (so a scan in ascending order meets
/// each set's root first).
class UnionFind {
 public:
  explicit UnionFind(std::size_t n);
  /// Blocks' union-finds end to end: block b's members are shifted by the sizes before it.
  explicit UnionFind(std::span<const UnionFind> blocks);
  std::uint64_t find(std::uint64_t i) {
    while (parent_[i] != i) {
      parent_[i] = parent_[parent_[i]];  // path halving
      i = parent_[i];
    }
    return i;
  }
  void unite(std::uint64_t a, std::uint64_t b) {
    a = find(a);
    b = find(b);
    if (a != b) parent_[a > b ? a : b] = a < b ? a : b;
  }
  [[nodiscard]] std::size_t size() const noexcept { return parent_.size(); }

 private:
  std::vector<std::uint64_t> parent_;
};

/// One slab's view for the linker: its values, mask and coordinates.
class SlabView {
 public:
  SlabView(const CubeShape& cube, const LinkerSlab& slab, const LinkerParameters& p)
      : nx_(cube.nx), ny_(cube.ny), plane_(cube.plane()), slab_(slab), positivity_(p.positivity) {}
  [[nodiscard]] std::size_t channels() const noexcept { return slab_.z_end - slab_.z_begin; }
  [[nodiscard]] std::size_t plane() const noexcept { return plane_; }
  [[nodiscard]] std::size_t voxels() const noexcept { return channels() * plane_; }
  [[nodiscard]] bool takes_part(std::size_t i) const noexcept {
    if (slab_.mask[i] == 0) return false;
    const float v = slab_.data[i];
    return std::isfinite(v) && !(positivity_ && v < 0.0F);
  }
  [[nodiscard]] bool blank(std::size_t i) const noexcept { return !std::isfinite(slab_.data[i]); }
  [[nodiscard]] float value(std::size_t i) const noexcept { return slab_.data[i]; }
  // The slab-local index of (x, y, z) + o when it lies in the slab (z cube-wide), or -1.
  [[nodiscard]] std::ptrdiff_t at(std::size_t x, std::size_t y, std::size_t z, const LinkOffset& o) const noexcept {
    const auto xx = static_cast<std::ptrdiff_t>(x) + o.dx, yy = static_cast<std::ptrdiff_t>(y) + o.dy,
               zz = static_cast<std::ptrdiff_t>(z) + o.dz - static_cast<std::ptrdiff_t>(slab_.z_begin);
    if (xx < 0 || yy < 0 || zz < 0 || xx >= static_cast<std::ptrdiff_t>(nx_) ||
        yy >= static_cast<std::ptrdiff_t>(ny_) || zz >= static_cast<std::ptrdiff_t>(channels()))
      return -1;
    return zz * static_cast<std::ptrdiff_t>(plane_) + yy * static_cast<std::ptrdiff_t>(nx_) + xx;
  }
  [[nodiscard]] std::size_t x_of(std::size_t i) const noexcept { return i % nx_; }
  [[nodiscard]] std::size_t y_of(std::size_t i) const noexcept { return (i / nx_) % ny_; }
  [[nodiscard]] std::size_t z_of(std::size_t i) const noexcept { return slab_.z_begin + i / plane_; }
  [[nodiscard]] std::uint64_t cube_index(std::size_t i) const noexcept { return slab_.z_begin * plane_ + i; }

 private:
  std::size_t nx_, ny_, plane_;
  const LinkerSlab& slab_;
  bool positivity_;
};

/// One slab's voxels that take part, and their components.
struct SlabComponents {
  std::vector<std::uint64_t> voxels;     ///< slab-local linear indices, ascending
  std::vector<std::uint32_t> component;  ///< per voxel, its component within the slab
  std::vector<Component> components;     ///< cube-wide coordinates and indices, by smallest voxel
};

/// Position of slab-local voxel i among the slab's voxels that take part (it must be one).
[[nodiscard]] std::size_t position_of(const SlabComponents& s, std::uint64_t i);

/// The slab's components (with the blanks within the merge radius inside the slab flagged),
/// labelled in blocks of `block_channels` channels (0: about one block per OpenMP thread); any
/// block size gives the same result. `around` is link_neighbourhood's, `before` its offsets to
/// lower linear indices.
[[nodiscard]] SlabComponents label_slab(const SlabView& view, std::span<const LinkOffset> around,
                                        std::span<const LinkOffset> before, std::size_t block_channels = 0);

}  // namespace astrosweep::scfind
