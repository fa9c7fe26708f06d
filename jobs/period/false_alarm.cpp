#include "false_alarm.hpp"

#include <cmath>
#include <numbers>

namespace astrosweep::period {

namespace {
// sqrt(2/N) Gamma(N/2) / Gamma((N-1)/2), astropy's _gamma.
double gamma_factor(double n) { return std::sqrt(2.0 / n) * std::exp(std::lgamma(n / 2) - std::lgamma((n - 1) / 2)); }
}  // namespace

double false_alarm_baluev(double z, std::uint32_t n_points, double fmax, double t_variance,
                          Normalization normalization) {
  const double n = n_points;
  const double nh = n - 1;  // degrees of freedom of the null hypothesis
  const double nk = n - 3;  // ... and of the periodic model
  const double w = fmax * std::sqrt(4 * std::numbers::pi * t_variance);
  double fap_single = 0;
  double tau = 0;
  switch (normalization) {
    case Normalization::psd:
      fap_single = std::exp(-z);
      tau = w * std::exp(-z) * std::sqrt(z);
      break;
    case Normalization::standard:
      fap_single = std::pow(1 - z, 0.5 * nk);
      tau = gamma_factor(nh) * w * std::pow(1 - z, 0.5 * (nk - 1)) * std::sqrt(0.5 * nh * z);
      break;
    case Normalization::model:
      fap_single = std::pow(1 + z, -0.5 * nk);
      tau = gamma_factor(nk) * w * std::pow(1 + z, -0.5 * nk) * std::sqrt(0.5 * nk * z);
      break;
    case Normalization::log:
      fap_single = std::exp(-0.5 * nk * z);
      tau = gamma_factor(nk) * w * std::exp(-0.5 * z * (nk - 0.5)) * std::sqrt(nk * std::sinh(0.5 * z));
      break;
  }
  return -std::expm1(-tau) + fap_single * std::exp(-tau);
}

}  // namespace astrosweep::period
