#pragma once
// The template bank of the acceleration search (spec §3, §4): the drift grid, the widest
// template's half-width, and each template's taps g_z[j] = conj(R(j/b, z)), |j| ≤ b·m(z), laid out
// circularly in an FFT length L (tap j at index j mod L). Backends transform the taps themselves
// (correlation.hpp: transform_kernels; the CUDA correlator), so the bank is plain double data.

#include <complex>
#include <cstddef>
#include <vector>

#include "correlation.hpp"
#include "response.hpp"

namespace astrosweep::fdas {

/// z_j = −z_max + Δz·j, j = 0 … n_z − 1, Δz = 2 and z_max rounded up to a multiple of Δz.
struct DriftGrid {
  double z_max = 0;
  double dz = 2;
  std::size_t n_z = 1;
  [[nodiscard]] double z(std::size_t j) const noexcept { return -z_max + dz * static_cast<double>(j); }
};

/// Throws UsageError for a negative or non-finite z_max or one above PRESTO's limit of 1200.
DriftGrid make_drift_grid(double z_max);

struct TemplateBank {
  DriftGrid grid;
  CorrelationLayout layout;                             ///< L, the widest template's m, b
  std::vector<std::vector<std::complex<double>>> taps;  ///< per template, length L
};

/// The bank for `z_max` with interpolation factor `numbetween` (1 or 2) in segments of
/// `fft_length` (0: the default_fft_length for the widest template).
TemplateBank make_template_bank(double z_max, int numbetween, Accuracy accuracy, std::size_t fft_length = 0);

/// The segment length when none is asked for: the smallest power of two ≥ 2048 and ≥ 3·W (W =
/// 2·b·m(z_max), the kernel width), so that at least two thirds of every transform is kept.
std::size_t default_fft_length(std::size_t kernel_width) noexcept;

}  // namespace astrosweep::fdas
