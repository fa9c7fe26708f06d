// PRESTO's harmonic table (harmonic_table.hpp): a steady chirp measured at its own (r, z) has the
// phase it was given at the first sample, centroid ½ and purity 1; local power is the mean of the
// twenty bins PRESTO's get_localpower3d reads, and white noise of known variance gives it mean 1;
// a phase-locked pulse's harmonics add coherently; harmonics beyond the spectrum are empty rows.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <numbers>
#include <random>
#include <vector>

#include "accel_statistics.hpp"
#include "core/error.hpp"
#include "harmonic_table.hpp"
#include "optimise.hpp"
#include "spectrum.hpp"

namespace astrosweep::fdas {
namespace {

constexpr double pi = std::numbers::pi;

// One harmonic of a pulse: amplitude and phase at the first sample (radians).
struct Tone {
  double amplitude;
  double phase;
};

// N samples of Σ_h a_h cos(h·θ(u) + φ_h) + noise, u = n/N, with θ(u) = 2π[(r − z/2)u + (z/2)u²]:
// harmonic h at mean frequency h·r bins, drifting h·z bins over the series, phase φ_h at u = 0.
std::vector<float> pulse(std::size_t n, double r, double z, const std::vector<Tone>& tones, double sigma,
                         unsigned seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> g(0, sigma);
  std::vector<float> x(n);
  for (std::size_t i = 0; i < n; ++i) {
    const double u = static_cast<double>(i) / static_cast<double>(n);
    const double theta = 2 * pi * ((r - z / 2) * u + (z / 2) * u * u);
    double v = sigma > 0 ? g(rng) : 0.0;
    for (std::size_t h = 0; h < tones.size(); ++h)
      v += tones[h].amplitude * std::cos(static_cast<double>(h + 1) * theta + tones[h].phase);
    x[i] = static_cast<float>(v);
  }
  return x;
}

// The spectrum normalised for white noise of variance `variance` (spec §2's known-variance form).
std::vector<std::complex<float>> spectrum_of(const std::vector<float>& x, double variance) {
  auto f = raw_spectrum(x, x.size());
  normalise_known_variance(f, x.size(), variance);
  return f;
}

double wrapped_difference(double a, double b) { return std::remainder(a - b, 2 * pi); }

// A candidate polished to (r, z) (harmonic_rows reads only these).
Polished at(double r, double z) {
  Polished p;
  p.r = r;
  p.z = z;
  return p;
}

TEST(HarmonicTable, SteadyChirpHasItsPhaseCentroidOneHalfAndPurityOne) {
  const std::size_t n = 1 << 15;
  const double r0 = 2000.3, z0 = 6.6, phase = 1.1, a = 0.2;
  const auto f = spectrum_of(pulse(n, r0, z0, {{a, phase}}, 0, 1), 1.0);
  const Polished p = at(r0, z0);
  const auto rows = harmonic_rows(f, p, r0 + 0.25, z0 - 1.5, 1);
  ASSERT_EQ(rows.size(), 1u);
  const HarmonicRow& h = rows[0];
  EXPECT_EQ(h.harmonic, 1);
  EXPECT_EQ(h.series, 0u);
  EXPECT_EQ(h.number, 0);
  EXPECT_DOUBLE_EQ(h.r, r0);  // measured where it was polished
  EXPECT_DOUBLE_EQ(h.z, z0);
  EXPECT_DOUBLE_EQ(h.r_predicted, r0 + 0.25);  // PRESTO's Pred: as the search found it
  EXPECT_DOUBLE_EQ(h.z_predicted, z0 - 1.5);
  // |A|² of a tone of amplitude a over N samples, normalised by √N: N a²/4 (the response kernel
  // keeps all but a fraction of a percent of it).
  EXPECT_NEAR(h.raw_power, static_cast<double>(n) * a * a / 4, 0.01 * static_cast<double>(n) * a * a / 4);
  EXPECT_NEAR(wrapped_difference(h.phase_deg * pi / 180, phase), 0, 1e-3);
  EXPECT_GT(h.phase_deg, 0);
  EXPECT_LE(h.phase_deg, 360);
  EXPECT_NEAR(h.centroid, 0.5, 0.01);
  EXPECT_NEAR(h.purity, 1.0, 0.01);
  // Without noise the local power is the chirp's own sidelobes 5 … 15 bins away (its sweep spans
  // ±z/2 = ±3.3 bins): small but not 0.
  EXPECT_GT(h.local_power, 0);
  EXPECT_LT(h.local_power, 0.01 * h.raw_power);
  EXPECT_DOUBLE_EQ(h.power, h.raw_power / h.local_power);
  EXPECT_DOUBLE_EQ(h.sigma, candidate_sigma(static_cast<double>(static_cast<float>(h.power)), 1, 1));
}

TEST(HarmonicTable, PhaseAndCentroidFollowTheSignal) {
  // A tone that is on only in the second half of the observation: its power sits at u ≈ ¾.
  const std::size_t n = 1 << 14;
  const double r0 = 1000.0;
  auto x = pulse(n, r0, 0, {{0.3, 4.0}}, 0, 1);
  for (std::size_t i = 0; i < n / 2; ++i) x[i] = 0;
  const auto f = spectrum_of(x, 1.0);
  // It starts at u = ½ with phase 4 + 2π·r0·½ ≡ 4 (r0 is whole): arg A at r0 is that phase.
  const auto rows = harmonic_rows(f, at(r0, 0), r0, 0, 1);
  EXPECT_NEAR(rows[0].centroid, 0.75, 0.01);
  // A half-length tone has half the frequency resolution: its power falls half as fast, purity ½.
  EXPECT_NEAR(rows[0].purity, 0.5, 0.02);
  EXPECT_NEAR(wrapped_difference(rows[0].phase_deg * pi / 180, 4.0), 0, 1e-3);
  // Reported in (0°, 360°] as PRESTO's RADIAN_PHASE, not as atan2's (−180°, 180°].
  EXPECT_NEAR(rows[0].phase_deg, 4.0 * 180 / pi, 0.1);
}

TEST(HarmonicTable, PolishedRowsSitAtTheSignal) {
  // With polish() in front, as the pipeline runs it: the row's (r, z) is the signal's.
  const std::size_t n = 1 << 15;
  const double r0 = 3000.37, z0 = -8.4;
  const auto f = spectrum_of(pulse(n, r0, z0, {{0.2, 2.5}}, 0, 1), 1.0);
  const Polished p = polish(f, r0 + 0.3, z0 + 1.5, 1);
  const auto rows = harmonic_rows(f, p, r0 + 0.3, z0 + 1.5, 1);
  EXPECT_NEAR(rows[0].r, r0, 0.01);
  EXPECT_NEAR(rows[0].z, z0, 0.1);
  EXPECT_NEAR(rows[0].purity, 1.0, 0.01);
  EXPECT_NEAR(wrapped_difference(rows[0].phase_deg * pi / 180, 2.5), 0, 0.05);
}

TEST(HarmonicTable, LocalPowerIsTheMeanOfTheTwentyBinsPrestoReads) {
  // At a whole r with z = 0 the interpolation at whole bins is the bin itself, so the local
  // power is exactly the mean of the bins get_localpower3d reads: r − 15 … r − 6 and r + 5 …
  // r + 14 (the centre r − 5 … r + 4 left out), divided by 20 however many lie inside.
  const std::size_t n = 200;
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> u(0.5, 2.0);
  std::vector<std::complex<float>> f(n);
  std::vector<double> power(n);
  for (std::size_t k = 0; k < n; ++k) {
    power[k] = u(rng);
    f[k] = std::polar(static_cast<float>(std::sqrt(power[k])), static_cast<float>(k));
  }
  auto mean_of = [&](int lo, int hi, int lo2, int hi2) {
    double s = 0;
    for (int k = lo; k <= hi; ++k) s += power[static_cast<std::size_t>(k)];
    for (int k = lo2; k <= hi2; ++k) s += power[static_cast<std::size_t>(k)];
    return s / 20;
  };
  EXPECT_NEAR(local_power(f, 100, 0), mean_of(85, 94, 105, 114), 1e-6);
  EXPECT_NEAR(local_power(f, 8, 0), mean_of(0, 2, 13, 22), 1e-6);          // clipped at bin 0
  EXPECT_NEAR(local_power(f, 190, 0), mean_of(175, 184, 195, 199), 1e-6);  // clipped at the end
  EXPECT_DOUBLE_EQ(local_power(f, 300, 0), 0.0);                           // all beyond the end

  // The row divides by it: power / local power, and sigma of that one power in one trial.
  const auto rows = harmonic_rows(f, at(100, 0), 100, 0, 1);
  EXPECT_NEAR(rows[0].local_power, mean_of(85, 94, 105, 114), 1e-6);
  EXPECT_NEAR(rows[0].raw_power, power[100], 1e-5);
  EXPECT_NEAR(rows[0].power, power[100] / mean_of(85, 94, 105, 114), 1e-5);
}

TEST(HarmonicTable, KnownVarianceNoiseHasLocalPowerOne) {
  // White noise normalised with its known variance: |F|² is exponential with mean 1, and so is
  // the interpolated power at any r (less the kernel's truncation, ≤ 2.5 % at half bins).
  const std::size_t n = 1 << 16;
  const auto f = spectrum_of(pulse(n, 0, 0, {}, 2.0, 11), 4.0);
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> frac(0, 1);
  for (double z : {0.0, 10.0}) {
    double sum = 0;
    int count = 0;
    for (double r = 100; r < 32000; r += 40, ++count) sum += local_power(f, r + frac(rng), z);
    // 799 independent means of 20 exponentials: standard error 0.22/√799 ≈ 0.008.
    EXPECT_NEAR(sum / count, 0.985, 0.03) << "z = " << z;
  }
  // A tone in that noise at a whole bin, z = 0: none of its power leaks into the local bins, which
  // are then 20 independent exponentials of mean 1. The centre holds S + 1 on average, S = N a²/(4σ²)
  // (here 655), and E[1/local] = 20/19 (the mean of an inverse gamma of shape 20): so power / local
  // power averages (S + 1)·20/19. 200 trials: standard error ≈ 0.24/√200 ≈ 1.7 %.
  const double a = 0.4, sigma = 2.0;
  const double snr_power = static_cast<double>(n) * a * a / (4 * sigma * sigma);
  double ratio = 0, local = 0;
  const int trials = 200;
  for (int t = 0; t < trials; ++t) {
    const auto g = spectrum_of(pulse(n, 5000, 0, {{a, 0.3}}, sigma, 100 + static_cast<unsigned>(t)), sigma * sigma);
    const auto rows = harmonic_rows(g, at(5000, 0), 5000, 0, 1);
    ratio += rows[0].power;
    local += rows[0].local_power;
    EXPECT_NEAR(rows[0].power, rows[0].raw_power / rows[0].local_power, 1e-9 * rows[0].power);
  }
  EXPECT_NEAR(local / trials, 1.0, 0.05);
  EXPECT_NEAR(ratio / trials, (snr_power + 1) * 20 / 19, 0.05 * snr_power);
}

TEST(HarmonicTable, PhaseLockedPulseHarmonics) {
  // Four harmonics of a drifting pulse, phase-locked (φ_h = h·φ₁): each row at h·(r, z) with its
  // own power and phase; the coherent power of locked harmonics is (Σ √power_h)².
  const std::size_t n = 1 << 16;
  const double r0 = 1500.4, z0 = 6.2, phi = 0.7;
  const std::vector<Tone> tones{{0.20, phi}, {0.16, 2 * phi}, {0.10, 3 * phi}, {0.06, 4 * phi}};
  const auto f = spectrum_of(pulse(n, r0, z0, tones, 1.0, 21), 1.0);
  const auto rows = harmonic_rows(f, at(r0, z0), r0, z0, 4);
  ASSERT_EQ(rows.size(), 4u);
  double sum_amplitude = 0;
  for (int h = 1; h <= 4; ++h) {
    const HarmonicRow& row = rows[static_cast<std::size_t>(h - 1)];
    const Tone& tone = tones[static_cast<std::size_t>(h - 1)];
    EXPECT_EQ(row.harmonic, h);
    EXPECT_DOUBLE_EQ(row.r, h * r0);
    EXPECT_DOUBLE_EQ(row.z, h * z0);
    const double expected = static_cast<double>(n) * tone.amplitude * tone.amplitude / 4;
    EXPECT_NEAR(row.raw_power, expected, 4 * std::sqrt(2 * expected) + 0.01 * expected) << "h = " << h;
    // Within four of PRESTO's own errors (calc_props): phase 1/√(2P), centroid 1/√(24P), purity
    // 1/(p√(10P)).
    const HarmonicProps e = harmonic_props(row);
    EXPECT_NEAR(wrapped_difference(row.phase_deg * pi / 180, tone.phase), 0, 4 * static_cast<double>(e.phase_err))
        << "h = " << h;
    EXPECT_NEAR(row.centroid, 0.5, 4 * static_cast<double>(e.centroid_err)) << "h = " << h;
    EXPECT_NEAR(row.purity, 1.0, 4 * static_cast<double>(e.purity_err) + 0.01) << "h = " << h;
    sum_amplitude += std::sqrt(row.power);
  }
  const double locked = sum_amplitude * sum_amplitude;
  EXPECT_LE(coherent_power(rows), locked * (1 + 1e-12));  // never more than all in phase
  EXPECT_NEAR(coherent_power(rows), locked, 0.03 * locked);

  // Scrambled phases add less: here harmonic 2 is in antiphase.
  auto scrambled = rows;
  scrambled[1].phase_deg = std::fmod(scrambled[1].phase_deg + 180, 360);
  EXPECT_LT(coherent_power(scrambled), 0.8 * locked);
}

TEST(HarmonicTable, OneHarmonic) {
  const auto f = spectrum_of(pulse(1 << 12, 300.5, 0, {{0.3, 1.0}}, 1.0, 4), 1.0);
  const auto rows = harmonic_rows(f, at(300.5, 0), 300.5, 0, 1);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_GT(rows[0].power, 50);
  EXPECT_NEAR(coherent_power(rows), rows[0].power, 1e-12 * rows[0].power);  // one harmonic: its own power
  EXPECT_THROW(harmonic_rows(f, at(300.5, 0), 300.5, 0, 0), UsageError);
}

TEST(HarmonicTable, HarmonicBeyondTheSpectrumIsAnEmptyRow) {
  // n = 2048 bins; the fourth harmonic of r = 600.25 lies at 2401, past the last bin. PRESTO's
  // rz_interp gives it no amplitude and its calc_props would stop accelsearch; here the row stays,
  // with its r, z and predictions and nothing measured.
  const std::size_t n = 1 << 12;
  const auto f = spectrum_of(pulse(n, 600.25, 2, {{0.3, 1.0}, {0.3, 2.0}, {0.3, 3.0}}, 1.0, 9), 1.0);
  ASSERT_EQ(f.size(), 2048u);
  const auto rows = harmonic_rows(f, at(600.25, 2), 600.0, 2, 4);
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_GT(rows[2].power, 20);  // 1800.75: inside
  const HarmonicRow& beyond = rows[3];
  EXPECT_EQ(beyond.harmonic, 4);
  EXPECT_DOUBLE_EQ(beyond.r, 2401.0);
  EXPECT_DOUBLE_EQ(beyond.z, 8.0);
  EXPECT_DOUBLE_EQ(beyond.r_predicted, 2400.0);
  EXPECT_EQ(beyond.raw_power, 0.0);
  EXPECT_EQ(beyond.local_power, 0.0);
  EXPECT_EQ(beyond.power, 0.0);
  EXPECT_EQ(beyond.sigma, 0.0);
  EXPECT_EQ(beyond.phase_deg, 0.0);
  EXPECT_EQ(beyond.centroid, 0.0);
  EXPECT_EQ(beyond.purity, 0.0);
  // Just past the last bin (2047 < r ≤ 2047 + a kernel) is beyond too: PRESTO reads nothing there.
  const auto edge = harmonic_rows(f, at(2047.5, 0), 2047.5, 0, 1);
  EXPECT_EQ(edge[0].raw_power, 0.0);
  EXPECT_GT(edge[0].local_power, 0.0);  // r − 15 … r − 6 are inside
}

TEST(HarmonicTable, PropsAreCalcPropsErrors) {
  // harmonic_props: PRESTO's calc_props errors from power P and purity p.
  HarmonicRow row;
  row.r = 1234.5;
  row.z = -3;
  row.power = 50;
  row.raw_power = 75;
  row.purity = 0.8;
  row.phase_deg = 90;
  row.centroid = 0.4;
  const HarmonicProps p = harmonic_props(row);
  EXPECT_FLOAT_EQ(p.power_err, static_cast<float>(std::sqrt(100.0)));
  EXPECT_FLOAT_EQ(p.phase, static_cast<float>(pi / 2));
  EXPECT_FLOAT_EQ(p.phase_err, 0.1f);
  EXPECT_FLOAT_EQ(p.r_err, static_cast<float>(3 / (pi * 0.8 * std::sqrt(300.0))));
  EXPECT_FLOAT_EQ(p.z_err, static_cast<float>(3 * std::sqrt(10.0) / (pi * 0.64 * std::sqrt(50.0))));
  EXPECT_FLOAT_EQ(p.centroid_err, static_cast<float>(1 / std::sqrt(1200.0)));
  EXPECT_FLOAT_EQ(p.purity_err, static_cast<float>(1 / (0.8 * std::sqrt(500.0))));
  EXPECT_FLOAT_EQ(p.raw_power, 75.0f);
}

}  // namespace
}  // namespace astrosweep::fdas
