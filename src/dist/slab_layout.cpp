#include "dist/slab_layout.hpp"

#include <algorithm>

#include "core/error.hpp"

namespace astrosweep::dist {

Slab make_slab(std::size_t n, std::size_t own_begin, std::size_t own_end, Halo halo) {
  AS_ASSERT(own_begin <= own_end && own_end <= n);
  Slab slab;
  slab.own_begin = own_begin;
  slab.own_end = own_end;
  slab.held_begin = own_begin - std::min(own_begin, halo.below);
  slab.held_end = std::min(n, own_end + halo.above);
  if (own_begin == own_end) slab.held_begin = slab.held_end = own_begin;
  return slab;
}

std::vector<std::size_t> slab_bounds(std::size_t n, std::size_t parts) {
  AS_ASSERT(parts > 0);
  std::vector<std::size_t> bounds(parts + 1);
  for (std::size_t p = 0; p <= parts; ++p) bounds[p] = n * p / parts;
  return bounds;
}

SlabLayout::SlabLayout(const Axis& axis, int ranks, std::size_t slabs_per_rank)
    : axis_(axis), ranks_(ranks), per_rank_(slabs_per_rank) {
  AS_ASSERT(ranks > 0 && slabs_per_rank > 0 && static_cast<std::size_t>(ranks) * slabs_per_rank <= axis.n);
  bounds_ = slab_bounds(axis.n, static_cast<std::size_t>(ranks) * slabs_per_rank);
}

Slab SlabLayout::slab(std::size_t j) const {
  AS_ASSERT(j < count());
  return make_slab(axis_.n, bounds_[j], bounds_[j + 1], axis_.halo);
}

std::vector<std::size_t> SlabLayout::slabs_of(int rank) const {
  std::vector<std::size_t> mine;
  for (std::size_t j = 0; j < count(); ++j)
    if (owner(j) == rank) mine.push_back(j);
  if (axis_.flow == Flow::down) std::reverse(mine.begin(), mine.end());
  return mine;
}

std::size_t SlabLayout::thickest_held() const noexcept {
  std::size_t most = 0;
  for (std::size_t j = 0; j < count(); ++j) most = std::max(most, slab(j).held_positions());
  return most;
}

std::size_t fewest_slabs_per_rank(std::size_t n, int ranks, const std::function<bool(std::size_t)>& fits) {
  const std::size_t most = n / static_cast<std::size_t>(ranks);
  for (std::size_t k = 1; k <= most; ++k)
    if (fits(k)) return k;
  return 0;
}

}  // namespace astrosweep::dist
