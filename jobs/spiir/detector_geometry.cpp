#include "detector_geometry.hpp"

#include <cmath>
#include <numbers>

#include "core/error.hpp"

namespace astrosweep::spiir {
namespace {

Detector make_detector(std::string name, Vector3 vertex, Vector3 x_arm, Vector3 y_arm) {
  Detector d{std::move(name), vertex, x_arm, y_arm, {}};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) d.response[i][j] = 0.5 * (x_arm[i] * x_arm[j] - y_arm[i] * y_arm[j]);
  return d;
}

// The spec §9 table (LAL's LALDetectors.h values).
const std::vector<Detector>& detectors() {
  static const std::vector<Detector> list{
      make_detector("H1", {-2.16141492636e6, -3.83469517889e6, 4.60035022664e6},
                    {-0.22389266154, 0.79983062746, 0.55690487831}, {-0.91397818574, 0.02609403989, -0.40492342125}),
      make_detector("L1", {-7.42760447238e4, -5.49628371971e6, 3.22425701744e6},
                    {-0.95457412153, -0.14158077340, -0.26218911324}, {0.29774156894, -0.48791033647, -0.82054461286}),
      make_detector("V1", {4.54637409900e6, 8.42989697626e5, 4.37857696241e6},
                    {-0.70045821479, 0.20848948619, 0.68256166277}, {-0.05379255368, -0.96908180549, 0.24080451708}),
  };
  return list;
}

double quadratic_form(const Matrix3& d, const Vector3& a, const Vector3& b) {
  double s = 0;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) s += a[i] * d[i][j] * b[j];
  return s;
}

}  // namespace

const Detector& detector(const std::string& name) {
  for (const auto& d : detectors())
    if (d.name == name) return d;
  throw UsageError("unknown detector '" + name + "'", "the coherent stage knows H1, L1 and V1");
}

std::vector<std::string> known_detectors() {
  std::vector<std::string> names;
  for (const auto& d : detectors()) names.push_back(d.name);
  return names;
}

double gmst_from_gps(double gps_s) {
  constexpr double leap_seconds = 18;                                                 // GPS − UTC since 2017-01-01
  constexpr double gps_epoch_jd = 2444244.5;                                          // 1980-01-06 00:00 UTC
  const double days = (gps_s - leap_seconds) / 86400.0 + (gps_epoch_jd - 2451545.0);  // since J2000
  const double t = days / 36525.0;
  // Split the large term so that its whole turns drop out before the rounding of the product.
  const double whole_days = std::floor(days);
  const double turns_deg = std::fmod(360.98564736629 * whole_days, 360.0) + 360.98564736629 * (days - whole_days);
  double deg = 280.46061837 + turns_deg + 0.000387933 * t * t - t * t * t / 38710000.0;
  deg = std::fmod(deg, 360.0);
  if (deg < 0) deg += 360.0;
  return deg * std::numbers::pi / 180.0;
}

AntennaPattern antenna_pattern(const Detector& det, const SkyDirection& where, double psi, double gmst) {
  const double g = gmst - where.ra;
  const double cg = std::cos(g), sg = std::sin(g), cp = std::cos(psi), sp = std::sin(psi);
  const double cd = std::cos(where.dec), sd = std::sin(where.dec);
  const Vector3 x{-cp * sg - sp * cg * sd, -cp * cg + sp * sg * sd, sp * cd};
  const Vector3 y{sp * sg - cp * cg * sd, sp * cg + cp * sg * sd, cp * cd};
  return {quadratic_form(det.response, x, x) - quadratic_form(det.response, y, y),
          quadratic_form(det.response, x, y) + quadratic_form(det.response, y, x)};
}

double delay_from_geocentre(const Detector& det, const SkyDirection& where, double gmst) {
  const double g = gmst - where.ra;
  const Vector3 n{std::cos(where.dec) * std::cos(g), -std::cos(where.dec) * std::sin(g), std::sin(where.dec)};
  return -(det.vertex[0] * n[0] + det.vertex[1] * n[1] + det.vertex[2] * n[2]) / speed_of_light;
}

}  // namespace astrosweep::spiir
