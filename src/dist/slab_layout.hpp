#pragma once
// The second distribution model, slabs: one axis of the data (a cube's channels for scfind, strain
// time for spiir) cut into ranges of positions dealt out to the ranks. A slab owns its range and
// holds a halo beyond it either side: the neighbours' positions its computation reads. A stage that
// runs along the axis continues a running state from slab to slab, and halos are brought up to
// date by the slabs that own them (slab_exchange.hpp).
//
// Normally one slab per rank; when a slab would not fit a rank's memory, each rank owns several
// thinner slabs and streams them. Slab j belongs to rank j mod ranks: dealing the slabs out
// round-robin keeps consecutive slabs on different ranks, so a state handed from slab to slab in
// blocks keeps the ranks working along the axis as a pipeline instead of each waiting for the
// whole range before its own.

#include <cstddef>
#include <functional>
#include <vector>

namespace astrosweep::dist {

/// Which way a running state flows between neighbouring slabs, and so the order in which a rank
/// works through its slabs.
enum class Flow {
  down,  ///< from slab j + 1 to slab j: from the end of the axis to its start (scfind)
  up,    ///< from slab j to slab j + 1 (a causal filter over time)
};

/// Positions a slab holds beyond those it owns, below and above (clipped to the axis).
struct Halo {
  std::size_t below = 0;
  std::size_t above = 0;
};

/// The axis a layout cuts: n positions of `plane` elements each (a cube's channels: nz planes of
/// nx·ny voxels; a time series: n samples of plane 1), the halo every slab holds and the way a
/// running state flows.
struct Axis {
  std::size_t n = 0;
  std::size_t plane = 1;
  Halo halo;
  Flow flow = Flow::down;
};

/// A slab owns positions [own_begin, own_end) and holds [held_begin, held_end) ⊇ those.
struct Slab {
  std::size_t own_begin = 0, own_end = 0;
  std::size_t held_begin = 0, held_end = 0;
  [[nodiscard]] std::size_t owned_positions() const noexcept { return own_end - own_begin; }
  [[nodiscard]] std::size_t held_positions() const noexcept { return held_end - held_begin; }
};

/// The slab owning [own_begin, own_end) of an axis of n positions, its halo clipped to the axis;
/// an empty slab holds nothing.
Slab make_slab(std::size_t n, std::size_t own_begin, std::size_t own_end, Halo halo);

/// Position ranges of `parts` near-equal slabs of n positions: part p owns [bounds[p], bounds[p+1]).
std::vector<std::size_t> slab_bounds(std::size_t n, std::size_t parts);

class SlabLayout {
 public:
  /// `ranks` × `slabs_per_rank` slabs of `axis` (at most one per position).
  SlabLayout(const Axis& axis, int ranks, std::size_t slabs_per_rank);

  [[nodiscard]] const Axis& axis() const noexcept { return axis_; }
  [[nodiscard]] int ranks() const noexcept { return ranks_; }
  [[nodiscard]] std::size_t slabs_per_rank() const noexcept { return per_rank_; }
  [[nodiscard]] std::size_t count() const noexcept { return bounds_.size() - 1; }
  [[nodiscard]] int owner(std::size_t j) const noexcept {
    return static_cast<int>(j % static_cast<std::size_t>(ranks_));
  }
  [[nodiscard]] Slab slab(std::size_t j) const;
  /// The slabs `rank` owns in the order the state flows (from the end of the axis down for
  /// Flow::down): the order it works through them.
  [[nodiscard]] std::vector<std::size_t> slabs_of(int rank) const;
  /// The positions of rank r's group, the contiguous slabs [r·K, (r+1)·K) (K slabs per rank): where
  /// a statistic over the axis in position order can have each rank take one run of it.
  [[nodiscard]] std::size_t group_begin(int rank) const noexcept {
    return bounds_[static_cast<std::size_t>(rank) * per_rank_];
  }
  [[nodiscard]] std::size_t group_end(int rank) const noexcept {
    return bounds_[(static_cast<std::size_t>(rank) + 1) * per_rank_];
  }
  /// Positions of the thickest slab including its halo: what a rank must hold at once.
  [[nodiscard]] std::size_t thickest_held() const noexcept;

 private:
  Axis axis_;
  int ranks_ = 1;
  std::size_t per_rank_ = 1;
  std::vector<std::size_t> bounds_;
};

/// The fewest slabs per rank (at most n / ranks) for which `fits(slabs_per_rank)` holds; 0 when
/// none. Thinner slabs need less memory each but more halo positions in all, so the need is not
/// monotonic: every count is tried, from one up.
std::size_t fewest_slabs_per_rank(std::size_t n, int ranks, const std::function<bool(std::size_t)>& fits);

}  // namespace astrosweep::dist
