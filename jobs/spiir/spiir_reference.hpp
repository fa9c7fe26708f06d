#pragma once
// The oracles of the tests (spec §11): the direct complex-double recurrence of spec §2, one filter
// at a time, and an FFT matched filter, the "true" SNR the IIR bank approximates.

#include <complex>
#include <span>
#include <vector>

#include "iir_coefficients.hpp"

namespace astrosweep::spiir {

/// z[n] = Σ_l y_l[n], y_l[n] = a1_l y_l[n−1] + b0_l x[n − d_l], states from zero, x[n < 0] = 0.
std::vector<std::complex<double>> iir_filter_reference(std::span<const IirFilter> filters, std::span<const double> x);

/// z[n] = Σ_s h[s] x[n − N + 1 + s] (x outside its range taken as 0), by FFT correlation.
std::vector<std::complex<double>> matched_filter_fft(std::span<const std::complex<double>> h,
                                                     std::span<const double> x);

}  // namespace astrosweep::spiir
