#pragma once
// The exact Fourier response of a signal whose frequency drifts linearly (spec §3):
//   R(δ, z) = ∫₀¹ exp(2πi [(δ − z/2) u + (z/2) u²]) du,
// δ the distance in bins from the signal's mean frequency r, z its drift in bins over the
// observation. A signal's amplitudes are F_k ≈ (N a / 2) e^{iφ} R(r − k, z); Σ_k |R(r − k, z)|² = 1.

#include <complex>

namespace astrosweep::fdas {

/// R(δ, z): through the Fresnel integrals for |z| ≥ small_drift, by quadrature below (where the
/// Fresnel form would subtract nearly equal values), the sinc form at z = 0.
std::complex<double> response(double delta, double z);

/// Below this |z| the response is integrated numerically (its Fresnel arguments exceed 1e2·|δ|
/// and their difference loses digits).
inline constexpr double small_drift = 1e-2;

/// How many bins on each side of r a template with drift z spans (PRESTO's half-width).
enum class Accuracy { low, high };
int half_width(double z, Accuracy accuracy = Accuracy::low) noexcept;

}  // namespace astrosweep::fdas
