#pragma once
// Chooses the one frequency grid of a run: explicit (fmin, fmax, N_f), a period range, or
// astropy's autofrequency rules applied to the catalog's baselines.

#include <cstdint>
#include <optional>

#include "io/light_curves.hpp"
#include "period_config.hpp"

namespace astrosweep::period {

struct GridRequest {
  std::optional<double> fmin, fmax;  ///< cyclic frequency, 1/day
  std::optional<double> pmin, pmax;  ///< period, days (alternative to fmin/fmax)
  std::optional<std::int64_t> n_freq;
  double samples_per_peak = 5;
  double nyquist_factor = 5;
};

/// With n_freq: f_k = fmin + k (fmax - fmin) / n_freq, k < n_freq (fmax excluded, as in
/// gpu_lomb_scargle). Without: astropy's autofrequency with the longest baseline of the catalog
/// and the median average Nyquist frequency of its objects; fmin/fmax, when given, override the
/// automatic limits. Throws UsageError for inconsistent requests, InputError when the catalog's
/// times would make an automatic grid longer than max_automatic_frequencies.
FrequencyGrid make_frequency_grid(const GridRequest& request, const io::CatalogIndex& index);

/// 2^32: far above the grids of real surveys (a Kepler short-cadence light curve asks for ~2e7).
inline constexpr double max_automatic_frequencies = 0x1p32;

}  // namespace astrosweep::period
