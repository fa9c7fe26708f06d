#include "response.hpp"

#include <array>
#include <cmath>
#include <numbers>

#include "fresnel.hpp"

namespace astrosweep::fdas {

namespace {

using Complex = std::complex<double>;

// 16-point Gauss–Legendre nodes and weights on [−1, 1] (positive half; symmetric).
constexpr std::array<double, 8> gl_x{0.0950125098376374, 0.2816035507792589, 0.4580167776572274, 0.6178762444026438,
                                     0.7554044083550030, 0.8656312023878318, 0.9445750230732326, 0.9894009349916499};
constexpr std::array<double, 8> gl_w{0.1894506104550685, 0.1826034150449236, 0.1691565193950025, 0.1495959888165767,
                                     0.1246289712555339, 0.0951585116824928, 0.0622535239386479, 0.0271524594117541};

// The integral itself, composite Gauss–Legendre with panels short enough for the phase's
// oscillation (about one panel per quarter turn): exact to rounding for the small drifts it serves.
Complex integrate(double delta, double z) {
  const double q = delta - z / 2;
  const double turns = std::abs(q) + std::abs(z) + 1;
  const int panels = static_cast<int>(std::ceil(4 * turns));
  const double h = 1.0 / panels;
  Complex sum = 0;
  for (int p = 0; p < panels; ++p) {
    const double mid = (p + 0.5) * h;
    for (std::size_t k = 0; k < gl_x.size(); ++k)
      for (double sign : {-1.0, 1.0}) {
        const double u = mid + sign * gl_x[k] * h / 2;
        const double phase = 2 * std::numbers::pi * (q * u + z / 2 * u * u);
        sum += gl_w[k] * Complex(std::cos(phase), std::sin(phase));
      }
  }
  return sum * (h / 2);
}

Complex fresnel_form(double delta, double z) {  // z > 0
  const double q = delta - z / 2;
  const double scale = std::sqrt(2 / z);
  const Fresnel f1 = fresnel(q * scale);
  const Fresnel f2 = fresnel((q + z) * scale);
  const double phase = -std::numbers::pi * q * q / z;
  return Complex(std::cos(phase), std::sin(phase)) / std::sqrt(2 * z) * Complex(f2.c - f1.c, f2.s - f1.s);
}

}  // namespace

std::complex<double> response(double delta, double z) {
  if (z == 0) {
    if (delta == 0) return 1.0;
    const double x = std::numbers::pi * delta;
    return Complex(std::cos(x), std::sin(x)) * (std::sin(x) / x);
  }
  if (std::abs(z) < small_drift) return integrate(delta, z);
  if (z < 0) return std::conj(fresnel_form(-delta, -z));
  return fresnel_form(delta, z);
}

int half_width(double z, Accuracy accuracy) noexcept {
  return static_cast<int>(std::floor(0.55 * std::abs(z))) + (accuracy == Accuracy::low ? 16 : 48);
}

}  // namespace astrosweep::fdas
