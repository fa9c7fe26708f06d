#include "fresnel.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <complex>
#include <numbers>

namespace astrosweep::fdas {

namespace {

// Below this the power series is used: its terms grow to about 10 there (πx²/2 ≈ 4), so
// cancellation costs at most two digits; above it the continued fraction converges in under
// ~120 steps.
constexpr double series_limit = 1.6;

// Below this (and from series_limit) a table of Taylor expansions replaces the continued fraction,
// which needs more than 10 steps there; above it, the asymptotic expansion. The continued fraction
// gives the table's node values.
constexpr double taylor_limit = 8.0;

// C + iS = Σ_n (iπ/2)^n x^(2n+1) / (n! (2n+1)): the even n give C, the odd n give S.
Fresnel series(double x) {
  const double a = std::numbers::pi / 2 * x * x;
  double c = 0, s = 0;
  double term = x;  // (a^n / n!) · x, with the sign of i^n folded into where it is added
  for (int n = 0; n < 60; ++n) {
    const double add = term / (2 * n + 1);
    switch (n % 4) {
      case 0: c += add; break;
      case 1: s += add; break;
      case 2: c -= add; break;
      default: s -= add; break;
    }
    term *= a / (n + 1);
    if (std::abs(term) < 1e-18 * std::abs(x)) break;
  }
  return {c, s};
}

// πx²/2 reduced modulo 2π without losing the digits a large x² would take: x² is split into an
// exact high part and its rounding error, and the high part reduced modulo 4 (exact in binary).
double half_pi_x_squared(double x) {
  const double hi = x * x;
  const double lo = std::fma(x, x, -hi);
  return std::numbers::pi / 2 * (std::fmod(hi, 4.0) + lo);
}

// |c| < bound, decided as std::abs(c) < bound decides it but without its hypot (half of polishing's
// time when the continued fraction served it) wherever the squared modulus settles it: the squares
// are within a few ulps of exact, so only a |c| within 0.1 % of `bound` needs the hypot, and the
// answer, hence every iteration count below, is the same bit for bit.
bool modulus_below(std::complex<double> c, double bound) {
  const double norm = c.real() * c.real() + c.imag() * c.imag();
  const double bound_squared = bound * bound;
  if (bound_squared > 0) {  // else (bound below 1e-154) the squares underflow: the hypot decides
    if (norm < 0.999 * bound_squared) return true;
    if (norm > 1.001 * bound_squared) return false;
  } else if (std::max(std::abs(c.real()), std::abs(c.imag())) >= bound) {
    return false;  // hypot(x, y) ≥ max(|x|, |y|)
  }
  return std::abs(c) < bound;
}

// C + iS = (1+i)/2 · (1 − erfc(z)) with z = (√π/2)(1 − i)x, x > 0, and
// erfc(z) = e^{−z²} / (√π · K(z)), K(z) = z + (1/2)/(z + (2/2)/(z + (3/2)/(z + …))) evaluated by
// the modified Lentz method. e^{−z²} = e^{iπx²/2}, whose phase is reduced exactly.
Fresnel continued_fraction(double x) {
  using C = std::complex<double>;
  const C z = std::sqrt(std::numbers::pi) / 2 * C(1, -1) * x;
  constexpr double tiny = 1e-300;
  C f = z;
  C d = 0, c = f;
  for (int n = 1; n < 10000; ++n) {
    const double a = n / 2.0;
    d = z + a * d;
    if (modulus_below(d, tiny)) d = tiny;
    c = z + a / c;
    if (modulus_below(c, tiny)) c = tiny;
    d = 1.0 / d;
    const C delta = c * d;
    f *= delta;
    if (modulus_below(delta - 1.0, 1e-16)) break;
  }
  const double theta = half_pi_x_squared(x);
  const C erfc = C(std::cos(theta), std::sin(theta)) / (std::sqrt(std::numbers::pi) * f);
  const C cs = C(0.5, 0.5) * (1.0 - erfc);
  return {cs.real(), cs.imag()};
}

// C + iS on [series_limit, taylor_limit) from Taylor expansions about nodes x₀ = j/32: there the
// continued fraction needs 90 (at 1.6) to 10 (at 8) steps of two complex divisions each, and
// polishing evaluates it ~10⁵ times a candidate. With E(x) = e^{iπx²/2} = (C + iS)′,
//   C + iS (x₀ + h) = (C + iS)(x₀) + E(x₀) Σ_n b_n h^{n+1} / (n+1),
// where b_n are the Taylor coefficients of e^{iπ(x₀h + h²/2)}: b₀ = 1,
// (n+1) b_{n+1} = iπ (x₀ b_n + b_{n−1}). With |h| ≤ 1/64 and x₀ ≤ 8 the n-th term is below
// (π·8/64)ⁿ/n!, under 1e-19 from n = 16: the values keep the continued fraction's ~1e-15, and an
// evaluation is one Horner pass of 16 real-by-complex steps, without division or trigonometry.
class TaylorTable {
 public:
  static constexpr int per_unit = 32;  // nodes per unit of x: x₀ = j / per_unit, exact in binary
  static constexpr int terms = 16;
  static constexpr int first_node = 51;                                        // 1.59375, the node of 1.6
  static constexpr int last_node = static_cast<int>(taylor_limit) * per_unit;  // that of x just below 8

