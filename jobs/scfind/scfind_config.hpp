#pragma once
// Parameters of the scfind job under SoFiA-2's names and defaults (scfind.kernelsXY, ...), read
// from the command line or a SoFiA-2 parameter file.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace astrosweep::scfind {

enum class NoiseStatistic { std, mad, gauss };
enum class FluxRange { negative, full, positive };

[[nodiscard]] const char* to_string(NoiseStatistic statistic) noexcept;
[[nodiscard]] const char* to_string(FluxRange range) noexcept;
NoiseStatistic parse_statistic(const std::string& name);  ///< throws UsageError
FluxRange parse_flux_range(const std::string& name);      ///< throws UsageError

/// What SoFiA-2 calls the S+C finder's parameters; defaults are SoFiA-2 v2.5's.
struct ScfindParameters {
  std::vector<double> kernels_xy{0, 3, 6};          ///< spatial Gaussian FWHM in pixels; 0: none
  std::vector<std::size_t> kernels_z{0, 3, 7, 15};  ///< spectral boxcar widths in channels; 0: none
  double threshold = 5.0;                           ///< in multiples of the noise
  double replacement = 2.0;                         ///< < 0 disables replacement
  NoiseStatistic statistic = NoiseStatistic::mad;
  FluxRange flux_range = FluxRange::negative;
};

/// Checks values and sorts both kernel lists ascending (SoFiA-2 does); throws UsageError.
void validate(ScfindParameters& parameters);

}  // namespace astrosweep::scfind
