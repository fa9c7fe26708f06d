// PRESTO's significance of summed powers (spec fdas.md §7): against 40-digit values (mpmath) and
// a float64 restatement of PRESTO's branches, both made by tools/make_fdas_sigma_reference.py
// (tests/data/reference/fdas_sigma.csv, fdas_powcut.csv); the thresholds round-trip; n_indep is
// PRESTO's truncated integer.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <numbers>

#include "accel_statistics.hpp"
#include "test_data.hpp"

namespace astrosweep::fdas {
namespace {

double num(const std::map<std::string, std::string>& row, const char* key) { return std::stod(row.at(key)); }

TEST(AccelStatistics, SigmaAgainstReference) {
  const auto rows = test::read_table("reference/fdas_sigma.csv");
  ASSERT_GT(rows.size(), 600u);
  double worst_exact = 0, worst_presto = 0;
  for (const auto& row : rows) {
    const double p = num(row, "power"), n = num(row, "n_indep");
    const int h = std::stoi(row.at("numharm"));
    const double s = candidate_sigma(p, h, n);
    SCOPED_TRACE("power " + row.at("power") + " numharm " + row.at("numharm") + " n_indep " + row.at("n_indep"));
    // The spec's tolerance against the mathematics; PRESTO's own approximations stay within it.
    EXPECT_NEAR(s, num(row, "sigma_exact"), 1e-3);
    // The same branches as PRESTO: agreement to rounding.
    EXPECT_NEAR(s, num(row, "sigma_presto"), 1e-8 * std::max(1.0, s));
    worst_exact = std::max(worst_exact, std::abs(s - num(row, "sigma_exact")));
    worst_presto = std::max(worst_presto, std::abs(s - num(row, "sigma_presto")));
  }
  RecordProperty("worst_vs_exact", std::to_string(worst_exact));
  RecordProperty("worst_vs_presto", std::to_string(worst_presto));
}

TEST(AccelStatistics, LnProbabilityWhereExact) {
  // Outside PRESTO's asymptotic region (and where the exact function is used) ln Q matches the
  // 40-digit value to ~1e-12 relative, also where Q itself underflows a double.
  const auto rows = test::read_table("reference/fdas_sigma.csv");
  for (const auto& row : rows) {
    const double p = num(row, "power"), n = num(row, "n_indep");
    const int h = std::stoi(row.at("numharm"));
    const double ln_q = ln_gamma_q(h, p) + std::log(n);
    EXPECT_NEAR(ln_q, num(row, "ln_p"), 1e-12 * std::max(1.0, std::abs(ln_q))) << row.at("power") << " " << h;
  }
}

TEST(AccelStatistics, KnownValues) {
  // H = 1: Q_χ²(2P | 2) = e^{−P} exactly, and so is ln_gamma_q. ln_chi2_sf keeps PRESTO's
  // Stirling ln Γ(1) above 2P = 1200, which is 3.07e−4 off (ln Γ(1) = 0): a shift of sigma by
  // ~3e−4/sigma, far inside the tolerance.
  for (double p : {0.1, 1.0, 10.0, 100.0, 599.0, 601.0, 5000.0}) {
    EXPECT_NEAR(ln_gamma_q(1.0, p), -p, 1e-12 * p) << p;
    EXPECT_NEAR(ln_chi2_sf(2 * p, 2), -p, p < 600 ? 1e-12 * p : 3.1e-4) << p;
  }
  EXPECT_GT(std::abs(ln_chi2_sf(2 * 601.0, 2) + 601.0), 3e-4);  // the asymptotic branch is taken
  // H = 16 above 2P = 100: the series is exact for integer a, only Stirling's ln Γ(16) differs.
  EXPECT_NEAR(ln_chi2_sf(120.0, 32), ln_gamma_q(16.0, 60.0), 1e-9);
  // Q_N(1.959963984540054) = 0.025
  EXPECT_NEAR(normal_isf_from_ln_p(std::log(0.025)), 1.959963984540054, 1e-13);
  EXPECT_NEAR(normal_isf_from_ln_p(std::log(0.975)), -1.959963984540054, 1e-12);
  EXPECT_NEAR(std::exp(ln_normal_sf(3.0)), 1.3498980316300946e-3, 1e-17);
  // Continuity of ln Q_N across its switch to the Mills-ratio series at 30.
  EXPECT_NEAR(ln_normal_sf(30.0 - 1e-9), ln_normal_sf(30.0), 1e-7);
  // Round trip through the normal tail, including beyond the erfc underflow.
  for (double x : {0.5, 2.0, 6.0, 20.0, 34.0}) EXPECT_NEAR(normal_isf_from_ln_p(ln_normal_sf(x)), x, 1e-10) << x;
}

TEST(AccelStatistics, EdgeCases) {
  EXPECT_EQ(candidate_sigma(0.0, 1, 1), 0.0);
  EXPECT_EQ(candidate_sigma(-3.0, 8, 1e6), 0.0);
  EXPECT_EQ(candidate_sigma(1.0, 32, 1e12), 0.0);  // ln p > 0: PRESTO's GSL would give NaN
  EXPECT_EQ(equivalent_gaussian_sigma(0.0), 0.0);
  EXPECT_EQ(equivalent_gaussian_sigma(std::log(0.5)), 0.0);
  EXPECT_EQ(ln_chi2_sf(0.0, 4), 0.0);
  EXPECT_EQ(ln_gamma_q(3.0, 0.0), 0.0);
  // Sigma grows with power and falls with the number of trials.
  EXPECT_LT(candidate_sigma(30, 1, 1e6), candidate_sigma(31, 1, 1e6));
  EXPECT_GT(candidate_sigma(30, 1, 1e3), candidate_sigma(30, 1, 1e6));
  // The rational branch below ln p = −600: A&S 26.2.23 itself.
  const double t = std::sqrt(1400.0);
  EXPECT_DOUBLE_EQ(normal_isf_from_ln_p(-700.0), t - (2.515517 + 0.802853 * t + 0.010328 * t * t) /
                                                         (1 + 1.432788 * t + 0.189269 * t * t + 0.001308 * t * t * t));
}

TEST(AccelStatistics, PowerThresholdAgainstReference) {
  const auto rows = test::read_table("reference/fdas_powcut.csv");
  ASSERT_EQ(rows.size(), 6u * 6u * 6u);
  for (const auto& row : rows) {
    const double s = num(row, "sigma_min"), n = num(row, "n_indep");
    const int h = std::stoi(row.at("numharm"));
    const double cut = power_threshold(s, h, n);
    EXPECT_NEAR(cut, num(row, "powcut"), 1e-10 * num(row, "powcut")) << s << " " << h << " " << n;
    // Round trip: a summed power at the threshold has sigma_min (to the spec's tolerance; the
    // threshold uses the exact incomplete gamma, the sigma PRESTO's approximations).
    EXPECT_NEAR(candidate_sigma(cut, h, n), s, 1e-3) << s << " " << h << " " << n;
  }
}

TEST(AccelStatistics, ChiSquareInverse) {
  // Q_χ²(x | 2) = e^{−x/2}: the inverse is exact.
  for (double ln_q : {-1e-3, -0.5, -5.0, -50.0, -700.0, -5000.0})
    EXPECT_NEAR(chi2_isf_from_ln_q(ln_q, 2), -2 * ln_q, 1e-12 * std::max(1.0, -2 * ln_q)) << ln_q;
  for (int dof : {2, 4, 16, 32, 64})
    for (double ln_q : {-0.1, -3.0, -30.0, -300.0}) {
      const double x = chi2_isf_from_ln_q(ln_q, dof);
      EXPECT_NEAR(ln_gamma_q(0.5 * dof, 0.5 * x), ln_q, 1e-11 * std::abs(ln_q)) << dof << " " << ln_q;
    }
}

TEST(AccelStatistics, IndependentTrials) {
  // z search: (r_hi − r_lo)(n_z + 1)(dz/6.95)/H, truncated. PRESTO's defaults for T = 536.9 s,
  // f 1 Hz .. 10 kHz (clipped to Nyquist 7812.5 Hz): r_lo = 536, r_hi = 4194304 − 1, z_max = 200.
  EXPECT_EQ(n_independent(536, 4194303, 201, 2.0, 1), static_cast<std::int64_t>(4193767.0 * 202 * (2.0 / 6.95)));
  EXPECT_EQ(n_independent(536, 4194303, 201, 2.0, 1), 243781563);
  EXPECT_EQ(n_independent(536, 4194303, 201, 2.0, 8), 30472695);
  // Small hand case: 1000 bins, 3 z trials, dz = 2: 1000 · 4 · 0.28776978... = 1151.079 → 1151.
  EXPECT_EQ(n_independent(0, 1000, 3, 2.0, 1), 1151);
  EXPECT_EQ(n_independent(0, 1000, 3, 2.0, 2), 575);
  EXPECT_EQ(n_independent(0, 1000, 3, 2.0, 32), 35);
  // z_max = 0: bins per harmonic.
  EXPECT_EQ(n_independent(10, 1010, 1, 2.0, 1), 1000);
  EXPECT_EQ(n_independent(10, 1010, 1, 2.0, 32), 31);  // 31.25 truncated
  EXPECT_EQ(n_independent(5, 5, 1, 2.0, 4), 0);
}

}  // namespace
}  // namespace astrosweep::fdas
