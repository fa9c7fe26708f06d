#pragma once
// One complex transform in double precision (FFTW, planned under the process's planner lock), for
// the template generation, the autocorrelations and the FFT matched filter of the tests.

#include <complex>
#include <cstdint>
#include <vector>

namespace astrosweep::spiir {

enum class FftDirection { forward, backward };  ///< e^{−2πikn/N}, e^{+2πikn/N}; unnormalised

/// Transforms `data` in place.
void fft_in_place(std::vector<std::complex<double>>& data, FftDirection direction);

/// The smallest power of two ≥ n.
std::uint64_t next_power_of_two(std::uint64_t n);

}  // namespace astrosweep::spiir
