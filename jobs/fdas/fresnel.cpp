#include "fresnel.hpp"

#include <algorithm>
#include <cmath>
#include <complex>
#include <numbers>

namespace astrosweep::fdas {

namespace {

// Below this the power series is used: its terms grow to about 10 there (πx²/2 ≈ 4), so
// cancellation costs at most two digits; above it the continued fraction converges in under
// ~120 steps.
constexpr double series_limit = 1.6;

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

// |c| < bound, decided as std::abs(c) < bound decides it but without its hypot (which polishing
// would otherwise spend half its time in) wherever the squared modulus settles it: the squares
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

}  // namespace

Fresnel fresnel(double x) noexcept {
  const double ax = std::abs(x);
  Fresnel r = ax < series_limit ? series(ax) : continued_fraction(ax);
  if (x < 0) r = {-r.c, -r.s};
  return r;
}

}  // namespace astrosweep::fdas
