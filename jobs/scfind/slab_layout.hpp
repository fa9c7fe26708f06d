#pragma once
// The cube's slabs: the slab layout of the framework (dist/slab_layout.hpp) along the spectral
// axis, nz channels of nx·ny voxels, each slab holding the halo of SoFiA-2's spectral boxcar
// (spectral_halo). The spectral running sum goes from the top channel down (Flow::down), so slab j
// continues the sum of slab j + 1 and a rank works through its slabs from the top of the cube down.

#include <cstddef>
#include <functional>

#include "dist/slab_layout.hpp"
#include "smooth_and_clip.hpp"

namespace astrosweep::scfind {

class SlabLayout : public dist::SlabLayout {
 public:
  /// `ranks` × `slabs_per_rank` slabs of `cube` (at most one per channel), halos for a spectral
  /// boxcar of `halo_radius`.
  SlabLayout(const CubeShape& cube, std::size_t halo_radius, int ranks, std::size_t slabs_per_rank);

  [[nodiscard]] const CubeShape& cube() const noexcept { return cube_; }
  [[nodiscard]] std::size_t halo_radius() const noexcept { return halo_radius_; }
  /// Slab j with the cube's shape (dist::SlabLayout::slab gives its channel ranges alone).
  [[nodiscard]] Slab slab(std::size_t j) const { return {dist::SlabLayout::slab(j), cube_}; }
  /// Channels of the thickest slab including its halo: what a rank must hold at once.
  [[nodiscard]] std::size_t thickest_held_channels() const noexcept { return thickest_held(); }

 private:
  CubeShape cube_;
  std::size_t halo_radius_ = 0;
};

/// The fewest slabs per rank (at most nz / ranks) for which `fits(layout)` holds; 0 when none.
std::size_t fewest_slabs_per_rank(const CubeShape& cube, std::size_t halo_radius, int ranks,
                                  const std::function<bool(const SlabLayout&)>& fits);

}  // namespace astrosweep::scfind
