#include "physics.hpp"

#include <cmath>

#include "core/error.hpp"

namespace astrosweep::fdas {

PhysicalCandidate to_physical(double r, double z, int numharm, double span_s) {
  AS_EXPECTS(r > 0 && span_s > 0 && numharm >= 1, UsageError, "physical values need r > 0, T > 0 and H >= 1");
  PhysicalCandidate p{};
  const double T = span_s;
  p.r_err = 0.5 / numharm;
  p.z_err = 2.0 / numharm;
  p.frequency_hz = r / T;
  p.frequency_err_hz = p.r_err / T;
  p.fdot_hz_s = z / (T * T);
  p.fdot_err_hz_s = p.z_err / (T * T);
  p.period_s = T / r;
  p.period_err_s = T * p.r_err / (r * r);  // |dP/dr| · r_err
  p.pdot = -z / (r * r);
  // Ṗ = −z/r²: first-order propagation of both errors.
  p.pdot_err = std::sqrt(std::pow(p.z_err / (r * r), 2) + std::pow(2 * z * p.r_err / (r * r * r), 2));
  p.accel_m_s2 = z * speed_of_light / (p.frequency_hz * T * T);
  p.accel_err_m_s2 = p.z_err * speed_of_light / (p.frequency_hz * T * T);
  return p;
}

}  // namespace astrosweep::fdas
