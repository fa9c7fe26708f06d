// The coherent stage's geometry (spec §9, §12 "HEALPix pixel centres" exact and tolerance 5):
// NESTED pixel centres against healpy, GMST, F+ / F× and arrival-time delays against LAL (values
// made by tools/spiir_lal_reference.py and committed under data/, so CI needs neither).
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <numbers>
#include <sstream>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "detector_geometry.hpp"
#include "sky_grid.hpp"

namespace astrosweep::spiir {
namespace {

std::vector<std::vector<double>> read_rows(const std::string& name) {
  std::ifstream in(std::string(SPIIR_TEST_DATA) + "/" + name);
  EXPECT_TRUE(in) << "missing " << SPIIR_TEST_DATA << "/" << name;
  std::vector<std::vector<double>> rows;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream f(line);
    std::vector<double> row;
    for (double v; f >> v;) row.push_back(v);
    rows.push_back(row);
  }
  return rows;
}

double wrap_angle(double a) { return std::remainder(a, 2 * std::numbers::pi); }

// healpy 1.20's pix2ang(nest=True) on 2438 pixels of orders 0, 1, 2, 4, 5, 7: the same centres to
// rounding (θ by acos of the same z; φ the same product).
TEST(SkyGrid, NestedCentresMatchHealpy) {
  const auto rows = read_rows("healpy_nest.txt");
  ASSERT_EQ(rows.size(), 2438u);
  for (const auto& r : rows) {
    double theta = 0, phi = 0;
    healpix_nest_centre(static_cast<int>(r[0]), static_cast<std::int64_t>(r[1]), theta, phi);
    EXPECT_NEAR(theta, r[2], 1e-13) << "order " << r[0] << " pixel " << r[1];
    EXPECT_NEAR(phi, r[3], 1e-13) << "order " << r[0] << " pixel " << r[1];
  }
}

// Equal areas: the centres' mean direction vanishes and the count is 12 · 4^order.
TEST(SkyGrid, CountsAndBalance) {
  EXPECT_EQ(sky_pixel_count(4), 3072);
  EXPECT_EQ(sky_pixel_count(5), 12288);
  EXPECT_THROW(sky_pixel_count(-1), UsageError);
  EXPECT_THROW(sky_pixel_count(max_sky_order + 1), UsageError);
  const auto grid = sky_grid(3);
  ASSERT_EQ(grid.size(), 768u);
  double x = 0, y = 0, z = 0;
  for (const auto& p : grid) {
    x += std::cos(p.dec) * std::cos(p.ra);
    y += std::cos(p.dec) * std::sin(p.ra);
    z += std::sin(p.dec);
  }
  EXPECT_NEAR(x, 0, 1e-9);
  EXPECT_NEAR(y, 0, 1e-9);
  EXPECT_NEAR(z, 0, 1e-9);
  EXPECT_NEAR(angular_distance({0, 0}, {std::numbers::pi / 2, 0}), std::numbers::pi / 2, 1e-15);
  EXPECT_NEAR(angular_distance({1, 0.3}, {1, 0.3 + 1e-7}), 1e-7, 1e-15);
}

// 40 GPS times in 2017-2027: our GMST within the spec's 1e−4 rad of LAL's.
TEST(DetectorGeometry, SiderealTimeMatchesLal) {
  const auto rows = read_rows("lal_sky.txt");
  ASSERT_EQ(rows.size(), 40u);
  double worst = 0;
  for (const auto& r : rows) worst = std::max(worst, std::abs(wrap_angle(gmst_from_gps(r[0]) - r[4])));
  EXPECT_LT(worst, 1e-4);
  std::cout << "GMST: largest |ours - LAL| " << worst << " rad over 40 times\n";
}

// F+, F× of H1, L1, V1 at LAL's GMST: within the spec's 1e−4 (LAL keeps the response tensor in
// float, ~1e−7); each checked on its own, so swapping F+ and F× or a sign fails here.
TEST(DetectorGeometry, AntennaPatternsMatchLal) {
  const auto rows = read_rows("lal_sky.txt");
  const char* names[] = {"H1", "L1", "V1"};
  double worst = 0;
  for (const auto& r : rows)
    for (int d = 0; d < 3; ++d) {
      const auto f = antenna_pattern(detector(names[d]), {r[1], r[2]}, r[3], r[4]);
      worst = std::max({worst, std::abs(f.plus - r[5 + 3 * d]), std::abs(f.cross - r[6 + 3 * d])});
      EXPECT_NEAR(f.plus, r[5 + 3 * d], 1e-4) << names[d];
      EXPECT_NEAR(f.cross, r[6 + 3 * d], 1e-4) << names[d];
    }
  std::cout << "F+, Fx: largest |ours - LAL| " << worst << "\n";
}

// t_det − t_geocentre with our own GMST (so its simplification is included): within 1 µs of LAL.
TEST(DetectorGeometry, DelaysMatchLal) {
  const auto rows = read_rows("lal_sky.txt");
  const char* names[] = {"H1", "L1", "V1"};
  double worst = 0;
  for (const auto& r : rows)
    for (int d = 0; d < 3; ++d) {
      const double t = delay_from_geocentre(detector(names[d]), {r[1], r[2]}, gmst_from_gps(r[0]));
      worst = std::max(worst, std::abs(t - r[7 + 3 * d]));
      EXPECT_NEAR(t, r[7 + 3 * d], 1e-6) << names[d];
    }
  std::cout << "delays: largest |ours - LAL| " << worst * 1e9 << " ns\n";
}

// The spec's light travel times (H1–L1 10.0 ms, H1–V1 27.3 ms, L1–V1 26.4 ms): the largest delay
// difference over the sky.
TEST(DetectorGeometry, LightTravelTimes) {
  auto baseline = [](const char* a, const char* b) {
    double s = 0;
    for (int i = 0; i < 3; ++i) s += std::pow(detector(a).vertex[i] - detector(b).vertex[i], 2);
    return std::sqrt(s) / speed_of_light;
  };
  EXPECT_NEAR(baseline("H1", "L1"), 10.0e-3, 0.05e-3);
  EXPECT_NEAR(baseline("H1", "V1"), 27.3e-3, 0.05e-3);
  EXPECT_NEAR(baseline("L1", "V1"), 26.4e-3, 0.05e-3);
  EXPECT_THROW(detector("K1"), UsageError);
  // The response tensor is symmetric and traceless.
  const auto& d = detector("V1").response;
  EXPECT_NEAR(d[0][0] + d[1][1] + d[2][2], 0, 1e-11);
  EXPECT_DOUBLE_EQ(d[0][1], d[1][0]);
}

}  // namespace
}  // namespace astrosweep::spiir
