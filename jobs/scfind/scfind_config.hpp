#pragma once
// Parameters of the scfind job under SoFiA-2's names and defaults (scfind.kernelsXY, ...), read
// from the command line or a SoFiA-2 parameter file.

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
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

/// A SoFiA-2 key of the S+C finder: how the parameter file, the command line and the product's
/// attributes spell it, and its help text with SoFiA-2's default.
struct ParameterKey {
  const char* key;
  const char* help;
};
extern const std::array<ParameterKey, 6> parameter_keys;

/// The parameters from SoFiA-2 "key = value" text (a parameter file's values with the command
/// line's on top), validated; keys other than scfind.* are not looked at. Throws UsageError naming
/// the key.
ScfindParameters parameters_from_text(const std::map<std::string, std::string>& values);

/// The parameters as that text again, one pair per key of parameter_keys: numbers to 17 digits, so
/// equal text means equal values (the product's attributes and its fingerprint).
std::vector<std::pair<std::string, std::string>> parameters_as_text(const ScfindParameters& parameters);

}  // namespace astrosweep::scfind
