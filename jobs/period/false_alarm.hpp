#pragma once
// False-alarm probability of the highest peak: Baluev (2008), as astropy's method="baluev"
// (alias-free upper bound with dH = 1, dK = 3: centred data, one harmonic).

#include <cstdint>

#include "period_config.hpp"

namespace astrosweep::period {

/// z: peak power in `normalization`; n: points used; fmax: highest grid frequency (1/day);
/// t_variance: weighted variance of the times (as astropy's _weighted_var(t, dy)).
double false_alarm_baluev(double z, std::uint32_t n, double fmax, double t_variance, Normalization normalization);

}  // namespace astrosweep::period
