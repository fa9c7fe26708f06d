#pragma once
// Harmonic polishing of a candidate (spec §7, "Optimisation"): the (r, z) of the fundamental that
// maximises Σ_{h=1}^{H} |A(h·r, h·z)|², with A evaluated from the spectrum through the exact
// response, A(r, z) = Σ_k F_k · conj(R(r − k, z)) over the ±m(z) bins around r, in double.

#include <algorithm>
#include <cmath>
#include <complex>
#include <span>
#include <vector>

#include "response.hpp"

namespace astrosweep::fdas {

/// A(r, z) of `spectrum` at any (r, z): the correlation of the bins within ±m(z) of r with the
/// response (bins outside the spectrum count as zero).
std::complex<double> interpolate_amplitude(std::span<const std::complex<float>> spectrum, double r, double z,
                                           Accuracy accuracy = Accuracy::low);

/// interpolate_amplitude with the response R(δ) at the template's z taken from `response_at`
/// (a cache of it): the same bins, terms and order, hence the same bits when response_at(δ)
/// returns response(δ, z).
template <class ResponseAt>
std::complex<double> interpolate_amplitude_with(std::span<const std::complex<float>> spectrum, double r, double z,
                                                Accuracy accuracy, ResponseAt&& response_at) {
  const int m = half_width(z, accuracy);
  const auto first = static_cast<long long>(std::floor(r)) - m;
  const auto last = static_cast<long long>(std::ceil(r)) + m;
  std::complex<double> a = 0;
  for (long long k = std::max(0LL, first); k <= last && k < static_cast<long long>(spectrum.size()); ++k)
    a += std::complex<double>(spectrum[static_cast<std::size_t>(k)]) *
         std::conj(response_at(r - static_cast<double>(k)));
  return a;
}

struct PolishedHarmonic {
  double power;  ///< |A(h·r, h·z)|²
  double phase;  ///< arg A, radians
};

struct Polished {
  double r = 0;  ///< of the fundamental, bins
  double z = 0;
  double summed_power = 0;  ///< Σ_h power
  /// |Σ_h √P_h · e^{i(φ_h + φ₁ − (h·φ₁ mod 2π))}|² (spec §9): the harmonics added with the phases a
  /// pulse whose harmonics are phase-locked to the fundamental would have; (Σ_h √P_h)² when they are.
  double coherent_power = 0;
  std::vector<PolishedHarmonic> harmonics;  ///< h = 1 … H
};

/// Maximises the summed power of `numharm` harmonics from the candidate's (r, z) (Nelder–Mead in
/// double, simplex steps of half a bin and one z step, to 1e-5 bins). With `threads` > 1 the
/// harmonics of each step are interpolated in parallel (for a series with fewer candidates than
/// cores) and summed in order afterwards: the result is the same for any thread count.
Polished polish(std::span<const std::complex<float>> spectrum, double r, double z, int numharm,
                Accuracy accuracy = Accuracy::low, int threads = 1);

}  // namespace astrosweep::fdas
