#pragma once
// How the cube's channels are split into slabs and which rank owns which. Normally one slab per
// rank; when a slab would not fit a rank's memory (GPU memory on GPU ranks, --memory-budget-mb on
// the host), each rank owns several thinner slabs and streams them through its backend.
//
// Slab j (counting up the spectral axis) belongs to rank j mod ranks. SoFiA-2's spectral running
// sum goes from the top channel down, so slab j continues the sum of slab j + 1; dealing the slabs
// out round-robin keeps consecutive slabs on different ranks, and the ranks work down the cube as
// a pipeline (row block by row block) instead of waiting for each other's whole channel range.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "smooth_and_clip.hpp"

namespace astrosweep::scfind {

/// Channel ranges of `parts` near-equal slabs: part p owns [bounds[p], bounds[p+1]).
std::vector<std::size_t> channel_bounds(std::size_t nz, std::size_t parts);

class SlabLayout {
 public:
  /// `ranks` × `slabs_per_rank` slabs of `cube` (at most one per channel), halos of `halo_radius`.
  SlabLayout(const CubeShape& cube, std::size_t halo_radius, int ranks, std::size_t slabs_per_rank);

  [[nodiscard]] const CubeShape& cube() const noexcept { return cube_; }
  [[nodiscard]] std::size_t halo_radius() const noexcept { return halo_; }
  [[nodiscard]] int ranks() const noexcept { return ranks_; }
  [[nodiscard]] std::size_t slabs_per_rank() const noexcept { return per_rank_; }
  [[nodiscard]] std::size_t count() const noexcept { return bounds_.size() - 1; }
  [[nodiscard]] int owner(std::size_t j) const noexcept {
    return static_cast<int>(j % static_cast<std::size_t>(ranks_));
  }
  [[nodiscard]] Slab slab(std::size_t j) const;
  /// The slabs `rank` owns, from the top of the cube down: the order it works through them.
  [[nodiscard]] std::vector<std::size_t> slabs_of(int rank) const;
  /// The ranks whose noise samples are contiguous: slabs [r·K, (r+1)·K) form rank r's run of
  /// SoFiA-2's sample sequence (see regroup_samples).
  [[nodiscard]] std::size_t group_begin(int rank) const noexcept {
    return bounds_[static_cast<std::size_t>(rank) * per_rank_];
  }
  [[nodiscard]] std::size_t group_end(int rank) const noexcept {
    return bounds_[(static_cast<std::size_t>(rank) + 1) * per_rank_];
  }
  /// Channels of the thickest slab including its halo: what a rank must hold at once.
  [[nodiscard]] std::size_t thickest_held_channels() const noexcept;

 private:
  CubeShape cube_;
  std::size_t halo_ = 0;
  int ranks_ = 1;
  std::size_t per_rank_ = 1;
  std::vector<std::size_t> bounds_;
};

/// The fewest slabs per rank (at most nz / ranks) for which `fits(layout)` holds; 0 when none.
std::size_t fewest_slabs_per_rank(const CubeShape& cube, std::size_t halo_radius, int ranks,
                                  const std::function<bool(const SlabLayout&)>& fits);

}  // namespace astrosweep::scfind
