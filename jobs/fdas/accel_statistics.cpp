#include "accel_statistics.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>

#include "core/error.hpp"

namespace astrosweep::fdas {

namespace {

constexpr double eps = std::numeric_limits<double>::epsilon();

// ln P(a, x) by the power series Σ xⁿ / (a+1)…(a+n) (converges fast for x < a + 1).
double ln_gamma_p_series(double a, double x) {
  double term = 1.0 / a;
  double sum = term;
  for (int n = 1; n < 100000; ++n) {
    term *= x / (a + n);
    sum += term;
    if (std::abs(term) < std::abs(sum) * eps) break;
  }
  return -x + a * std::log(x) - std::lgamma(a) + std::log(sum);
}

// ln Q(a, x) by the continued fraction of Γ(a, x) (Legendre), evaluated with the modified Lentz
// method; converges fast for x > a + 1.
double ln_gamma_q_fraction(double a, double x) {
  constexpr double tiny = 1e-300;
  double b = x + 1.0 - a;
  double c = 1.0 / tiny;
  double d = 1.0 / b;
  double h = d;
  for (int i = 1; i < 100000; ++i) {
    const double an = -i * (i - a);
    b += 2.0;
    d = an * d + b;
    if (std::abs(d) < tiny) d = tiny;
    c = b + an / c;
    if (std::abs(c) < tiny) c = tiny;
    d = 1.0 / d;
    const double delta = d * c;
    h *= delta;
    if (std::abs(delta - 1.0) < eps) break;
  }
  return -x + a * std::log(x) - std::lgamma(a) + std::log(h);
}

// ln Γ(a, z) from A&S 6.5.32: Γ(a, z) ≈ z^{a−1} e^{−z} [1 + (a−1)/z + (a−1)(a−2)/z² + …]. For
// integer a the series ends after a terms and is exact. PRESTO sums until a term is ≤ 1e−15; for a
// non-integer a (never used by the search: dof = 2H) we also stop where the divergent tail of the
// asymptotic series starts to grow.
double ln_asymptotic_incomplete_gamma(double a, double z) {
  const bool integer_a = a == std::floor(a);
  double sum = 1.0;
  double part = 1.0;
  for (int i = 1; i < 100000; ++i) {
    const double next = part * (a - i) / z;
    if (!integer_a && std::abs(next) > std::abs(part)) break;
    part = next;
    sum += part;
    if (std::abs(part) <= 1e-15) break;
  }
  return (a - 1.0) * std::log(z) - z + std::log(sum);
}

// ln Γ(z) from Stirling's series truncated as PRESTO does (A&S 6.1.41, terms to z⁻⁷).
double ln_asymptotic_gamma(double z) {
  const double y = 1.0 / (z * z);
  const double series = (((-1.0 / 1680.0 * y + 1.0 / 1260.0) * y - 1.0 / 360.0) * y + 1.0 / 12.0) / z;
  return (z - 0.5) * std::log(z) - z + 0.5 * std::log(2.0 * std::numbers::pi) + series;
}

// A&S 26.2.23: x with Q_N(x) = p, |error| < 4.5e−4 for 0 < p ≤ ½; t = √(−2 ln p).
double rational_normal_isf(double ln_p) {
  const double t = std::sqrt(-2.0 * ln_p);
  const double num = 2.515517 + t * (0.802853 + t * 0.010328);
  const double den = 1.0 + t * (1.432788 + t * (0.189269 + t * 0.001308));
  return t - num / den;
}

}  // namespace

double ln_gamma_q(double a, double x) {
  AS_ASSERT(a > 0);
  if (x <= 0) return 0.0;
  if (x < a + 1.0) return std::log1p(-std::exp(ln_gamma_p_series(a, x)));
  return ln_gamma_q_fraction(a, x);
}

double ln_chi2_sf(double chi2, double dof) {
  if (chi2 <= 0) return 0.0;
  // PRESTO's switch (chi2_logp): beyond these points GSL's Q underflows or loses accuracy.
  if (chi2 > 1200.0 || (dof > 30.0 && chi2 > 100.0))
    return ln_asymptotic_incomplete_gamma(0.5 * dof, 0.5 * chi2) - ln_asymptotic_gamma(0.5 * dof);
  return ln_gamma_q(0.5 * dof, 0.5 * chi2);
}

double ln_normal_sf(double x) {
  // erfc is accurate to its underflow near x = 37; beyond, the asymptotic series of Mills' ratio
  // Q(x) = φ(x)/x · (1 − 1/x² + 3/x⁴ − 15/x⁶ + 105/x⁸) is accurate to better than 1e−10.
  if (x < 30.0) return std::log(0.5 * std::erfc(x / std::numbers::sqrt2));
  const double y = 1.0 / (x * x);
  const double series = 1.0 - y * (1.0 - y * (3.0 - y * (15.0 - y * 105.0)));
  return -0.5 * x * x - std::log(x) - 0.5 * std::log(2.0 * std::numbers::pi) + std::log(series);
}

double normal_isf_from_ln_p(double ln_p) {
  AS_ASSERT(ln_p <= 0);
  if (ln_p < -600.0) return rational_normal_isf(ln_p);  // as PRESTO: its GSL call cannot go there
  if (ln_p == 0.0) return -std::numeric_limits<double>::infinity();
  if (ln_p > -std::numbers::ln2) {  // p > ½: the lower half, by symmetry
    return -normal_isf_from_ln_p(std::log(-std::expm1(ln_p)));
  }
  // Newton on ln Q_N(x) − ln p from the rational approximation (error < 4.5e−4), which converges
  // quadratically: d ln Q/dx = −φ(x)/Q(x).
  double x = rational_normal_isf(ln_p);
  for (int i = 0; i < 20; ++i) {
    const double ln_q = ln_normal_sf(x);
    const double ln_phi = -0.5 * x * x - 0.5 * std::log(2.0 * std::numbers::pi);
    const double step = (ln_q - ln_p) * std::exp(ln_q - ln_phi);
    x += step;
    if (std::abs(step) <= 4 * eps * std::max(1.0, std::abs(x))) break;
  }
  return x;
}

double equivalent_gaussian_sigma(double ln_p) {
  if (ln_p >= -std::numbers::ln2) return 0.0;
  const double x = normal_isf_from_ln_p(ln_p);
  return x < 0.0 ? 0.0 : x;
}

double candidate_sigma(double power, int numharm, double n_indep) {
  AS_ASSERT(numharm >= 1 && n_indep > 0);
  if (power <= 0) return 0.0;
  const double ln_p = ln_chi2_sf(2.0 * power, 2.0 * numharm) + std::log(n_indep);
  return equivalent_gaussian_sigma(ln_p);
}

std::int64_t n_independent(double r_lo, double r_hi, int n_z, double dz, int numharm) {
  AS_ASSERT(n_z >= 1 && numharm >= 1 && r_hi >= r_lo);
  // Left to right as PRESTO's create_accelobs writes it; the double is truncated into an int64.
  if (n_z == 1) return static_cast<std::int64_t>((r_hi - r_lo) / numharm);
  return static_cast<std::int64_t>((r_hi - r_lo) * (n_z + 1) * (dz / 6.95) / numharm);
}

double chi2_isf_from_ln_q(double ln_q, double dof) {
  AS_ASSERT(dof >= 2 && ln_q < 0);
  const double a = 0.5 * dof;
  // Start from Wilson–Hilferty's cube-root normal approximation, then Newton on
  // g(y) = ln Q(a, y) − ln q. For a ≥ 1 the gamma law is log-concave, so g is concave and
  // decreasing: after at most one step to the right of the root, Newton descends monotonically.
  const double zq = normal_isf_from_ln_p(ln_q);
  const double k = 2.0 / (9.0 * dof);
  const double wh = 1.0 - k + zq * std::sqrt(k);
  double y = wh > 0 ? 0.5 * dof * wh * wh * wh : 0.5 * a;
  if (!(y > 0)) y = 1e-3;
  for (int i = 0; i < 200; ++i) {
    const double ln_qy = ln_gamma_q(a, y);
    const double ln_density = (a - 1.0) * std::log(y) - y - std::lgamma(a);  // of Γ(a, 1) at y
    const double slope = -std::exp(ln_density - ln_qy);                      // d ln Q / dy
    double next = y - (ln_qy - ln_q) / slope;
    if (!(next > 0)) next = 0.5 * y;
    const bool done = std::abs(next - y) <= 4 * eps * next;
    y = next;
    if (done) break;
  }
  return 2.0 * y;
}

double power_threshold(double sigma_min, int numharm, double n_indep) {
  AS_ASSERT(numharm >= 1 && n_indep >= 1);
  const double ln_q = ln_normal_sf(sigma_min) - std::log(n_indep);
  return 0.5 * chi2_isf_from_ln_q(ln_q, 2.0 * numharm);
}

}  // namespace astrosweep::fdas
