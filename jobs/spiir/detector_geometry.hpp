#pragma once
// Where the detectors are and how they see the sky (spec §9): the H1, L1 and V1 vertices and arms
// of the spec's table (LAL's values), their response tensors, Greenwich mean sidereal time from a
// GPS time, the antenna patterns F+, F× in LAL's convention and the arrival-time delays. Checked
// against LAL (XLALComputeDetAMResponse, XLALTimeDelayFromEarthCenter, XLALGreenwichMeanSiderealTime)
// in tests/spiir/test_sky.cpp.
#include <array>
#include <string>
#include <vector>

#include "sky_grid.hpp"

namespace astrosweep::spiir {

inline constexpr double speed_of_light = 299792458.0;  ///< m/s

using Vector3 = std::array<double, 3>;
using Matrix3 = std::array<std::array<double, 3>, 3>;

struct Detector {
  std::string name;
  Vector3 vertex{};  ///< Earth-fixed Cartesian, m
  Vector3 x_arm{};   ///< unit vectors from the vertex
  Vector3 y_arm{};
  Matrix3 response{};  ///< D = ½ (x̂ x̂ᵀ − ŷ ŷᵀ)
};

/// The detector called `name` (H1, L1 or V1). Throws UsageError for any other name.
const Detector& detector(const std::string& name);

/// The names of the detectors known here.
std::vector<std::string> known_detectors();

/// Greenwich mean sidereal time in radians, [0, 2π), from a GPS time in seconds: UTC = GPS − 18 s
/// (the leap seconds since 2017: valid from 2017-01-01), UT1 ≈ UTC, and the IAU 1982 polynomial in
/// degrees (spec §9; within 1e−4 rad of LAL's after 2017).
double gmst_from_gps(double gps_s);

struct AntennaPattern {
  double plus = 0;
  double cross = 0;
};

/// F+, F× of `det` for a source at `where` with polarisation angle `psi` (rad) at sidereal time
/// `gmst` (rad), LAL's convention.
AntennaPattern antenna_pattern(const Detector& det, const SkyDirection& where, double psi, double gmst);

/// t_det − t_geocentre, s, for a wave from `where` at sidereal time `gmst`: −(r_det · n̂) / c.
double delay_from_geocentre(const Detector& det, const SkyDirection& where, double gmst);

}  // namespace astrosweep::spiir
