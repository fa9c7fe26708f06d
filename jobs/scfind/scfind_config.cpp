#include "scfind_config.hpp"

#include <algorithm>
#include <cmath>

#include "core/error.hpp"

namespace astrosweep::scfind {

const char* to_string(NoiseStatistic statistic) noexcept {
  switch (statistic) {
    case NoiseStatistic::std: return "std";
    case NoiseStatistic::mad: return "mad";
    case NoiseStatistic::gauss: return "gauss";
  }
  return "?";
}

const char* to_string(FluxRange range) noexcept {
  switch (range) {
    case FluxRange::negative: return "negative";
    case FluxRange::full: return "full";
    case FluxRange::positive: return "positive";
  }
  return "?";
}

NoiseStatistic parse_statistic(const std::string& name) {
  if (name == "std") return NoiseStatistic::std;
  if (name == "mad") return NoiseStatistic::mad;
  if (name == "gauss") return NoiseStatistic::gauss;
  throw UsageError("unknown noise statistic '" + name + "'", "scfind.statistic is one of std, mad, gauss");
}

FluxRange parse_flux_range(const std::string& name) {
  if (name == "negative") return FluxRange::negative;
  if (name == "full") return FluxRange::full;
  if (name == "positive") return FluxRange::positive;
  throw UsageError("unknown flux range '" + name + "'", "scfind.fluxRange is one of negative, full, positive");
}

void validate(ScfindParameters& p) {
  AS_EXPECTS(!p.kernels_xy.empty() && !p.kernels_z.empty(), UsageError,
             "scfind.kernelsXY and scfind.kernelsZ need at least one kernel each",
             "0 means no smoothing, e.g. scfind.kernelsXY = 0, 3, 6");
  for (double k : p.kernels_xy)
    AS_EXPECTS(std::isfinite(k) && k >= 0 && k <= 1000, UsageError,
               "spatial kernel FWHM " + std::to_string(k) + " is out of range",
               "scfind.kernelsXY takes FWHMs in pixels from 0 to 1000");
  for (std::size_t k : p.kernels_z)
    AS_EXPECTS(k <= 100000, UsageError, "spectral kernel width " + std::to_string(k) + " is out of range",
               "scfind.kernelsZ takes widths in channels");
  AS_EXPECTS(std::isfinite(p.threshold) && p.threshold > 0, UsageError, "scfind.threshold must be positive and finite");
  AS_EXPECTS(std::isfinite(p.replacement), UsageError, "scfind.replacement must be finite (negative disables it)");
  // SoFiA-2 sorts both lists so the smallest kernels run first (replacement chains the pairs).
  std::sort(p.kernels_xy.begin(), p.kernels_xy.end());
  std::sort(p.kernels_z.begin(), p.kernels_z.end());
}

}  // namespace astrosweep::scfind
