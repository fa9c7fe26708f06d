#pragma once
// Which correlation outputs a column of the power plane comes from (spec §5; docs/fdas.md,
// "Interbinning"). One rule for the CPU correlation (correlation.cpp) and both CUDA paths
// (kernels/fdas/correlation.cu's extract_power, correlation_fused.cu), through AS_HOST_DEVICE, so
// the CPU plane is the host twin of the kernels' per-column arithmetic.
//
// The plane has two columns per Fourier bin whatever the correlator's numbetween b, so that the
// harmonic sum, the candidates and polishing read one layout. With b = 2 column u of a segment is
// the kept output u, |A(k0 + u/2)|². With b = 1 the outputs are whole bins A_c: column 2c is
// |A_c|² and column 2c + 1 the interbin (π²/16)·|A_c − A_{c+1}|² (AstroAccelerate's approximation
// of the half-bin power, exact for a steady tone half-way between two bins). The last odd column
// of a segment reads the output after its last kept one, which the b = 1 layout keeps clean
// (CorrelationLayout::useful_outputs).

#include <cstddef>

#include "core/host_device.hpp"

namespace astrosweep::fdas::interbin {

/// π²/16: the interbin's scale, so that a tone half-way between two bins gets its whole power.
/// Written out: the CUDA sources are compiled as C++17, without <numbers> (test_interbin checks it).
inline constexpr double factor = 0.61685027506808491368;

/// The kept output (counted from the segment's first) that column u of a segment starts from.
AS_HOST_DEVICE constexpr std::size_t first_output(std::size_t u, std::size_t numbetween) {
  return numbetween == 1 ? u / 2 : u;
}

/// Whether column u is an interbin: |A_c − A_{c+1}|² scaled by `factor`, c = first_output(u).
AS_HOST_DEVICE constexpr bool interbinned(std::size_t u, std::size_t numbetween) {
  return numbetween == 1 && u % 2 == 1;
}

/// The float scale of an interbin column, from the plane's scale of a power.
inline float scaled(float scale) { return static_cast<float>(static_cast<double>(scale) * factor); }

}  // namespace astrosweep::fdas::interbin
