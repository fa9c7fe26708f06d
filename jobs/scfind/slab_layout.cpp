#include "slab_layout.hpp"

namespace astrosweep::scfind {

SlabLayout::SlabLayout(const CubeShape& cube, std::size_t halo_radius, int ranks, std::size_t slabs_per_rank)
    : dist::SlabLayout({cube.nz, cube.plane(), spectral_halo(halo_radius), dist::Flow::down}, ranks, slabs_per_rank),
      cube_(cube),
      halo_radius_(halo_radius) {}

std::size_t fewest_slabs_per_rank(const CubeShape& cube, std::size_t halo_radius, int ranks,
                                  const std::function<bool(const SlabLayout&)>& fits) {
  return dist::fewest_slabs_per_rank(cube.nz, ranks,
                                     [&](std::size_t k) { return fits(SlabLayout(cube, halo_radius, ranks, k)); });
}

}  // namespace astrosweep::scfind
