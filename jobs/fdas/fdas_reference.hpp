#pragma once
// The double-precision reference of the acceleration search (spec §11): the chirp DFT evaluated
// directly, without FFTs, templates or kernel truncation,
//   A_ref(r, z) = Σ_{n<N} x_n · exp(−2πi [(r − z/2)(n/N) + (z/2)(n/N)²]),
// and P_ref = |A_ref|² / (N σ²) for white input of variance σ². O(N) per cell: the oracle for
// N = 2¹⁴–2¹⁶ over whole grids and for chosen cells of longer series.

#include <complex>
#include <span>
#include <vector>

namespace astrosweep::fdas {

/// A_ref(r, z) of the series x (N = x.size()).
std::complex<double> chirp_dft(std::span<const float> x, double r, double z);

struct ReferenceCell {
  double r;
  double z;
};

/// P_ref at each cell (OpenMP over cells).
std::vector<double> chirp_dft_power(std::span<const float> x, std::span<const ReferenceCell> cells, double variance);

}  // namespace astrosweep::fdas
