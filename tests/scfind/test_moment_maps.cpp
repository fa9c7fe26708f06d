// SoFiA-2's moment maps and 2-D mask (moment_maps.hpp) on hand-made cubes against a plain
// double-precision computation of the same definitions (the CLI tests compare whole maps with
// SoFiA-2's files to the bit).

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "cube_header.hpp"
#include "moment_maps.hpp"

namespace astrosweep::scfind {
namespace {

std::vector<std::string> freq_cards() {
  return {"BUNIT   = 'JY/BEAM '",           "CTYPE1  = 'RA---SIN'",           "CRVAL1  =                 180.",
          "CDELT1  = -0.00166666666666667", "CRPIX1  =                   3.", "CTYPE2  = 'DEC--SIN'",
          "CRVAL2  =                 -30.", "CDELT2  =  0.00166666666666667", "CRPIX2  =                   2.",
          "CTYPE3  = 'FREQ    '",           "CRVAL3  =          1400000000.", "CDELT3  =               -20000.",
          "CRPIX3  =                   1."};
}

struct Cube {
  CubeShape shape{5, 4, 9};
  std::vector<float> data;
  std::vector<std::int32_t> labels;
};

Cube random_cube() {
  Cube c;
  std::mt19937 rng(7);
  std::normal_distribution<float> flux(0.5F, 1.0F);
  std::uniform_int_distribution<int> id(0, 3);
  for (std::size_t i = 0; i < c.shape.voxels(); ++i) {
    c.data.push_back(flux(rng));
    c.labels.push_back(id(rng) == 0 ? 0 : id(rng));
  }
  return c;
}

// The definitions in double: moment 0 over all source voxels, 1 and 2 over the positive ones.
void expect_moments(const Cube& c, const MomentMaps& m, double cdelt, double first, bool world) {
  const std::size_t plane = c.shape.plane();
  for (std::size_t i = 0; i < plane; ++i) {
    double sum = 0, positive = 0, weighted = 0;
    int channels = 0;
    for (std::size_t z = 0; z < c.shape.nz; ++z) {
      if (c.labels[z * plane + i] == 0) continue;
      const double f = c.data[z * plane + i];
      const double v = world ? first + cdelt * static_cast<double>(z) : static_cast<double>(z);
      sum += f;
      ++channels;
      if (f > 0) {
        positive += f;
        weighted += f * v;
      }
    }
    const double scale = world ? std::fabs(cdelt) : 1.0;
    EXPECT_NEAR(m.mom0.real[i], sum * scale, 1e-5 * (std::fabs(sum) + 1) * scale) << i;
    EXPECT_EQ(m.chan.integer[i], channels) << i;
    if (positive <= 0) {
      EXPECT_TRUE(std::isnan(m.mom1.real[i])) << i;
      EXPECT_TRUE(std::isnan(m.mom2.real[i])) << i;
      continue;
    }
    const double mean = weighted / positive;
    double spread = 0;
    for (std::size_t z = 0; z < c.shape.nz; ++z) {
      const double f = c.data[z * plane + i];
      if (c.labels[z * plane + i] == 0 || f <= 0) continue;
      const double v = world ? first + cdelt * static_cast<double>(z) : static_cast<double>(z);
      spread += f * (v - mean) * (v - mean);
    }
    EXPECT_NEAR(m.mom1.real[i], mean, 1e-6 * std::fabs(mean) + 1e-6) << i;
    if (spread > 0) {
      const double width = std::sqrt(spread / positive);
      EXPECT_NEAR(m.mom2.real[i], width, world ? 5.0 : 1e-4 * width + 1e-5) << i;  // 1e9 Hz: float's resolution
    }
  }
}

TEST(MomentMaps, ChannelsWithoutWcs) {
  const Cube c = random_cube();
  const MomentMaps m = make_moment_maps(c.shape, c.labels, c.data, CubeHeader({}, {5, 4, 9}), false);
  EXPECT_FALSE(m.world);
  expect_moments(c, m, 1, 0, false);
  for (const auto& k : m.mom1.keywords)
    if (k.name == "BUNIT") {
      EXPECT_EQ(k.text_value, " ");
    }
}

TEST(MomentMaps, FrequencyAxisThroughWcs) {
  const Cube c = random_cube();
  const MomentMaps m = make_moment_maps(c.shape, c.labels, c.data, CubeHeader(freq_cards(), {5, 4, 9}), true);
  ASSERT_TRUE(m.world);
  EXPECT_EQ(m.spectral_unit, "Hz");
  EXPECT_EQ(m.flux_unit, "Jy/beam*Hz");  // JY/BEAM read as Jy/beam
  expect_moments(c, m, -20000.0, 1.4e9, true);
  int crpix1 = 0;
  for (const auto& k : m.mom0.keywords)
    if (k.name == "CRPIX1") crpix1 = static_cast<int>(k.number_value);
  EXPECT_EQ(crpix1, 3);  // the cube's, over the blank image's 1
}

TEST(MomentMaps, SingleChannelHasOnlyMomentZero) {
  Cube c;
  c.shape = {3, 2, 1};
  c.data = {1, -2, 3, 4, 5, 6};
  c.labels = {1, 1, 0, 2, 0, 2};
  const MomentMaps m = make_moment_maps(c.shape, c.labels, c.data, CubeHeader({}, {3, 2, 1}), true);
  EXPECT_FALSE(m.three_d);
  EXPECT_EQ(m.mom0.real, (std::vector<float>{1, -2, 0, 4, 0, 6}));
  EXPECT_TRUE(m.mom1.real.empty());
  EXPECT_TRUE(m.chan.integer.empty());
}

TEST(MaskTwoD, HighestChannelWins) {
  // Line of sight 0: source 2 at z = 0, source 5 at z = 2 (5 wins); 1: none; 2: source 7 alone.
  const CubeShape shape{3, 1, 3};
  const std::vector<std::int32_t> labels{2, 0, 0, /*z1*/ 0, 0, 7, /*z2*/ 5, 0, 0};
  const ImageMap map = make_mask_2d(shape, labels, CubeHeader({}, {3, 1, 3}));
  EXPECT_EQ(map.integer, (std::vector<std::int32_t>{5, 0, 7}));
}

}  // namespace
}  // namespace astrosweep::scfind
