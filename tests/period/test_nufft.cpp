// The type-1 NUFFT against the direct sum in both precisions, for mode counts around FFT-size
// boundaries, one mode, one point, centred and non-centred mode ranges, both signs and both
// oversampling factors. The tolerance means what FINUFFT's does, the relative l2 error
// ||f - f_exact|| / ||f_exact|| over the modes; the largest error of one mode, relative to
// sum |c_j| (what bounds a Lomb-Scargle sum's error), stays within 3 tolerances.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <numbers>
#include <random>

#include "core/error.hpp"
#include "nufft.hpp"

namespace astrosweep::period {
namespace {

struct Problem {
  std::vector<double> x;
  std::vector<std::complex<double>> c;
  double l1 = 0;
};

Problem random_problem(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-std::numbers::pi, std::numbers::pi);
  std::normal_distribution<double> g(0, 1);
  Problem p;
  for (std::size_t j = 0; j < n; ++j) {
    p.x.push_back(u(rng));
    p.c.emplace_back(g(rng), g(rng));
    p.l1 += std::abs(p.c.back());
  }
  return p;
}

struct Errors {
  double l2 = 0;   // ||f - f_exact|| / ||f_exact||
  double max = 0;  // max_k |f_k - f_exact,k| / sum |c_j|
};

template <class T>
Errors errors(const Problem& p, const NufftShape& shape, std::int64_t k_first) {
  std::vector<std::complex<T>> c(p.c.size());
  for (std::size_t j = 0; j < c.size(); ++j) c[j] = std::complex<T>(p.c[j]);
  std::vector<std::complex<T>> out(shape.modes);
  Nufft1<T> nufft(shape);
  nufft.execute(p.x, c, k_first, out);
  const auto ref = nudft1_reference(p.x, p.c, k_first, shape.modes, shape.sign);
  Errors e;
  double norm = 0;
  for (std::size_t k = 0; k < out.size(); ++k) {
    const double d = std::abs(std::complex<double>(out[k]) - ref[k]);
    e.max = std::max(e.max, d);
    e.l2 += d * d;
    norm += std::norm(ref[k]);
  }
  e.l2 = std::sqrt(e.l2 / norm);
  e.max /= p.l1;
  return e;
}

// Both measures against a tolerance.
template <class T>
::testing::AssertionResult within(const Problem& p, const NufftShape& shape, std::int64_t k_first, double tol) {
  const Errors e = errors<T>(p, shape, k_first);
  if (e.l2 <= tol && e.max <= 3 * tol) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "l2 error " << e.l2 << ", max error / sum|c| " << e.max << " for tolerance "
                                       << tol << " (N=" << shape.modes << ", w=" << shape.width << ")";
}

// Mode counts: one mode, two, around powers of two and around the products of 2, 3, 5 that the
// fine grid takes (2 N = 1000, 1024, 1536 ...).
class NufftModes : public ::testing::TestWithParam<std::uint64_t> {};

TEST_P(NufftModes, Fp64MeetsEachToleranceForModesFromZero) {
  const auto p = random_problem(300, GetParam());
  for (double tol : {1e-3, 1e-6, 1e-9, 1e-12}) {
    const auto shape = nufft_shape(GetParam(), tol);
    EXPECT_TRUE(within<double>(p, shape, 0, tol));
  }
}

TEST_P(NufftModes, Fp64CentredModesAndNegativeSign) {
  const auto p = random_problem(200, 1000 + GetParam());
  const auto n = static_cast<std::int64_t>(GetParam());
  const auto shape = nufft_shape(GetParam(), 1e-11, 2.0, -1);
  EXPECT_TRUE(within<double>(p, shape, -n / 2, 1e-11));
}

TEST_P(NufftModes, Fp32MeetsTolerancesDownTo1e5) {
  const auto p = random_problem(300, 7 + GetParam());
  for (double tol : {1e-3, 1e-5}) {
    const auto shape = nufft_shape(GetParam(), tol);
    EXPECT_TRUE(within<float>(p, shape, 0, tol));
  }
}

TEST_P(NufftModes, LowerOversamplingMeetsItsTolerance) {
  const auto p = random_problem(200, 99 + GetParam());
  for (double tol : {1e-4, 1e-9}) {
    const auto shape = nufft_shape(GetParam(), tol, 1.25);
    EXPECT_TRUE(within<double>(p, shape, 0, tol));
  }
}

INSTANTIATE_TEST_SUITE_P(AroundFftSizes, NufftModes,
                         ::testing::Values(1, 2, 3, 15, 16, 17, 499, 500, 501, 511, 512, 513, 767, 768, 769, 1023, 1024,
                                           1025));

TEST(Nufft, OnePointIsAPlaneWave) {
  Problem p;
  p.x = {1.2345};
  p.c = {{0.3, -0.7}};
  p.l1 = std::abs(p.c[0]);
  for (std::uint64_t n : {1u, 2u, 100u, 4097u}) {
    const auto shape = nufft_shape(n, 1e-12);
    EXPECT_TRUE(within<double>(p, shape, 0, 1e-12));
    // Far from the centre the phase factor exp(i s x) carries the rounding of s x (s ~ 1e4).
    EXPECT_TRUE(within<double>(p, shape, 12345, 1e-10));
  }
}

TEST(Nufft, PointsAtTheEndsOfThePeriodAndBeyond) {
  // -pi, just below pi, and points a period or more away (taken modulo 2 pi).
  Problem p;
  p.x = {-std::numbers::pi, std::nextafter(std::numbers::pi, 0.0), 3 * std::numbers::pi - 0.1, -7.0, 0.0};
  for (std::size_t j = 0; j < p.x.size(); ++j) {
    p.c.emplace_back(1.0 + j, 0.5 - j);
    p.l1 += std::abs(p.c.back());
  }
  const auto shape = nufft_shape(64, 1e-10);
  EXPECT_TRUE(within<double>(p, shape, 0, 1e-10));
}

TEST(Nufft, SharedPointsGiveEachVectorItsOwnTransform) {
  const auto p = random_problem(100, 5);
  std::vector<std::complex<double>> c2(p.c.size());
  for (std::size_t j = 0; j < c2.size(); ++j) c2[j] = std::conj(p.c[j]) * 2.0;
  const auto shape = nufft_shape(257, 1e-12);
  Nufft1<double> nufft(shape);
  std::vector<std::complex<double>> a(257), b(257), alone(257);
  const std::span<const std::complex<double>> in[2] = {p.c, c2};
  const std::span<std::complex<double>> out[2] = {a, b};
  nufft.execute(p.x, in, 3, out);
  nufft.execute(p.x, std::span<const std::complex<double>>(c2), 3, alone);
  EXPECT_EQ(b, alone);  // the same arithmetic, so the same bits
  const auto ref = nudft1_reference(p.x, p.c, 3, 257);
  for (std::size_t k = 0; k < a.size(); ++k) EXPECT_LE(std::abs(a[k] - ref[k]), 3e-12 * p.l1);
}

TEST(Nufft, ReusedTransformGivesIdenticalBits) {
  const auto p = random_problem(50, 6);
  const auto shape = nufft_shape(1000, 1e-9);
  Nufft1<double> nufft(shape);
  std::vector<std::complex<double>> first(1000), again(1000);
  nufft.execute(p.x, p.c, 0, first);
  nufft.execute(p.x, p.c, 0, again);
  EXPECT_EQ(first, again);
}

TEST(Nufft, SpreadingOnSeveralThreadsGivesTheBitsOfOne) {
  // Blocks of the grid per thread, points near the blocks' edges and the period's ends, two
  // vectors, a mode range off centre; 1 to 4 threads. (Not more: LLVM 14's libomp, in the
  // sanitizer build, leaks its team arrays when a team grows past 4 threads after one of 2.)
  auto p = random_problem(2000, 8);
  p.x[0] = -std::numbers::pi;
  p.x[1] = std::nextafter(std::numbers::pi, 0.0);
  std::vector<std::complex<double>> c2(p.c.size());
  for (std::size_t j = 0; j < c2.size(); ++j) c2[j] = p.c[j] * std::complex<double>(0.5, -2.0);
  const auto shape = nufft_shape(3001, 1e-12);
  Nufft1<double> nufft(shape);
  std::vector<std::complex<double>> a1(3001), b1(3001), a(3001), b(3001);
  const std::span<const std::complex<double>> in[2] = {p.c, c2};
  const std::span<std::complex<double>> one[2] = {a1, b1};
  const std::span<std::complex<double>> many[2] = {a, b};
  nufft.execute(p.x, in, 7, one, 1);
  for (int threads : {2, 3, 4}) {
    nufft.execute(p.x, in, 7, many, threads);
    EXPECT_EQ(a, a1) << threads << " threads";
    EXPECT_EQ(b, b1) << threads << " threads";
  }
  Nufft1<float> nufft32(shape);
  std::vector<std::complex<float>> c32(p.c.begin(), p.c.end()), f1(3001), f3(3001);
  nufft32.execute(p.x, c32, -1500, f1, 1);
  nufft32.execute(p.x, c32, -1500, f3, 3);
  EXPECT_EQ(f1, f3);
}

TEST(Nufft, ShapeFollowsThePublishedRules) {
  const auto s = nufft_shape(1000, 1e-12);
  EXPECT_EQ(s.width, 14);  // ceil(log10(1e12)) + 1, and the one cell of margin
  EXPECT_DOUBLE_EQ(s.beta, 2.30 * 14);
  EXPECT_EQ(s.grid, 2000u);
  EXPECT_EQ(nufft_shape(1000, 1e-6).width, 8);
  EXPECT_EQ(nufft_shape(1000, 1e-6, 1.25).width, 11);          // ceil(13.8 / (pi sqrt(0.2))) + 1
  EXPECT_EQ(nufft_shape(1000, 1e-30).width, nufft_max_width);  // clamped
  EXPECT_EQ(nufft_shape(1, 1e-3).grid, 32u);                   // never below 32 cells
  EXPECT_EQ(smooth_fft_length(1025), 1080u);                   // 2^3 3^3 5
  EXPECT_EQ(smooth_fft_length(2048), 2048u);
  EXPECT_THROW(nufft_shape(0, 1e-6), UsageError);
  EXPECT_THROW(nufft_shape(10, 0.0), UsageError);
  EXPECT_THROW(nufft_shape(10, 1e-6, 1.5), UsageError);
}

TEST(Nufft, KernelTransformConvergedInItsQuadrature) {
  // The deconvolution's quadrature against a much finer trapezoid rule of the same integral.
  const auto s = nufft_shape(100, 1e-12);
  const auto hat = nufft_kernel_transform(s, -50, 100);
  const double alpha = s.width * std::numbers::pi / static_cast<double>(s.grid);
  for (int m : {-50, -17, 0, 1, 49}) {
    const int n = 200000;
    double sum = 0;
    for (int i = 0; i <= n; ++i) {
      const double z = -1 + 2.0 * i / n;
      const double f = std::exp(s.beta * (std::sqrt(std::max(0.0, 1 - z * z)) - 1)) * std::cos(m * alpha * z);
      sum += (i == 0 || i == n) ? 0.5 * f : f;
    }
    const double trapezoid = alpha * sum * 2.0 / n;
    EXPECT_NEAR(hat[static_cast<std::size_t>(m + 50)], trapezoid, 1e-12 * std::abs(trapezoid)) << "m=" << m;
  }
}

}  // namespace
}  // namespace astrosweep::period
