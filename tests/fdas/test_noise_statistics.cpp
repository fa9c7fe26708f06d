// Noise through the search (spec §13 item 1, at z_max = 0 so that it runs in seconds): white
// Gaussian noise of known variance, N = 2^20. Whole-bin cells of the plane are exponential with
// mean 1; half-bin cells keep Σ over ±16 bins of |R|² = 0.987 of it (the sinc's tail beyond 16
// bins holds 1.3 % of the energy; a signal, correlated coherently, loses twice that in power);
// each harmonic-summing stage has mean ≈ H and variance ≈ H (χ²₂H / 2).
#include <fftw3.h>
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <random>
#include <vector>

#include "correlation.hpp"
#include "harmonic_tables.hpp"
#include "spectrum.hpp"
#include "template_bank.hpp"

namespace astrosweep::fdas {
namespace {

TEST(NoiseStatistics, PlaneCellsAndStagesHaveTheirChiSquaredMoments) {
  constexpr std::size_t n = 1 << 20;
  std::mt19937_64 rng(13);
  std::normal_distribution<double> g(0.0, 2.0);
  std::vector<float> x(n);
  for (auto& v : x) v = static_cast<float>(g(rng));
  auto spectrum = raw_spectrum(x, n);
  normalise_known_variance(spectrum, n, 4.0);
  const TemplateBank bank = make_template_bank(0, 2, Accuracy::low);
  const std::size_t r_lo = 100, r_hi = spectrum.size() - 100;
  const PowerPlane plane = correlate(spectrum, transform_kernels<float>(bank.taps, bank.layout.fft_length), bank.layout,
                                     r_lo, r_hi, {false, 2});
  double s[2] = {0, 0}, s2[2] = {0, 0}, count[2] = {0, 0};
  for (std::size_t i = 0; i < plane.n_r; ++i) {
    const double p = static_cast<double>(plane.at(0, i));
    s[i % 2] += p;
    s2[i % 2] += p * p;
    count[i % 2] += 1;
  }
  const double whole_mean = s[0] / count[0], whole_var = s2[0] / count[0] - whole_mean * whole_mean;
  const double half_mean = s[1] / count[1];
  EXPECT_NEAR(whole_mean, 1.0, 0.01);
  EXPECT_NEAR(whole_var, 1.0, 0.03);
  EXPECT_NEAR(half_mean, 0.987, 0.005);

  // The stages: the summed plane's columns over the upper half of the band.
  const PowerPlaneView view{plane.power.data(), 0, static_cast<std::int64_t>(2 * r_lo),
                            static_cast<std::int64_t>(plane.n_r)};
  const std::int64_t i_begin = static_cast<std::int64_t>(r_hi), i_end = static_cast<std::int64_t>(2 * r_hi);
  harmonic_sum_reference(view, i_begin, i_end, 8, [&](const HarmonicStage& stage, std::span<const float> summed) {
    double sum = 0, sum2 = 0;
    for (float v : summed) {
      sum += static_cast<double>(v);
      sum2 += static_cast<double>(v) * static_cast<double>(v);
    }
    const double m = sum / static_cast<double>(summed.size());
    const double var = sum2 / static_cast<double>(summed.size()) - m * m;
    const double H = stage.numharm;
    // Between all-half-bin (0.987 H) and all-whole-bin (H) reads.
    EXPECT_GT(m, 0.98 * H) << "stage " << stage.stage;
    EXPECT_LT(m, 1.01 * H) << "stage " << stage.stage;
    EXPECT_NEAR(var / H, 1.0, 0.08) << "stage " << stage.stage;
  });
}

TEST(NoiseStatistics, InterbinsOfNoiseHaveTheRulesMean) {
  // numbetween 1 at z = 0: A_k = F_k, so the whole bins are exponential with mean 1, and an
  // interbin (π²/16)·|F_k − F_{k+1}|² of two independent unit-mean amplitudes is exponential with
  // mean π²/8 = 1.234 (variance its square) where an exact half bin has 0.987: the rule's scale
  // is chosen for a tone half-way between bins, not for noise, so interbinned half bins see more
  // noise power (docs/fdas.md, "Interbinning"), and so do the stages that read them.
  constexpr std::size_t n = 1 << 20;
  std::mt19937_64 rng(13);
  std::normal_distribution<double> g(0.0, 2.0);
  std::vector<float> x(n);
  for (auto& v : x) v = static_cast<float>(g(rng));
  auto spectrum = raw_spectrum(x, n);
  normalise_known_variance(spectrum, n, 4.0);
  const TemplateBank bank = make_template_bank(0, 1, Accuracy::low);
  const std::size_t r_lo = 100, r_hi = spectrum.size() - 100;
  const PowerPlane plane = correlate(spectrum, transform_kernels<float>(bank.taps, bank.layout.fft_length), bank.layout,
                                     r_lo, r_hi, {false, 2});
  double s[2] = {0, 0}, s2[2] = {0, 0}, count[2] = {0, 0};
  for (std::size_t i = 0; i < plane.n_r; ++i) {
    const double p = static_cast<double>(plane.at(0, i));
    s[i % 2] += p;
    s2[i % 2] += p * p;
    count[i % 2] += 1;
  }
  const double pi2_8 = std::numbers::pi * std::numbers::pi / 8;
  const double whole_mean = s[0] / count[0], whole_var = s2[0] / count[0] - whole_mean * whole_mean;
  const double half_mean = s[1] / count[1], half_var = s2[1] / count[1] - half_mean * half_mean;
  EXPECT_NEAR(whole_mean, 1.0, 0.01);
  EXPECT_NEAR(whole_var, 1.0, 0.03);
  EXPECT_NEAR(half_mean, pi2_8, 0.012);
  EXPECT_NEAR(half_var / (pi2_8 * pi2_8), 1.0, 0.03);

  const PowerPlaneView view{plane.power.data(), 0, static_cast<std::int64_t>(2 * r_lo),
                            static_cast<std::int64_t>(plane.n_r)};
  const std::int64_t i_begin = static_cast<std::int64_t>(r_hi), i_end = static_cast<std::int64_t>(2 * r_hi);
  harmonic_sum_reference(view, i_begin, i_end, 8, [&](const HarmonicStage& stage, std::span<const float> summed) {
    double sum = 0;
    for (float v : summed) sum += static_cast<double>(v);
    const double m = sum / static_cast<double>(summed.size());
    const double H = stage.numharm;
    // Between all-whole-bin (H) and all-interbin (1.234 H) reads; the fundamental's column reads
    // both alike, so about half way.
    EXPECT_GT(m, 1.05 * H) << "stage " << stage.stage;
    EXPECT_LT(m, 1.18 * H) << "stage " << stage.stage;
  });
}

}  // namespace
}  // namespace astrosweep::fdas
