// TaylorF2 through spec §5B: the whitened analytic template chirps up to f_final, lasts about the
// chirp time, is normalised, and its norm has the white-noise closed form; the Newtonian chirp.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <numbers>
#include <sstream>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "taylorf2.hpp"

namespace astrosweep::spiir {
namespace {

TEST(TaylorF2, PhaseCoefficientsAtKnownPoints) {
  const Binary b{1.4, 1.4};
  EXPECT_NEAR(b.eta(), 0.25, 1e-15);
  EXPECT_NEAR(f_isco(b), 1570.4, 0.5);  // 4400 Hz / (M/M☉)
  EXPECT_NEAR(chirp_time(b, 40), 25.0, 1.0);
  // At 20 Hz (v = 0.0953) the terms after the leading one, worked by hand: 1PN +0.0585, 1.5PN
  // −0.0435, 2PN +0.0036, 2.5PN (with its log) −0.0074; 3PN and 3.5PN together under 3e−4.
  const double v = std::cbrt(std::numbers::pi * b.total_s() * 20);
  EXPECT_NEAR(v, 0.0953, 1e-4);
  const double newtonian = 3 / (128 * 0.25 * std::pow(v, 5));
  const double psi = taylorf2_phase(b, 20) + std::numbers::pi / 4;
  EXPECT_NEAR(psi / newtonian, 1 + 0.0585 - 0.0435 + 0.0036 - 0.0074, 6e-4);
}

// lalsimulation's TaylorF2 (tools/spiir_lal_reference.py taylorf2, committed): the phase equal up
// to LAL's t_c and φ_c (a + b·f, fitted) within 1e−8 rad over 41 … 900 Hz (measured 9e−11, where
// Ψ reaches 1e4 rad), the amplitude at 1 Mpc to 1e−12.
TEST(TaylorF2, MatchesLalsimulation) {
  std::ifstream in(SPIIR_TEST_DATA "/lal_taylorf2.txt");
  ASSERT_TRUE(in) << "missing " SPIIR_TEST_DATA "/lal_taylorf2.txt";
  std::vector<double> f, amplitude, psi;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream row(line);
    double a, b, c;
    row >> a >> b >> c;
    f.push_back(a), amplitude.push_back(b), psi.push_back(c);
  }
  ASSERT_GT(f.size(), 200u);
  const Binary b{1.4, 1.4};
  std::vector<double> d(f.size());
  for (std::size_t i = 0; i < f.size(); ++i) {
    EXPECT_NEAR(taylorf2_amplitude_1mpc(b, f[i]) / amplitude[i], 1.0, 1e-12) << f[i];
    d[i] = taylorf2_phase(b, f[i]) - psi[i];
  }
  // Least squares d ≈ c0 + c1 f.
  double n = 0, sf = 0, sff = 0, sd = 0, sfd = 0;
  for (std::size_t i = 0; i < f.size(); ++i) n += 1, sf += f[i], sff += f[i] * f[i], sd += d[i], sfd += f[i] * d[i];
  const double c1 = (n * sfd - sf * sd) / (n * sff - sf * sf);
  const double c0 = (sd - c1 * sf) / n;
  double worst = 0;
  for (std::size_t i = 0; i < f.size(); ++i) worst = std::max(worst, std::abs(d[i] - c0 - c1 * f[i]));
  std::printf("[ spiir    ] TaylorF2 phase vs lalsimulation: %.3g rad at most\n", worst);
  EXPECT_LT(worst, 1e-8);
}

TEST(TaylorF2, WhitenedTemplateChirpsUpToItsFinalFrequency) {
  const Binary b{1.4, 1.4};
  const double fs = 2048;
  const auto t = taylorf2_template(b, {40, fs, {}});
  double energy = 0;
  for (const auto& x : t.h) energy += std::norm(x);
  EXPECT_NEAR(energy, 2.0, 1e-12);
  EXPECT_NEAR(t.f_final, 0.45 * fs, 1e-9);  // f_ISCO lies above Nyquist at 2048 Hz
  EXPECT_NEAR(t.duration, chirp_time(b, 40), 0.15 * chirp_time(b, 40));
  const auto phase = unwrapped_phase(t.h);
  // Frequency over 256-sample blocks: rising, and near f_final at the end.
  double previous = 0;
  const std::size_t block = 256;
  for (std::size_t i = block; i + block <= phase.size(); i += block) {
    const double f = (phase[i + block - 1] - phase[i]) / (2 * std::numbers::pi) / (block - 1) * fs;
    EXPECT_GT(f, previous) << i;
    previous = f;
  }
  const double f_end = (phase[phase.size() - 1] - phase[phase.size() - 5]) / (2 * std::numbers::pi) / 4 * fs;
  EXPECT_NEAR(f_end, t.f_final, 0.15 * t.f_final);
  // Newtonian check of the time-frequency track: 1 s before the end the frequency is near the
  // Newtonian f(τ = 1 s) (PN terms shift it by a few per cent).
  const std::size_t i1 = phase.size() - static_cast<std::size_t>(fs);
  const double f1 = (phase[i1 + 8] - phase[i1 - 8]) / (2 * std::numbers::pi) / 16 * fs;
  const double f_newtonian =
      std::pow(5.0 / 1.0, 3.0 / 8.0) * std::pow(b.chirp_mass_s(), -5.0 / 8.0) / (8 * std::numbers::pi);
  EXPECT_NEAR(f1, f_newtonian, 0.1 * f_newtonian);
}

TEST(TaylorF2, WhiteNoiseNormHasItsClosedForm) {
  // White data, S = 2/f_s: sigmasq = 4 (f_s/2) A² ∫ f^{−7/3} df, A = √(5/24) π^{−2/3} 𝓜^{5/6} c / 1 Mpc;
  // the 5 % cos² ramps at the band edges take a few per cent.
  const Binary b{1.4, 1.4};
  const double fs = 2048;
  const auto t = taylorf2_template(b, {40, fs, {}});
  const double a = std::sqrt(5.0 / 24) * std::pow(std::numbers::pi, -2.0 / 3) * std::pow(b.chirp_mass_s(), 5.0 / 6) *
                   299792458.0 / 3.0856775814913673e22;
  const double integral = 0.75 * (std::pow(40.0, -4.0 / 3) - std::pow(t.f_final, -4.0 / 3));
  const double expected = 4 * (fs / 2) * a * a * integral;
  EXPECT_GT(t.sigmasq, 0.85 * expected);
  EXPECT_LT(t.sigmasq, expected);
  // Twice the distance, a quarter of the SNR²: sigmasq ∝ 𝓜^{5/3} for the same band.
  const auto heavier = taylorf2_template({2.8, 2.8}, {40, fs, {}});
  EXPECT_GT(heavier.sigmasq, t.sigmasq);
}

TEST(TaylorF2, CutAndUnwrap) {
  std::vector<std::complex<double>> h(100, 1.0);
  const auto cut = cut_template_start(h, 0.1);  // 10 % of the energy: the first 10 samples
  EXPECT_EQ(cut.size(), 91u);
  std::vector<std::complex<double>> ramp(50);
  for (std::size_t i = 0; i < ramp.size(); ++i) ramp[i] = std::polar(1.0, 0.9 * static_cast<double>(i));
  const auto phase = unwrapped_phase(ramp);
  for (std::size_t i = 0; i < ramp.size(); ++i) EXPECT_NEAR(phase[i], 0.9 * static_cast<double>(i), 1e-12);
  EXPECT_THROW(taylorf2_template({1.4, 1.4}, {1000, 2048, {}}), UsageError);  // f_low above f_final
}

TEST(NewtonianChirp, FrequencyAndAmplitudeRise) {
  const auto h = newtonian_chirp({1.4, 1.4}, 40, 2048);
  EXPECT_NEAR(static_cast<double>(h.size()) / 2048, chirp_time({1.4, 1.4}, 40) - chirp_time({1.4, 1.4}, 921.6),
              1.0 / 2048);
  EXPECT_LT(std::abs(h.front()), std::abs(h.back()));
  const auto phase = unwrapped_phase(h);
  EXPECT_NEAR((phase[1] - phase[0]) / (2 * std::numbers::pi) * 2048, 40, 0.1);
}

}  // namespace
}  // namespace astrosweep::spiir
