#pragma once
// One object's light curve made ready for Lomb-Scargle: unusable points dropped and counted, times
// shifted to the middle of the baseline (so FP32 keeps its precision on JD/MJD/BJD times and
// phases stay small), data centred on the weighted mean, weights normalised to sum 1.

#include <cstdint>
#include <span>
#include <vector>

#include "period_config.hpp"

namespace astrosweep::period {

/// Fluxes or errors of extreme magnitude (outside 2^-64..2^64, e.g. 1e300) are scaled by an exact
/// power of two before use: y is then in those units, and psd_scale carries the factor back, so
/// every normalisation gives what unscaled arithmetic would have given without overflowing.
struct PreparedSeries {
  std::vector<double> t;  ///< t - t_ref
  std::vector<double> y;  ///< y - sum(w y) (scaled by a power of two if extreme)
  std::vector<double> w;  ///< normalised weights
  double t_ref = 0;
  double baseline = 0;
  double yy = 0;          ///< sum(w y^2) of the centred data
  double psd_scale = 0;   ///< sum(dy^-2) (N without errors), over the square of y's scale: psd normalisation
  double t_variance = 0;  ///< weighted variance of t (Baluev's effective baseline)
  std::uint32_t n_nonfinite = 0;
  std::uint32_t n_bad_errors = 0;
  std::uint32_t cleaned = cleaned_nothing;  ///< CleanedBits: what was dropped
  std::uint32_t status = status_ok;         ///< StatusBits: why there is no valid result

  [[nodiscard]] std::uint32_t n_used() const noexcept { return static_cast<std::uint32_t>(t.size()); }
  [[nodiscard]] bool computable() const noexcept { return (status & status_not_computed) == 0; }
};

/// dy may be empty; it is used only by the generalized model.
PreparedSeries prepare_series(std::span<const double> t, std::span<const double> y, std::span<const double> dy,
                              Model model);

}  // namespace astrosweep::period
