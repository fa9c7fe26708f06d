#pragma once
// The coherent stage's sky grid (spec §9): HEALPix pixel centres in NESTED ordering,
// n_side = 2^order, 12 n_side² pixels of equal area. Our own pix2ang (Górski et al. 2005,
// ApJ 622, 759), checked against healpy's pix2ang(nest=True) in tests/spiir/test_sky.cpp.
#include <cstdint>
#include <vector>

namespace astrosweep::spiir {

/// A direction on the sky: right ascension and declination, radians (ra = φ, dec = π/2 − θ).
struct SkyDirection {
  double ra = 0;
  double dec = 0;
};

/// The highest order accepted (n_side 8192: 805 million pixels, far beyond any use here).
inline constexpr int max_sky_order = 13;

/// 12 · 4^order. Throws UsageError outside 0 … max_sky_order.
std::int64_t sky_pixel_count(int order);

/// HEALPix NESTED pixel `pixel`'s centre, colatitude θ (0 at the north pole) and longitude φ in
/// [0, 2π), radians.
void healpix_nest_centre(int order, std::int64_t pixel, double& theta, double& phi);

/// Every pixel's centre as (ra, dec), in NESTED order.
std::vector<SkyDirection> sky_grid(int order);

/// The angle between two directions, radians.
double angular_distance(const SkyDirection& a, const SkyDirection& b);

}  // namespace astrosweep::spiir
