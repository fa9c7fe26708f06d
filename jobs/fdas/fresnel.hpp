#pragma once
// The Fresnel integrals C(x) = ∫₀ˣ cos(πt²/2) dt and S(x) = ∫₀ˣ sin(πt²/2) dt in double, to about
// 1e-15 absolute for |x| ≤ 1e6 (the template bank's exact response, spec §3, needs ≤ 1e-10).

namespace astrosweep::fdas {

struct Fresnel {
  double c;
  double s;
};

/// C(x) and S(x); odd in x.
Fresnel fresnel(double x) noexcept;

}  // namespace astrosweep::fdas
