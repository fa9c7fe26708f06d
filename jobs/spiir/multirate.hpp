#pragma once
// The multi-rate structure of a SPIIR bank (spec §4): the decimation factor of each filter and
// its coefficients at the lower rate. A filter run at f_s/M on input decimated by M (with the
// decimator's √2 gain per halving) responds at its lag m' as √M times the top-rate filter at lag
// M·m'; the one-time shift d'·M − d ≥ 1 keeps the delay a whole number of low-rate samples.

#include <complex>

#include "iir_coefficients.hpp"

namespace astrosweep::spiir {

/// The largest factor a bank may use: 2^⌊log₂(f_s / f_low)⌋, and at most 2^(n_rates − 1).
int max_decimation(double sample_rate, double f_low, int n_rates);

/// M = max(1, 2^{−⌈log₂(2 · padding · f)⌉}), f = |arg a1| / 2π cycles per top-rate sample, capped
/// at `max_factor` (a power of two); a filter of frequency 0 gets the cap.
int decimation_factor(std::complex<double> a1, double padding, int max_factor);

/// The filter at f_s / M: a1' = a1^M, d' = ⌈(d + 1)/M⌉, b0' = b0 · √M · a1^{d'·M − d}.
IirFilter at_rate(const IirFilter& filter, int factor);

}  // namespace astrosweep::spiir
