#pragma once
// The pieces of SoFiA-2's smooth-and-clip that every backend shares (../shared specs:
// smooth-and-clip.md): the boxcar approximation of a Gaussian, the kernel-pair order, the slab a
// rank holds, and the noise sample positions. Plain C++; the CUDA backend includes it too.

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "dist/slab_layout.hpp"
#include "scfind_config.hpp"

namespace astrosweep::scfind {

/// n boxcar passes of width 2·radius+1 approximating a Gaussian; passes == 0: no smoothing.
struct BoxcarPlan {
  std::size_t radius = 0;
  std::size_t passes = 0;
};

/// SoFiA-2's choice for a spatial FWHM in pixels: σ = FWHM / (2·sqrt(2·ln 2)); for n = 3..6
/// r(n) = sqrt(3σ²/n + 0.25) − 0.5; the n whose r is nearest an integer (first on ties), radius
/// round(r). FWHM 0 → no passes.
BoxcarPlan gaussian_boxcar_plan(double fwhm);

/// Spectral boxcar radius (integer division, as SoFiA-2); 0 or 1 channel → no smoothing.
constexpr std::size_t spectral_radius(std::size_t width) noexcept { return width / 2; }

/// One (spatial, spectral) kernel pair, in SoFiA-2's order (spatial outer, spectral inner).
struct KernelPair {
  double fwhm_xy = 0;
  std::size_t width_z = 0;
  BoxcarPlan spatial;
  std::size_t radius_z = 0;
  [[nodiscard]] bool smooths() const noexcept { return fwhm_xy != 0 || width_z != 0; }
};
std::vector<KernelPair> kernel_pairs(const ScfindParameters& parameters);

struct CubeShape {
  std::size_t nx = 0, ny = 0, nz = 0;
  [[nodiscard]] std::size_t plane() const noexcept { return nx * ny; }
  [[nodiscard]] std::size_t voxels() const noexcept { return nx * ny * nz; }
};

/// The halo the spectral boxcar of `radius` needs: radius channels below, radius + 1 above (the
/// running sum's first difference reaches channel i + r + 1); none without spectral smoothing.
constexpr dist::Halo spectral_halo(std::size_t radius) noexcept { return {radius, radius > 0 ? radius + 1 : 0}; }

/// A rank's part of the cube along the spectral axis (dist::Slab in channels, with the cube's
/// shape): it owns (smooths, clips and writes) channels [own_begin, own_end) and holds
/// [held_begin, held_end) ⊇ those, the spectral_halo, clipped to the cube.
struct Slab : dist::Slab {
  CubeShape cube;
  [[nodiscard]] std::size_t owned_channels() const noexcept { return owned_positions(); }
  [[nodiscard]] std::size_t held_channels() const noexcept { return held_positions(); }
  [[nodiscard]] std::size_t owned_voxels() const noexcept { return owned_channels() * cube.plane(); }
  [[nodiscard]] std::size_t held_voxels() const noexcept { return held_channels() * cube.plane(); }
  /// Offset of the first owned voxel within the held voxels.
  [[nodiscard]] std::size_t owned_offset() const noexcept { return (own_begin - held_begin) * cube.plane(); }
  [[nodiscard]] bool at_top() const noexcept { return own_end == cube.nz; }
  [[nodiscard]] bool at_bottom() const noexcept { return own_begin == 0; }
};
Slab make_slab(const CubeShape& cube, std::size_t own_begin, std::size_t own_end, std::size_t halo_radius);

/// SoFiA-2's noise sample: every `cadence`-th voxel by global linear index, walking down from the
/// end (N − cadence, N − 2·cadence, ...). cadence = N / 999983; below 2 → 1; a multiple of NAXIS1
/// → one less.
std::size_t noise_cadence(const CubeShape& cube);

/// The global linear indices of the samples that fall in [first, last), highest first: first index
/// and count (they step down by cadence).
struct SampleRange {
  std::uint64_t highest = 0;  ///< valid when count > 0
  std::uint64_t count = 0;
};
SampleRange samples_in(std::uint64_t n_voxels, std::size_t cadence, std::uint64_t first, std::uint64_t last);

}  // namespace astrosweep::scfind
