#pragma once
// Sub-sample reads of a complex SNR series (spec §9 `--subsample`): ζ at a fractional sample by a
// Kaiser-windowed sinc. The SNR series is band-limited by its sampling (its spectrum lies inside
// ±f_s/2, mostly on one side since z is nearly analytic), so the ideal interpolator is the sinc;
// the window truncates it to 2W taps. Linear interpolation of the complex values would shrink |ζ|
// by cos(π f δt/2)-like factors near merger, where the phase turns by up to π per sample;
// interpolating magnitude and unwrapped phase separately breaks near zeros of ζ. The error on a
// noise-free injection against the exactly delayed filter output is tested (test_coherent.cpp).
#include <complex>
#include <cstddef>
#include <cstdint>

namespace astrosweep::spiir {

/// W: taps either side of the fractional point (2W in all).
inline constexpr int interpolation_half_width = 8;
inline constexpr std::size_t interpolation_taps = 2 * interpolation_half_width;

/// The first tap of a read at `samples` (a fractional offset): ⌊samples⌋ − W + 1.
std::int32_t interpolation_first_tap(double samples);

/// The 2W weights of a read at fraction `fraction` (0 ≤ fraction < 1) past a sample n: tap j
/// multiplies sample n − W + 1 + j. At fraction 0 the weights are exactly 0 … 0, 1, 0 … 0.
void interpolation_weights(double fraction, double* weights);

/// ζ at fractional offset `samples` from `centre` (centre[⌊samples⌋ − W + 1 … ⌊samples⌋ + W] must
/// be readable), in double.
std::complex<double> interpolate_at(const std::complex<double>* centre, double samples);

}  // namespace astrosweep::spiir
