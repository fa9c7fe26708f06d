#include "sky_grid.hpp"

#include <cmath>
#include <numbers>

#include "core/error.hpp"

namespace astrosweep::spiir {
namespace {

// The NESTED index inside a base face interleaves the bits of (ix, iy): ix in the even bits, iy
// in the odd ones. This takes the even bits back out.
std::int64_t even_bits(std::int64_t v) {
  std::int64_t out = 0;
  for (int bit = 0; (v >> (2 * bit)) != 0; ++bit) out |= ((v >> (2 * bit)) & 1) << bit;
  return out;
}

// The twelve base faces: their ring index (in units of n_side, counted from the north pole) and
// their longitude index (in units of π/4) of the face's centre (Górski et al. 2005, Fig. 4).
constexpr int face_ring[12] = {2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4};
constexpr int face_longitude[12] = {1, 3, 5, 7, 0, 2, 4, 6, 1, 3, 5, 7};

}  // namespace

std::int64_t sky_pixel_count(int order) {
  AS_EXPECTS(
      order >= 0 && order <= max_sky_order, UsageError,
      "the sky grid's order must lie in 0 ... " + std::to_string(max_sky_order) + ", not " + std::to_string(order),
      "order 4 gives 3072 pixels, order 5 12288 (the seed's benchmark)");
  return 12 * (std::int64_t{1} << (2 * order));
}

void healpix_nest_centre(int order, std::int64_t pixel, double& theta, double& phi) {
  const std::int64_t n_pix = sky_pixel_count(order);
  AS_ASSERT(pixel >= 0 && pixel < n_pix);
  const std::int64_t n_side = std::int64_t{1} << order;
  const std::int64_t per_face = n_side * n_side;
  const auto face = static_cast<int>(pixel / per_face);
  const std::int64_t in_face = pixel % per_face;
  const std::int64_t ix = even_bits(in_face), iy = even_bits(in_face >> 1);

  // Ring number counted from the north pole, 1 … 4 n_side − 1.
  const std::int64_t ring = face_ring[face] * n_side - ix - iy - 1;
  std::int64_t ring_pixels_quarter = 0;  // pixels of this ring per quarter of longitude
  double z = 0;                          // cos θ
  std::int64_t shift = 0;                // 1 where the ring's pixels sit half a pixel off φ = 0
  const double n_pix_d = static_cast<double>(n_pix);
  if (ring < n_side) {  // north polar cap
    ring_pixels_quarter = ring;
    z = 1 - static_cast<double>(ring * ring) * 4.0 / n_pix_d;
  } else if (ring > 3 * n_side) {  // south polar cap
    ring_pixels_quarter = 4 * n_side - ring;
    z = static_cast<double>(ring_pixels_quarter * ring_pixels_quarter) * 4.0 / n_pix_d - 1;
  } else {  // equatorial belt: z linear in the ring number
    ring_pixels_quarter = n_side;
    z = static_cast<double>(2 * n_side - ring) * 2.0 / (3.0 * static_cast<double>(n_side));
    shift = (ring - n_side) & 1;
  }
  std::int64_t in_ring = (face_longitude[face] * ring_pixels_quarter + ix - iy + 1 + shift) / 2;
  if (in_ring > 4 * n_side) in_ring -= 4 * n_side;
  if (in_ring < 1) in_ring += 4 * n_side;
  phi = (static_cast<double>(in_ring) - 0.5 * static_cast<double>(shift + 1)) *
        (std::numbers::pi / 2 / static_cast<double>(ring_pixels_quarter));
  theta = std::acos(z);
}

std::vector<SkyDirection> sky_grid(int order) {
  const std::int64_t n_pix = sky_pixel_count(order);
  std::vector<SkyDirection> grid(static_cast<std::size_t>(n_pix));
  for (std::int64_t p = 0; p < n_pix; ++p) {
    double theta = 0, phi = 0;
    healpix_nest_centre(order, p, theta, phi);
    grid[static_cast<std::size_t>(p)] = {phi, std::numbers::pi / 2 - theta};
  }
  return grid;
}

double angular_distance(const SkyDirection& a, const SkyDirection& b) {
  // The haversine form: accurate for small angles as well as large.
  const double s_dec = std::sin((b.dec - a.dec) / 2), s_ra = std::sin((b.ra - a.ra) / 2);
  const double h = s_dec * s_dec + std::cos(a.dec) * std::cos(b.dec) * s_ra * s_ra;
  return 2 * std::asin(std::sqrt(std::min(1.0, h)));
}

}  // namespace astrosweep::spiir