  TaylorTable() {
    using C = std::complex<double>;
    const C i_pi(0, std::numbers::pi);
    for (int j = first_node; j <= last_node; ++j) {
      const double x0 = static_cast<double>(j) / per_unit;
      Node& node = nodes_[static_cast<std::size_t>(j - first_node)];
      const Fresnel f0 = continued_fraction(x0);
      node.value = {f0.c, f0.s};
      const double theta = half_pi_x_squared(x0);
      const C e0(std::cos(theta), std::sin(theta));
      C previous = 0, b = 1;
      for (int n = 0; n < terms; ++n) {
        node.coefficients[static_cast<std::size_t>(n)] = e0 * b / static_cast<double>(n + 1);
        const C next = i_pi * (x0 * b + previous) / static_cast<double>(n + 1);
        previous = b;
        b = next;
      }
    }
  }

  // x in [series_limit, taylor_limit).
  Fresnel operator()(double x) const noexcept {
    const auto j = static_cast<int>(std::lround(x * per_unit));
    const Node& node = nodes_[static_cast<std::size_t>(j - first_node)];
    const double h = x - static_cast<double>(j) / per_unit;  // exact: x and the node are close
    double c = 0, s = 0;
    for (int n = terms - 1; n >= 0; --n) {
      c = (c + node.coefficients[static_cast<std::size_t>(n)].real()) * h;
      s = (s + node.coefficients[static_cast<std::size_t>(n)].imag()) * h;
    }
    return {node.value.real() + c, node.value.imag() + s};
  }

 private:
  struct Node {
    std::complex<double> value;                            // (C + iS)(x₀)
    std::array<std::complex<double>, terms> coefficients;  // E(x₀) b_n / (n+1)
  };
  std::array<Node, last_node - first_node + 1> nodes_{};
};

// C + iS for x ≥ taylor_limit from the asymptotic expansion of erfc (the continued fraction's
// function): with θ = πx²/2 reduced exactly and u = 1/(πx²),
//   C + iS = (1+i)/2 − (i e^{iθ} / (πx)) Σ_m (−i)^m (2m−1)!! u^m.
// The terms fall by (2m−1)u each (u ≤ 0.005 here) until m ≈ πx²/2 ≥ 100, far beyond the 13 terms
// that reach 1e-17 at x = 8 (fewer above): within 1.1e-16 of the continued fraction on [8, 8·10⁵],
// without its 5 to 10 steps of two complex divisions.
Fresnel asymptotic(double x) {
  const double u = 1 / (std::numbers::pi * x * x);
  std::complex<double> sum = 1, term = 1;
  for (int m = 1; m < 40; ++m) {
    term = std::complex<double>(term.imag(), -term.real()) * ((2 * m - 1) * u);  // × (−i)(2m−1)u
    sum += term;
    if (std::abs(term.real()) + std::abs(term.imag()) < 1e-17) break;
  }
  const double theta = half_pi_x_squared(x);
  const std::complex<double> cs =
      std::complex<double>(0.5, 0.5) -
      std::complex<double>(-std::sin(theta), std::cos(theta)) * sum / (std::numbers::pi * x);
  return {cs.real(), cs.imag()};
}

}  // namespace

Fresnel fresnel(double x) noexcept {
  static const TaylorTable taylor;  // built once, on first use (thread-safe)
  const double ax = std::abs(x);
  Fresnel r = ax < series_limit ? series(ax) : ax < taylor_limit ? taylor(ax) : asymptotic(ax);
  if (x < 0) r = {-r.c, -r.s};
  return r;
}

}  // namespace astrosweep::fdas
