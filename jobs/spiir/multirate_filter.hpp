#pragma once
// Multi-rate filtering of a whole series (spec §4): the input halved level by level by a 2×
// decimator (Kaiser-windowed sinc half-band low-pass, gain √2 so the noise variance per sample
// stays 1), each level filtered by its rate's sub-bank, and the outputs interpolated 2× (same
// filter, amplitude preserving) and summed from the lowest rate up to the top. The FIRs are
// applied centred (zero phase), so no group delay needs compensating; this holds the whole series
// in memory: a streaming form with causal FIRs and compensated delays is still to come.

#include <complex>
#include <functional>
#include <memory>
#include <span>
#include <vector>

#include "spiir_backend.hpp"
#include "spiir_bank.hpp"

namespace astrosweep::spiir {

/// Half-band low-pass taps h[−K … K] (cutoff a quarter of the input rate, DC gain 1):
/// h[k] = ½ sinc(k/2) · Kaiser(β).
std::vector<double> halfband_taps(int half_length = 32, double beta = 8.0);

/// Low-pass and keep every second sample (n' ↔ 2n'), times √2: ⌈x.size()/2⌉ samples.
std::vector<double> decimate2(std::span<const double> x, const std::vector<double>& taps);

/// Zero-stuff to n_out samples (z[n'] at 2n') and low-pass with gain 2: amplitude preserving.
std::vector<std::complex<double>> interpolate2(std::span<const std::complex<double>> z, std::size_t n_out,
                                               const std::vector<double>& taps);

using BackendMaker = std::function<std::unique_ptr<SpiirBackend>(const RateBank&)>;

/// Every template's SNR at the top rate, template-major (n_templates × x.size()), for a bank of
/// any number of rates; `make` gives each rate's backend.
std::vector<std::complex<double>> multirate_filter(const SpiirBank& bank, std::span<const double> x,
                                                   const BackendMaker& make);

}  // namespace astrosweep::spiir
