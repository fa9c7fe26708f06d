// numbetween 1 (spec §5): the plane's half bins approximated by interbinning,
// P(k + ½) ≈ (π²/16)·|A_k − A_{k+1}|², against what the rule predicts for a steady tone, against the
// exact half bins of numbetween 2, and across the correlation's segment edges.
//
// For a steady tone δ bins above bin k (z = 0) the templates' taps at whole bins are δ_{j0}, so
// A_k = F_k ∝ e^{iπδ} sinc(δ) whatever the kernel's truncation, and A_{k+1} ∝ −e^{iπδ} sinc(δ − 1):
// the interbin holds sin²(πδ) / (16 δ² (1 − δ)²) of the tone's power: 1 at δ = ½ (without
// interbinning, sinc²(½) = 0.405), 0.889 at δ = ¼ (the bin itself 0.811), and the better of the
// bin and the interbin at least 0.857 (at δ = 0.215).
#include <fftw3.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <numbers>
#include <random>
#include <vector>

#include "correlation.hpp"
#include "interbin.hpp"
#include "template_bank.hpp"

namespace astrosweep::fdas {
namespace {

constexpr double pi = std::numbers::pi;

// F_k = Σ x_n e^{−2πikn/N}, k < N/2, from FFTW's real transform in double.
std::vector<std::complex<float>> spectrum_of(const std::vector<double>& x) {
  const int n = static_cast<int>(x.size());
  std::vector<double> in(x);
  std::vector<std::complex<double>> out(x.size() / 2 + 1);
  fftw_plan plan = fftw_plan_dft_r2c_1d(n, in.data(), reinterpret_cast<fftw_complex*>(out.data()), FFTW_ESTIMATE);
  fftw_execute(plan);
  fftw_destroy_plan(plan);
  std::vector<std::complex<float>> f(x.size() / 2);
  for (std::size_t k = 0; k < f.size(); ++k) f[k] = std::complex<float>(out[k]);
  return f;
}

constexpr std::size_t n = 1 << 15;
constexpr double amplitude = 0.01;
const double tone_power = std::pow(n * amplitude / 2, 2);  // |F|² of a tone on a bin

std::vector<std::complex<float>> tone(double r) {
  std::vector<double> x(n);
  for (std::size_t i = 0; i < n; ++i) x[i] = amplitude * std::cos(2 * pi * r * static_cast<double>(i) / n);
  return spectrum_of(x);
}

// A cell as double (the plane holds float, also from the FP64 pipeline).
double cell(const PowerPlane& plane, std::size_t t, std::size_t i) { return static_cast<double>(plane.at(t, i)); }

double sinc2(double d) { return d == 0 ? 1 : std::pow(std::sin(pi * d) / (pi * d), 2); }
double interbin_fraction(double d) { return std::pow(std::sin(pi * d), 2) / (16 * d * d * (1 - d) * (1 - d)); }

TEST(Interbin, TheRulesFiguresAtZeroDrift) {
  EXPECT_EQ(interbin::factor, pi * pi / 16);
  // Which outputs a column reads: b = 2 one each; b = 1 bins at even columns, interbins at odd.
  EXPECT_EQ(interbin::first_output(7, 2), 7U);
  EXPECT_FALSE(interbin::interbinned(7, 2));
  EXPECT_EQ(interbin::first_output(6, 1), 3U);
  EXPECT_FALSE(interbin::interbinned(6, 1));
  EXPECT_EQ(interbin::first_output(7, 1), 3U);
  EXPECT_TRUE(interbin::interbinned(7, 1));
  EXPECT_EQ(interbin::scaled(1.0F), static_cast<float>(pi * pi / 16));
  EXPECT_NEAR(interbin_fraction(0.5), 1.0, 1e-15);
  EXPECT_NEAR(sinc2(0.5), 0.405, 5e-4);  // spec §5: half-bin offset without interbinning
  EXPECT_NEAR(interbin_fraction(0.25), 8.0 / 9.0, 1e-15);
  EXPECT_NEAR(sinc2(0.25), 0.811, 5e-4);  // spec §5: quarter-bin offset
  double worst = 1;
  for (int i = 0; i <= 1000; ++i) {
    const double d = i / 2000.0;  // by symmetry, offsets 0 … ½ from the nearer bin
    worst = std::min(worst, std::max(sinc2(d), d == 0 ? 0.0 : interbin_fraction(d)));
  }
  EXPECT_NEAR(worst, 0.857, 1e-3);
}

// A steady tone δ above bin k: the b = 1 plane's bin and interbin against the rule's figures, and the
// interbin at δ = ½ against b = 2's exact half bin (which the ±16-bin kernel truncates by ≈ 2.5 %).
class ToneBetweenBins : public ::testing::TestWithParam<double> {};

TEST_P(ToneBetweenBins, TheInterbinHoldsWhatTheRulePredicts) {
  const double delta = GetParam();
  const std::size_t k = 4000;
  const auto spectrum = tone(static_cast<double>(k) + delta);
  const std::size_t r_lo = k - 40, r_hi = k + 40;
  const std::size_t even = 2 * (k - r_lo), odd = even + 1;  // columns at k and k + ½
  const TemplateBank one = make_template_bank(0, 1, Accuracy::low);
  const TemplateBank two = make_template_bank(0, 2, Accuracy::low);
  for (const bool in_double : {false, true}) {
    const auto correlate_with = [&](const TemplateBank& bank) {
      return in_double ? correlate(spectrum, transform_kernels<double>(bank.taps, bank.layout.fft_length), bank.layout,
                                   r_lo, r_hi, {false, 2})
                       : correlate(spectrum, transform_kernels<float>(bank.taps, bank.layout.fft_length), bank.layout,
                                   r_lo, r_hi, {false, 2});
    };
    const PowerPlane p1 = correlate_with(one);
    const PowerPlane p2 = correlate_with(two);
    ASSERT_EQ(p1.n_r, p2.n_r);
    EXPECT_EQ(p1.r_of(odd), static_cast<double>(k) + 0.5);
    // The finite series' Dirichlet kernel and the tone's image at −r differ from the sinc by < 1e-3.
    const double bin = cell(p1, 0, even) / tone_power, interbin = cell(p1, 0, odd) / tone_power;
    EXPECT_NEAR(bin, sinc2(delta), 1e-3) << "delta " << delta << ", double " << in_double;
    EXPECT_NEAR(interbin, interbin_fraction(delta), 1e-3) << "delta " << delta << ", double " << in_double;
    // At whole bins the two numbetweens are the same sums.
    EXPECT_NEAR(cell(p1, 0, even), cell(p2, 0, even), 2e-5 * tone_power);
    EXPECT_GT(std::max(bin, interbin), 0.857 - 1e-3);
    if (delta == 0.5) {
      const double exact = cell(p2, 0, odd) / tone_power;
      EXPECT_GT(exact, 0.97);
      EXPECT_LT(exact, 1.0);
      // The interbin's power over the exact half bin's: 1 over the truncated kernel's share.
      EXPECT_NEAR(interbin / exact, 1 / exact, 1e-3);
      EXPECT_NEAR(bin, 4 / (pi * pi), 1e-3);  // what b = 1 without interbinning would report
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Offsets, ToneBetweenBins, ::testing::Values(0.5, 0.25, 0.215, 0.1, 0.75));

// Noise and drifting tones: at whole bins the b = 1 plane is the b = 2 plane's even columns (the
// same taps conj(R(j, z)), the same sums), every drift: from double transforms within a few float
// ulps of the plane's float cells, from float ones within the spec's 1e-4·max(1, P).
TEST(Interbin, WholeBinsAgreeWithNumbetweenTwo) {
  std::mt19937_64 rng(21);
  std::normal_distribution<double> g;
  std::vector<double> x(n);
  for (std::size_t i = 0; i < n; ++i) {
    const double u = static_cast<double>(i) / n;
    x[i] = g(rng) + 0.2 * std::cos(2 * pi * ((1500.3 - 7.0) * u + 7.0 * u * u));
  }
  auto spectrum = spectrum_of(x);
  for (auto& v : spectrum) v /= std::sqrt(static_cast<float>(n));  // noise power mean 1
  const TemplateBank one = make_template_bank(20, 1, Accuracy::low);
  const TemplateBank two = make_template_bank(20, 2, Accuracy::low);
  const std::size_t r_lo = 1300, r_hi = 1700;
  const PowerPlane f1 = correlate(spectrum, transform_kernels<float>(one.taps, one.layout.fft_length), one.layout, r_lo,
                                  r_hi, {false, 2});
  const PowerPlane f2 = correlate(spectrum, transform_kernels<float>(two.taps, two.layout.fft_length), two.layout, r_lo,
                                  r_hi, {false, 2});
  const PowerPlane d1 = correlate(spectrum, transform_kernels<double>(one.taps, one.layout.fft_length), one.layout,
                                  r_lo, r_hi, {false, 2});
  const PowerPlane d2 = correlate(spectrum, transform_kernels<double>(two.taps, two.layout.fft_length), two.layout,
                                  r_lo, r_hi, {false, 2});
  ASSERT_EQ(f1.n_z, f2.n_z);
  ASSERT_EQ(f1.n_r, f2.n_r);
  double peak = 0;
  for (std::size_t t = 0; t < f1.n_z; ++t)
    for (std::size_t i = 0; i < f1.n_r; i += 2) {
      const double want = cell(d2, t, i);
      peak = std::max(peak, want);
      // Double sums rounded to float: a few float ulps; float transforms: the spec's FP32 figure.
      EXPECT_NEAR(cell(d1, t, i), want, 1e-6 * std::max(1.0, want)) << "z row " << t << ", column " << i;
      EXPECT_NEAR(cell(f1, t, i), want, 1e-4 * std::max(1.0, want)) << "z row " << t << ", column " << i;
      EXPECT_NEAR(cell(f2, t, i), want, 1e-4 * std::max(1.0, want)) << "z row " << t << ", column " << i;
    }
  EXPECT_GT(peak, 50.0);  // the tone is in the compared cells
}

// The last interbin of a segment reads the output after the segment's last kept one: computed in
// the segment (useful_outputs leaves it clean), it equals what one long segment gives there, and
// so does every other column. Short segments of 128 points (U = 128 − 2·27 − 1 = 73 bins, 146
// columns) against one of 4096, with block normalisation off (the segments' medians differ).
TEST(Interbin, ColumnsAtSegmentEdgesAreThoseOfOneLongSegment) {
  std::mt19937_64 rng(23);
  std::normal_distribution<float> g(0.0F, std::sqrt(0.5F));
  std::vector<std::complex<float>> spectrum(1200);
  for (auto& v : spectrum) v = {g(rng), g(rng)};
  spectrum[600] += std::complex<float>(8.0F, 3.0F);
  const TemplateBank short_segments = make_template_bank(20, 1, Accuracy::low, 128);
  const TemplateBank long_segment = make_template_bank(20, 1, Accuracy::low, 4096);
  ASSERT_EQ(short_segments.layout.half_width, 27U);
  ASSERT_EQ(short_segments.layout.useful_outputs(), 73U);
  const std::size_t r_lo = 5, r_hi = 1195;
  const auto plane = [&](const TemplateBank& bank) {
    return correlate(spectrum, transform_kernels<double>(bank.taps, bank.layout.fft_length), bank.layout, r_lo, r_hi,
                     {false, 2});
  };
  const PowerPlane many = plane(short_segments);
  const PowerPlane one = plane(long_segment);
  ASSERT_EQ(many.n_r, one.n_r);
  ASSERT_LT(one.n_r, long_segment.layout.segment_columns());  // one segment
  const std::size_t columns = short_segments.layout.segment_columns();
  ASSERT_GT(many.n_r / columns, 10U);  // many segment edges
  for (std::size_t t = 0; t < many.n_z; ++t)
    for (std::size_t i = 0; i < many.n_r; ++i)
      ASSERT_NEAR(cell(many, t, i), cell(one, t, i), 1e-6 * std::max(1.0, cell(one, t, i)))
          << "z row " << t << ", column " << i << (i % columns == columns - 1 ? " (a segment's last interbin)" : "");
}

}  // namespace
}  // namespace astrosweep::fdas
