// Whitening by one PSD per stretch (stretch_whitening.hpp, spiir --psd-stretch-seconds): the
// stretches' layout; noise whose PSD rises ×4 halfway comes out white stretch by stretch (the
// whole-file test's 2 % on the variance) where one PSD for the whole file does not; in stationary
// noise the stretch edges leave no transient (the whole-file test's 10 % on the ends' variance).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <numbers>

#include "psd_welch.hpp"
#include "stretch_whitening.hpp"
#include "whitening.hpp"
#include "whitening_test_support.hpp"

namespace astrosweep::spiir {
namespace {

using namespace whitening_test;  // rate, f_low, coloured_noise, band_fraction, variance

TEST(SpiirStretchWhitening, StretchesTileTheSeriesTheLastTakingTheRemainder) {
  EXPECT_EQ(psd_stretch_starts(512 * 1024, 1024, 256), (std::vector<std::size_t>{0, 256 * 1024}));
  EXPECT_EQ(psd_stretch_starts(600 * 1024, 1024, 256), (std::vector<std::size_t>{0, 256 * 1024}));
  EXPECT_EQ(psd_stretch_starts(511 * 1024, 1024, 256), (std::vector<std::size_t>{0}));
  EXPECT_EQ(psd_stretch_starts(100, 1024, 256), (std::vector<std::size_t>{0}));
  EXPECT_EQ(psd_stretch_starts(24 * 2048, 2048, 8), (std::vector<std::size_t>{0, 8 * 2048, 16 * 2048}));
}

struct StretchRun {
  std::vector<double> white;
  std::vector<std::size_t> starts;
};

StretchRun whiten_stretches(const std::vector<double>& x, double stretch_seconds) {
  StretchRun run{{}, psd_stretch_starts(x.size(), rate, stretch_seconds)};
  std::vector<SampledPsd> psds;
  for (std::size_t k = 0; k < run.starts.size(); ++k) {
    const std::size_t end = k + 1 < run.starts.size() ? run.starts[k + 1] : x.size();
    auto estimate = welch_median_psd(std::span(x).subspan(run.starts[k], end - run.starts[k]), rate);
    EXPECT_TRUE(estimate);
    psds.push_back(std::move(*estimate));
  }
  run.white = whiten_by_stretch(x, rate, run.starts, psds, {f_low, 32, 0.5});
  return run;
}

std::span<const double> stretch(const StretchRun& run, std::size_t k) {
  const std::size_t end = k + 1 < run.starts.size() ? run.starts[k + 1] : run.white.size();
  return std::span(run.white).subspan(run.starts[k], end - run.starts[k]);
}

// 512 s whose PSD is colour² for the first half and 4·colour² for the second: two independent
// noises joined by a smooth (2-s raised-cosine) change of mixture, so the change adds no step of
// the strong low-frequency wander (a step would ring through the band whatever the PSDs).
std::vector<double> noise_rising_fourfold_halfway() {
  const std::size_t n = 512 * 1024, half = n / 2, ramp = 2 * 1024;
  const auto a = coloured_noise(n, 31);
  const auto b = coloured_noise(n, 32);
  std::vector<double> x(n);
  for (std::size_t i = 0; i < n; ++i) {
    double t = 0;  // 0 before the change, 1 after
    if (i + ramp / 2 >= half && i < half + ramp / 2)
      t = (static_cast<double>(i + ramp / 2 - half) + 0.5) / static_cast<double>(ramp);
    else if (i >= half)
      t = 1;
    const double theta = 0.5 * std::numbers::pi * t;
    x[i] = std::cos(theta) * a[i] + 2 * std::sin(theta) * b[i];
  }
  return x;
}

TEST(SpiirStretchWhitening, NoiseWhosePsdChangesIsWhiteStretchByStretch) {
  const auto x = noise_rising_fourfold_halfway();
  const StretchRun run = whiten_stretches(x, 256);
  ASSERT_EQ(run.starts.size(), 2U);
  for (std::size_t k = 0; k < 2; ++k) {
    const double v = variance(stretch(run, k)) / band_fraction();
    std::printf("stretch %zu: whitened variance %.4f of the band's fraction\n", k, v);
    EXPECT_NEAR(v, 1.0, 0.02) << "stretch " << k;
  }
  // One PSD for the whole file: the median of both halves' periodograms, too high for the first
  // half and too low for the second.
  const auto whole_psd = welch_median_psd(x, rate);
  ASSERT_TRUE(whole_psd);
  const auto whole = whiten(x, rate, *whole_psd, {f_low, 32, 0.5});
  const StretchRun as_one{whole, run.starts};
  for (std::size_t k = 0; k < 2; ++k) {
    const double v = variance(stretch(as_one, k)) / band_fraction();
    std::printf("whole-file PSD, stretch %zu: whitened variance %.4f of the band's fraction\n", k, v);
    EXPECT_GT(std::abs(v - 1), 0.02) << "stretch " << k;
  }
}

TEST(SpiirStretchWhitening, StretchEdgesLeaveNoTransientInStationaryNoise) {
  // 512 s in stretches of 128 s: three inner edges. Below the band a line 1e3 times the in-band
  // noise (seismic motion, as test_whitening.cpp's ends test): what gives a stretch whitened alone
  // a transient at its ends (about twice the variance over its first and last half second), which
  // the padding and the cross-fade must keep out of the output.
  auto x = coloured_noise(512 * 1024, 33);
  for (std::size_t i = 0; i < x.size(); ++i)
    x[i] += 1e-18 * std::sin(2 * std::numbers::pi * 3.1 * static_cast<double>(i) / rate + 1);
  const StretchRun run = whiten_stretches(x, 128);
  ASSERT_EQ(run.starts.size(), 4U);
  const auto one = static_cast<std::size_t>(rate);
  for (std::size_t k = 1; k < run.starts.size(); ++k) {
    const auto before = std::span(run.white).subspan(run.starts[k] - one, one);
    const auto after = std::span(run.white).subspan(run.starts[k], one);
    std::printf("edge %zu: variance %.3f before, %.3f after (of the band's fraction)\n", k,
                variance(before) / band_fraction(), variance(after) / band_fraction());
    EXPECT_NEAR(variance(before) / band_fraction(), 1.0, 0.2) << "before edge " << k;
    EXPECT_NEAR(variance(after) / band_fraction(), 1.0, 0.2) << "after edge " << k;
    double loudest = 0;
    for (std::size_t i = run.starts[k] - 2 * one; i < run.starts[k] + 2 * one; ++i)
      loudest = std::max(loudest, std::abs(run.white[i]));
    EXPECT_LT(loudest, 6 * std::sqrt(band_fraction())) << "edge " << k;
  }
  EXPECT_NEAR(variance(run.white) / band_fraction(), 1.0, 0.02);
}

TEST(SpiirStretchWhitening, GapsStayNaN) {
  auto x = coloured_noise(64 * 1024, 34);
  for (std::size_t i = 40 * 1024; i < 41 * 1024; ++i) x[i] = std::numeric_limits<double>::quiet_NaN();
  const StretchRun run = whiten_stretches(x, 16);
  std::size_t nan = 0;
  for (double v : run.white) nan += std::isnan(v) ? 1 : 0;
  EXPECT_EQ(nan, 1024U + 2 * 512U);  // the gap and its 0.5-s tapers, as whiten()
}

}  // namespace
}  // namespace astrosweep::spiir
