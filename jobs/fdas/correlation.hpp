#pragma once
// The overlap-save correlation of a spectrum with the template bank (docs/fdas.md; spec §4, §5):
// the CPU (FFTW + OpenMP) computation of the power plane P(r, z) = |A(r, z)|², and the FP64
// pipeline the FP32 backends are compared with (spec §12).
//
// Geometry: a segment's input is the spectrum spread by b (s[b·k] = F[k0 + k], zeros between),
// L samples long. The correlation output at index p is A = Σ_q s[q] g_z[p − q] with the template's
// taps g_z[j] = conj(R(j/b, z)) for |j| ≤ b·m (m the widest template's half-width), so outputs
// p = b·m … b·m + U − 1 see only the segment's own input: those U are kept, at r = k0 + m + j/b.
// Consecutive segments step by U/b bins. b = 2: U = L − 4m (even). b = 1: U = L − 2m − 1, one
// output fewer than the input allows, so that output b·m + U is clean too: the neighbour of the
// last kept output, which the last interbin of the segment reads (interbin.hpp). Either way the
// plane has two columns per bin, 2·U/b a segment. Where the runs of segments start is the grid's
// (segment_grid.hpp).

#include <complex>
#include <cstddef>
#include <span>
#include <vector>

namespace astrosweep::fdas {

struct SegmentGrid;  // segment_grid.hpp

/// Where the correlation's segments lie (from the template bank's plan).
struct CorrelationLayout {
  std::size_t fft_length = 0;  ///< L
  std::size_t half_width = 0;  ///< m: bins on each side of the widest template
  int numbetween = 2;          ///< b: outputs per bin (2: half bins, exact interpolation)

  /// U: the outputs each segment keeps. b = 2: L − 4m rounded down to even (PRESTO's). b = 1:
  /// L − 2m − 1, so that each segment also computes, clean of the wrap-around, the output after its
  /// last kept one (the last interbin's neighbour) instead of taking it from the next segment.
  [[nodiscard]] std::size_t useful_outputs() const noexcept;
  /// The bins a segment advances by (U / b).
  [[nodiscard]] std::size_t step_bins() const noexcept {
    return useful_outputs() / static_cast<std::size_t>(numbetween);
  }
  /// The plane columns (half bins) a segment fills: 2·U/b (U for b = 2; U powers and U interbins
  /// for b = 1).
  [[nodiscard]] std::size_t segment_columns() const noexcept { return 2 * step_bins(); }
  /// The bins a segment reads: those k with b·k < L.
  [[nodiscard]] std::size_t input_bins() const noexcept {
    return (fft_length - 1) / static_cast<std::size_t>(numbetween) + 1;
  }
  /// Throws UsageError when L is too short for the templates (no useful output).
  void check() const;
};

/// The forward (unnormalised) FFTs of the templates' circular taps: one row of L per template.
template <class Real>
struct KernelSpectra {
  std::size_t fft_length = 0;
  std::size_t n_templates = 0;
  std::vector<std::complex<Real>> values;  ///< n_templates × L, template-major
  [[nodiscard]] std::span<const std::complex<Real>> row(std::size_t t) const {
    return {values.data() + t * fft_length, fft_length};
  }
};

/// FFTs of `taps` (each of length L, tap j at index j mod L, as the template bank lays them out).
template <class Real>
KernelSpectra<Real> transform_kernels(const std::vector<std::vector<std::complex<double>>>& taps,
                                      std::size_t fft_length);

/// The power plane: float32, z-major (row per template, columns r contiguous, spec §5). Column i
/// is at r = first_bin + i / 2, half bins for either numbetween of the correlation (with b = 1 the
/// odd columns are interbins, interbin.hpp).
struct PowerPlane {
  std::size_t n_z = 0;
  std::size_t n_r = 0;        ///< columns
  std::size_t first_bin = 0;  ///< r of column 0
  int numbetween = 2;         ///< columns per bin (2 for either correlation)
  std::vector<float> power;   ///< n_z × n_r
  [[nodiscard]] float at(std::size_t z, std::size_t i) const { return power[z * n_r + i]; }
  [[nodiscard]] double r_of(std::size_t i) const {
    return static_cast<double>(first_bin) + static_cast<double>(i) / numbetween;
  }
};

struct CorrelationOptions {
  bool block_normalise = true;  ///< scale each segment's input by 1/√(median |F|² / ln 2) (PRESTO)
  int threads = 0;              ///< OpenMP threads (0: the runtime's default)
};

/// The plane of `grid` (bins [plane_lo, plane_hi)) from `spectrum` (bins outside the spectrum read
/// as zero), each run's segments as segment_grid.hpp lays them, with FFTs in `Real` precision
/// (float: the CPU backend; double: the FP64 pipeline). Power is |A|² with A the correlation
/// divided by L (FFTW's transforms are unnormalised); with layout.numbetween 1 the odd columns are
/// interbins (π²/16)·|A_k − A_{k+1}|², a run's last one's A_k+1 computed too (each bin gives two
/// columns either way); columns of no run are zero.
template <class Real>
PowerPlane correlate(std::span<const std::complex<float>> spectrum, const KernelSpectra<Real>& kernels,
                     const CorrelationLayout& layout, const SegmentGrid& grid, const CorrelationOptions& options = {});

/// The plane for bins [r_lo, r_hi), its segments from r_lo (uniform_segment_grid).
template <class Real>
PowerPlane correlate(std::span<const std::complex<float>> spectrum, const KernelSpectra<Real>& kernels,
                     const CorrelationLayout& layout, std::size_t r_lo, std::size_t r_hi,
                     const CorrelationOptions& options = {});

/// The factor that block normalisation applies to a segment's bins: 1/√(median(|F|²)/ln 2) with
/// PRESTO's median (block_median) over all of them, the zeros a segment reads before bin 0 or past the spectrum's
/// end included, as PRESTO's accelsearch counts them; 1 when the median is zero (a segment of
/// zeros stays zero).
float block_normalisation(std::span<const std::complex<float>> bins);

}  // namespace astrosweep::fdas
