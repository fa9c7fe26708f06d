#include "slab_layout.hpp"

#include <algorithm>

#include "core/error.hpp"

namespace astrosweep::scfind {

std::vector<std::size_t> channel_bounds(std::size_t nz, std::size_t parts) {
  AS_ASSERT(parts > 0);
  std::vector<std::size_t> bounds(parts + 1);
  for (std::size_t p = 0; p <= parts; ++p) bounds[p] = nz * p / parts;
  return bounds;
}

SlabLayout::SlabLayout(const CubeShape& cube, std::size_t halo_radius, int ranks, std::size_t slabs_per_rank)
    : cube_(cube), halo_(halo_radius), ranks_(ranks), per_rank_(slabs_per_rank) {
  AS_ASSERT(ranks > 0 && slabs_per_rank > 0 && static_cast<std::size_t>(ranks) * slabs_per_rank <= cube.nz);
  bounds_ = channel_bounds(cube.nz, static_cast<std::size_t>(ranks) * slabs_per_rank);
}

Slab SlabLayout::slab(std::size_t j) const {
  AS_ASSERT(j < count());
  return make_slab(cube_, bounds_[j], bounds_[j + 1], halo_);
}

std::vector<std::size_t> SlabLayout::slabs_of(int rank) const {
  std::vector<std::size_t> mine;
  for (std::size_t j = count(); j-- > 0;)
    if (owner(j) == rank) mine.push_back(j);
  return mine;
}

std::size_t SlabLayout::thickest_held_channels() const noexcept {
  std::size_t most = 0;
  for (std::size_t j = 0; j < count(); ++j) most = std::max(most, slab(j).held_channels());
  return most;
}

std::size_t fewest_slabs_per_rank(const CubeShape& cube, std::size_t halo_radius, int ranks,
                                  const std::function<bool(const SlabLayout&)>& fits) {
  // Thinner slabs need less for the slab in the backend but more halo planes in all, so the need
  // is not monotonic: scan from one slab up.
  const std::size_t most = cube.nz / static_cast<std::size_t>(ranks);
  for (std::size_t k = 1; k <= most; ++k)
    if (fits(SlabLayout(cube, halo_radius, ranks, k))) return k;
  return 0;
}

}  // namespace astrosweep::scfind
