// The vectorised CPU kernel against the plain double-precision reference, for both models, every
// normalisation, both precisions, and sizes around the vector, tile and panel sizes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "lomb_scargle.hpp"
#include "prepared_series.hpp"

namespace astrosweep::period {
namespace {

struct Synthetic {
  std::vector<double> t, y, dy;
};

// Uneven MJD-scale sampling of a noisy sinusoid: the case where FP32 without time shifts fails.
Synthetic synthetic(std::size_t n, std::uint64_t seed, double t0 = 52000.0) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0, 1);
  std::normal_distribution<double> g(0, 1);
  Synthetic s;
  for (std::size_t j = 0; j < n; ++j) {
    const double t = t0 + 3000 * u(rng);
    s.t.push_back(t);
    s.dy.push_back(0.05 + 0.2 * u(rng));
    s.y.push_back(17 + 0.4 * std::sin(2 * M_PI * t / 0.3712) + s.dy.back() * g(rng));
  }
  return s;
}

template <class T>
double max_abs_error(const PreparedSeries& s, const FrequencyGrid& grid, Model model, Normalization norm,
                     std::uint64_t k0, std::size_t count, double* scale) {
  std::vector<double> ref(count);
  lomb_scargle_reference(s, grid, model, norm, k0, ref);
  std::vector<T> out(count);
  const CpuSeries<T> kernel(s, grid);
  lomb_scargle_cpu<T>(kernel, grid, model, norm, k0, out);
  double err = 0;
  *scale = 0;
  for (std::size_t i = 0; i < count; ++i) {
    err = std::max(err, std::abs(static_cast<double>(out[i]) - ref[i]));
    *scale = std::max(*scale, std::abs(ref[i]));
  }
  return err;
}

const FrequencyGrid grid{0.5, 23.5 / 1e5, 100000};

class KernelSizes : public ::testing::TestWithParam<std::size_t> {};

TEST_P(KernelSizes, Fp64MatchesReferenceTo1e9RelativeOfPeak) {
  const auto data = synthetic(GetParam(), GetParam());
  for (Model model : {Model::standard, Model::generalized}) {
    const auto s = prepare_series(data.t, data.y, data.dy, model);
    ASSERT_TRUE(s.computable());
    double scale = 0;
    // Start off a panel boundary and span several panels.
    const double err = max_abs_error<double>(s, grid, model, Normalization::standard, 1234, 2100, &scale);
    EXPECT_LE(err, 1e-9 * scale) << "n=" << GetParam() << " model=" << to_string(model);
  }
}

TEST_P(KernelSizes, Fp32MatchesReference) {
  // With a handful of points the floating-mean fit is nearly degenerate at many frequencies and
  // FP32 rounding of the moments shows; from 16 points on it stays below 1e-4 of the peak.
  const double tolerance = GetParam() < 16 ? 5e-3 : 1e-4;
  const auto data = synthetic(GetParam(), 100 + GetParam());
  for (Model model : {Model::standard, Model::generalized}) {
    const auto s = prepare_series(data.t, data.y, data.dy, model);
    double scale = 0;
    const double err = max_abs_error<float>(s, grid, model, Normalization::standard, 777, 2100, &scale);
    EXPECT_LE(err, tolerance * scale) << "n=" << GetParam() << " model=" << to_string(model);
  }
}

// 4 (just above the minimum), warp/vector/tile edges (31..33, 127..129), several tiles.
INSTANTIATE_TEST_SUITE_P(AroundVectorAndTileSizes, KernelSizes,
                         ::testing::Values(4, 5, 15, 16, 17, 31, 32, 33, 127, 128, 129, 257, 1000));

TEST(LombScargleCpu, EveryNormalisationMatchesReference) {
  const auto data = synthetic(300, 7);
  for (Model model : {Model::standard, Model::generalized})
    for (Normalization norm : {Normalization::standard, Normalization::model, Normalization::log, Normalization::psd}) {
      const auto s = prepare_series(data.t, data.y, data.dy, model);
      double scale = 0;
      const double err = max_abs_error<double>(s, grid, model, norm, 0, 1500, &scale);
      EXPECT_LE(err, 1e-9 * scale) << to_string(model) << " " << to_string(norm);
    }
}

TEST(LombScargleCpu, ValueDependsOnlyOnGridIndex) {
  // The same frequency evaluated within different ranges gives identical bytes: chunking,
  // batching and threading cannot change a product.
  const auto data = synthetic(200, 3);
  const auto s = prepare_series(data.t, data.y, data.dy, Model::generalized);
  const CpuSeries<double> kernel(s, grid);
  std::vector<double> wide(3000), one(1), mid(17);
  lomb_scargle_cpu<double>(kernel, grid, Model::generalized, Normalization::standard, 1000, wide);
  for (std::uint64_t k : {1000u, 1511u, 1512u, 1535u, 2047u, 3999u}) {
    lomb_scargle_cpu<double>(kernel, grid, Model::generalized, Normalization::standard, k, one);
    EXPECT_EQ(one[0], wide[k - 1000]) << "k=" << k;
  }
  lomb_scargle_cpu<double>(kernel, grid, Model::generalized, Normalization::standard, 2040, mid);
  for (std::size_t i = 0; i < mid.size(); ++i) EXPECT_EQ(mid[i], wide[1040 + i]);
}

TEST(LombScargleCpu, Fp32KeepsPrecisionAtJulianDateTimes) {
  // JD-scale times (2.46e6 d): unshifted FP32 would lose the phase entirely.
  const auto data = synthetic(500, 11, 2458600.0);
  const auto s = prepare_series(data.t, data.y, data.dy, Model::generalized);
  double scale = 0;
  const double err = max_abs_error<float>(s, grid, Model::generalized, Normalization::standard, 50000, 1000, &scale);
  EXPECT_LE(err, 1e-4 * scale);
}

TEST(LombScargleReference, PureSinusoidHasUnitPowerAtItsFrequency) {
  std::vector<double> t, y, dy;
  for (int j = 0; j < 200; ++j) {
    t.push_back(j * 0.37 + 0.1 * std::sin(j));
    y.push_back(2.0 + std::cos(2 * M_PI * 1.25 * t.back() + 0.3));
    dy.push_back(1.0);
  }
  const auto s = prepare_series(t, y, dy, Model::generalized);
  const FrequencyGrid g{1.25, 0.001, 1};
  std::vector<double> p(1);
  lomb_scargle_reference(s, g, Model::generalized, Normalization::standard, 0, p);
  EXPECT_NEAR(p[0], 1.0, 1e-12);
}

}  // namespace
}  // namespace astrosweep::period
