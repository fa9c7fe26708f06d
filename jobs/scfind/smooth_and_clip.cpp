#include "smooth_and_clip.hpp"

#include <cmath>

namespace astrosweep::scfind {

BoxcarPlan gaussian_boxcar_plan(double fwhm) {
  if (fwhm <= 0) return {};
  const double fwhm_per_sigma = 2.0 * std::sqrt(2.0 * std::log(2.0));
  const double sigma = fwhm / fwhm_per_sigma;
  BoxcarPlan plan;
  double best = -1;
  for (std::size_t n = 3; n <= 6; ++n) {
    const double r = std::sqrt(3.0 * sigma * sigma / static_cast<double>(n) + 0.25) - 0.5;
    const double distance = std::fabs(r - std::floor(r + 0.5));
    if (best < 0 || distance < best) {  // strictly better: the first n wins a tie, as in SoFiA-2
      best = distance;
      plan.passes = n;
      plan.radius = static_cast<std::size_t>(r + 0.5);
    }
  }
  return plan;
}

std::vector<KernelPair> kernel_pairs(const ScfindParameters& parameters) {
  std::vector<KernelPair> pairs;
  for (double xy : parameters.kernels_xy) {
    for (std::size_t z : parameters.kernels_z) {
      KernelPair pair;
      pair.fwhm_xy = xy;
      pair.width_z = z;
      pair.spatial = gaussian_boxcar_plan(xy);
      pair.radius_z = spectral_radius(z);
      pairs.push_back(pair);
    }
  }
  return pairs;
}

Slab make_slab(const CubeShape& cube, std::size_t own_begin, std::size_t own_end, std::size_t halo_radius) {
  return {dist::make_slab(cube.nz, own_begin, own_end, spectral_halo(halo_radius)), cube};
}

std::size_t noise_cadence(const CubeShape& cube) {
  constexpr std::size_t sample_size = 999983;  // SoFiA-2's NOISE_SAMPLE_SIZE
  std::size_t cadence = cube.voxels() / sample_size;
  if (cadence < 2) return 1;
  if (cadence % cube.nx == 0) --cadence;  // never sample one column of the cube
  return cadence;
}

SampleRange samples_in(std::uint64_t n_voxels, std::size_t cadence, std::uint64_t first, std::uint64_t last) {
  // Samples sit at n_voxels - k·cadence, k >= 1: the highest one below `last` has the smallest k
  // with n_voxels - k·cadence < last; the lowest one at or above `first` the largest k.
  SampleRange range;
  if (first >= last || n_voxels == 0 || cadence == 0) return range;
  const std::uint64_t c = cadence;
  const std::uint64_t k_min = (n_voxels >= last) ? (n_voxels - last) / c + 1 : 1;
  if (n_voxels < first || n_voxels - first < k_min * c) return range;
  const std::uint64_t k_max = (n_voxels - first) / c;
  range.highest = n_voxels - k_min * c;
  range.count = k_max - k_min + 1;
  return range;
}

}  // namespace astrosweep::scfind
