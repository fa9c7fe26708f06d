// The overlap-save correlation against the direct sum it computes, for arbitrary taps: every
// segment boundary, both interpolation factors (numbetween 1 interbinned), float and double
// transforms, any thread count.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>
#include <numbers>
#include <random>
#include <vector>

#include "core/error.hpp"
#include "correlation.hpp"

namespace astrosweep::fdas {
namespace {

using Taps = std::vector<std::vector<std::complex<double>>>;

struct Case {
  std::size_t L;
  std::size_t m;
  int b;
  std::size_t n_templates;
};

// Random taps g[j] for |j| <= b·m, laid out circularly (index j mod L).
Taps random_taps(const Case& c, std::mt19937_64& rng) {
  std::normal_distribution<double> g;
  Taps taps(c.n_templates, std::vector<std::complex<double>>(c.L));
  const auto reach = static_cast<std::ptrdiff_t>(static_cast<std::size_t>(c.b) * c.m);
  for (auto& t : taps)
    for (std::ptrdiff_t j = -reach; j <= reach; ++j)
      t[static_cast<std::size_t>((j + static_cast<std::ptrdiff_t>(c.L)) % static_cast<std::ptrdiff_t>(c.L))] = {g(rng),
                                                                                                                g(rng)};
  return taps;
}

std::vector<std::complex<float>> random_spectrum(std::size_t n, std::mt19937_64& rng) {
  std::normal_distribution<float> g;
  std::vector<std::complex<float>> f(n);
  for (auto& v : f) v = {g(rng), g(rng)};
  return f;
}

// A at output p (r = p/b) = Σ_k F_k g[p − b·k] over |p − b·k| <= b·m, F = 0 outside the spectrum.
std::complex<double> direct_amplitude(const std::vector<std::complex<float>>& f,
                                      const std::vector<std::complex<double>>& taps, const Case& c, std::ptrdiff_t p) {
  const auto L = static_cast<std::ptrdiff_t>(c.L);
  std::complex<double> a{};
  for (std::ptrdiff_t k = 0; k < static_cast<std::ptrdiff_t>(f.size()); ++k) {
    const std::ptrdiff_t j = p - c.b * k;
    if (j < -static_cast<std::ptrdiff_t>(c.b * c.m) || j > static_cast<std::ptrdiff_t>(c.b * c.m)) continue;
    a += std::complex<double>(f[static_cast<std::size_t>(k)]) * taps[static_cast<std::size_t>((j + L) % L)];
  }
  return a;
}

// The plane's column (half bins from r_lo): b = 2, |A|² at r_lo + column/2; b = 1, |A_k|² at even
// columns and the interbin (π²/16)·|A_k − A_{k+1}|² at odd ones, k = r_lo + column/2 (spec §5).
double direct_power(const std::vector<std::complex<float>>& f, const std::vector<std::complex<double>>& taps,
                    const Case& c, std::size_t column, std::size_t r_lo) {
  if (c.b == 2) return std::norm(direct_amplitude(f, taps, c, static_cast<std::ptrdiff_t>(2 * r_lo + column)));
  const auto k = static_cast<std::ptrdiff_t>(r_lo + column / 2);
  if (column % 2 == 0) return std::norm(direct_amplitude(f, taps, c, k));
  const double pi = std::numbers::pi;
  return pi * pi / 16 * std::norm(direct_amplitude(f, taps, c, k) - direct_amplitude(f, taps, c, k + 1));
}

class CorrelationTest : public ::testing::TestWithParam<Case> {};

TEST_P(CorrelationTest, MatchesTheDirectSumInBothPrecisions) {
  const Case c = GetParam();
  std::mt19937_64 rng(17);
  const Taps taps = random_taps(c, rng);
  const auto spectrum = random_spectrum(301, rng);
  const CorrelationLayout layout{c.L, c.m, c.b};
  const CorrelationOptions plain{false, 2};
  for (const auto& [r_lo, r_hi] : {std::pair<std::size_t, std::size_t>{0, 301}, {37, 151}, {290, 310}, {5, 6}}) {
    const PowerPlane p64 = correlate(spectrum, transform_kernels<double>(taps, c.L), layout, r_lo, r_hi, plain);
    const PowerPlane p32 = correlate(spectrum, transform_kernels<float>(taps, c.L), layout, r_lo, r_hi, plain);
    ASSERT_EQ(p64.n_r, (r_hi - r_lo) * 2);  // half bins, interbinned or not
    ASSERT_EQ(p64.n_z, c.n_templates);
    for (std::size_t t = 0; t < c.n_templates; ++t)
      for (std::size_t i = 0; i < p64.n_r; ++i) {
        const double expected = direct_power(spectrum, taps[t], c, i, r_lo);
        ASSERT_NEAR(p64.at(t, i), expected, 1e-5 * std::max(1.0, expected)) << "t " << t << " column " << i;
        ASSERT_NEAR(p32.at(t, i), expected, 2e-4 * std::max(1.0, expected)) << "t " << t << " column " << i;
      }
  }
}

INSTANTIATE_TEST_SUITE_P(Layouts, CorrelationTest,
                         ::testing::Values(Case{64, 5, 2, 3}, Case{64, 5, 1, 2}, Case{33, 4, 1, 1}, Case{48, 11, 2, 4},
                                           Case{10, 4, 1, 2}, Case{2048, 126, 2, 2}, Case{2048, 126, 1, 2}));

TEST(Correlation, ThreadCountDoesNotChangeTheBits) {
  const Case c{64, 6, 2, 3};
  std::mt19937_64 rng(3);
  const auto kernels = transform_kernels<float>(random_taps(c, rng), c.L);
  const auto spectrum = random_spectrum(1000, rng);
  const CorrelationLayout layout{c.L, c.m, c.b};
  const auto one = correlate(spectrum, kernels, layout, 10, 990, {true, 1});
  const auto three = correlate(spectrum, kernels, layout, 10, 990, {true, 3});
  EXPECT_EQ(one.power, three.power);
}

TEST(Correlation, BlockNormalisationMakesExponentialNoiseMeanOne) {
  // |F|² exponential with mean 7: the median / ln 2 estimates that mean.
  std::mt19937_64 rng(5);
  std::normal_distribution<float> g(0.0F, std::sqrt(3.5F));
  std::vector<std::complex<float>> bins(20001);
  for (auto& v : bins) v = {g(rng), g(rng)};
  const float factor = block_normalisation(bins);
  EXPECT_NEAR(static_cast<double>(factor) * static_cast<double>(factor) * 7.0, 1.0, 0.03);
  EXPECT_EQ(block_normalisation(std::vector<std::complex<float>>(8)), 1.0F);  // zeros stay zeros
  EXPECT_EQ(block_normalisation({}), 1.0F);
}

// The median as PRESTO's accelsearch takes it (its median() is GSL's gsl_stats_float_median since
// PRESTO 394bc81): the middle value, or for an even count half the float sum of the two middle
// ones. Sorting, not selection: the reference for block_median.
float gsl_median(std::vector<float> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return (v[(n - 1) / 2] + v[n / 2]) * 0.5F;
}

TEST(Correlation, BlockNormalisationTakesPrestosMedian) {
  // Powers 1, 4, 9, 16: median 6.5 (PRESTO's, GSL's: the lower middle value would be 4).
  const std::vector<std::complex<float>> bins{{1, 0}, {0, 2}, {3, 0}, {0, -4}};
  EXPECT_EQ(block_normalisation(bins), static_cast<float>(1 / std::sqrt(6.5 / std::numbers::ln2)));
}

TEST(Correlation, SegmentsReachingPastEitherEndCountTheZerosThereInTheirMedian) {
  // One template with the single tap g[0] = 1: the plane at integer r is |norm · F_r|², so each
  // segment's normalisation can be read back. L = 64, b = 2, m = 5: segments of 32 input bins that
  // keep 22 bins each. With r from 2 in a spectrum of 40 bins, the first segment reads bins −3 … 28
  // (3 zeros before bin 0) and the second bins 19 … 50 (11 zeros past the end). PRESTO's
  // accelsearch (get_fourier_amplitudes, subharm_fderivs_vol) takes its median over all 32,
  // zeros included; powers k + 1 make every middle pair differ by 1 (4 %), so the median's rule shows.
  const CorrelationLayout layout{64, 5, 2};
  const std::size_t K = 40, r_lo = 2, r_hi = K;
  std::vector<std::complex<float>> spectrum(K);
  for (std::size_t k = 0; k < K; ++k) spectrum[k] = {std::sqrt(static_cast<float>(k + 1)), 0.0F};
  std::vector<std::vector<std::complex<double>>> taps(1, std::vector<std::complex<double>>(layout.fft_length));
  taps[0][0] = 1.0;
  const std::size_t in_bins = 32, step = layout.step_bins();
  ASSERT_EQ(step, 22U);
  for (const bool in_double : {false, true}) {
    const PowerPlane plane = in_double ? correlate(spectrum, transform_kernels<double>(taps, 64), layout, r_lo, r_hi)
                                       : correlate(spectrum, transform_kernels<float>(taps, 64), layout, r_lo, r_hi);
    ASSERT_EQ(plane.n_r, 2 * (r_hi - r_lo));
    for (std::size_t s = 0; s < 2; ++s) {
      const auto k0 = static_cast<std::ptrdiff_t>(r_lo + s * step) - 5;
      std::vector<float> powers;
      for (std::ptrdiff_t k = k0; k < k0 + static_cast<std::ptrdiff_t>(in_bins); ++k)
        powers.push_back(k >= 0 && k < static_cast<std::ptrdiff_t>(K) ? std::norm(spectrum[static_cast<std::size_t>(k)])
                                                                      : 0.0F);
      const double norm = 1 / std::sqrt(static_cast<double>(gsl_median(powers)) / std::numbers::ln2);
      for (std::size_t r = r_lo + s * step; r < std::min(r_lo + (s + 1) * step, r_hi); ++r) {
        const double got = plane.at(0, 2 * (r - r_lo)) / std::norm(spectrum[r]);
        EXPECT_NEAR(got, norm * norm, 1e-5 * norm * norm) << "segment " << s << ", r " << r << ", double " << in_double;
      }
    }
  }
}

TEST(Correlation, SegmentsTooShortForTheTemplatesAreRefused) {
  const CorrelationLayout layout{64, 16, 2};  // 2·b·m = 64: nothing useful
  EXPECT_THROW(layout.check(), UsageError);
  EXPECT_EQ(layout.useful_outputs(), 0U);
  EXPECT_EQ((CorrelationLayout{2048, 126, 2}.useful_outputs()), 1544U);  // PRESTO's z_max = 200 case
  // numbetween 1 keeps one output fewer than the input allows (1024 − 2·68 = 888): the output after
  // the last kept one, the last interbin's neighbour, must not wrap around either.
  EXPECT_EQ((CorrelationLayout{1024, 68, 1}.useful_outputs()), 887U);
  EXPECT_EQ((CorrelationLayout{1024, 68, 1}.segment_columns()), 2 * 887U);
  EXPECT_EQ((CorrelationLayout{2048, 126, 2}.segment_columns()), 1544U);
  EXPECT_EQ((CorrelationLayout{10, 4, 1}.useful_outputs()), 1U);  // L = 2m + 2: the shortest
  EXPECT_THROW((CorrelationLayout{9, 4, 1}.check()), UsageError);
  EXPECT_THROW((CorrelationLayout{64, 5, 3}.check()), UsageError);
}

}  // namespace
}  // namespace astrosweep::fdas
