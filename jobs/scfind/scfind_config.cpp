#include "scfind_config.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <type_traits>

#include "core/error.hpp"
#include "core/text.hpp"

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

const std::array<ParameterKey, 6> parameter_keys{{
    {"scfind.kernelsXY", "spatial Gaussian FWHMs in pixels [0, 3, 6]"},
    {"scfind.kernelsZ", "spectral boxcar widths in channels [0, 3, 7, 15]"},
    {"scfind.threshold", "clip level in multiples of the noise [5.0]"},
    {"scfind.replacement", "replacement of detected voxels in noise units; < 0: off [2.0]"},
    {"scfind.statistic", "std, mad or gauss [mad]"},
    {"scfind.fluxRange", "negative, positive or full [negative]"},
}};

namespace {

double parse_number(const std::string& key, const std::string& text) {
  const std::optional<double> value = astrosweep::parse_number(text);
  AS_EXPECTS(value.has_value(), UsageError, key + ": '" + text + "' is not a number",
             "write a decimal number, e.g. 5 or 2.5e-3");
  return *value;
}

template <class T>
std::vector<T> parse_list(const std::string& key, const std::string& text) {
  std::vector<T> out;
  std::string item;
  std::istringstream in(text);
  while (std::getline(in, item, ',')) {
    const double value = parse_number(key, item);
    if constexpr (std::is_integral_v<T>) {
      AS_EXPECTS(value >= 0 && value < 1e9 && value == static_cast<double>(static_cast<T>(value)), UsageError,
                 key + ": '" + item + "' is not a whole number of channels");
    }
    out.push_back(static_cast<T>(value));
  }
  return out;
}

std::string number_text(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.17g", v);  // round-trips: equal text, equal bits
  return text;
}

template <class T>
std::string list_text(const std::vector<T>& values) {
  std::string text;
  for (const T& v : values) {
    if (!text.empty()) text.push_back(',');
    text.append(number_text(static_cast<double>(v)));
  }
  return text;
}

}  // namespace

ScfindParameters parameters_from_text(const std::map<std::string, std::string>& values) {
  // The keys in parameter_keys' order.
  const auto& [kernels_xy, kernels_z, threshold, replacement, statistic, flux_range] = parameter_keys;
  ScfindParameters p;
  auto given = [&](const ParameterKey& k) -> const std::string* {
    const auto it = values.find(k.key);
    return it == values.end() ? nullptr : &it->second;
  };
  if (auto* text = given(kernels_xy)) p.kernels_xy = parse_list<double>(kernels_xy.key, *text);
  if (auto* text = given(kernels_z)) p.kernels_z = parse_list<std::size_t>(kernels_z.key, *text);
  if (auto* text = given(threshold)) p.threshold = parse_number(threshold.key, *text);
  if (auto* text = given(replacement)) p.replacement = parse_number(replacement.key, *text);
  if (auto* text = given(statistic)) p.statistic = parse_statistic(*text);
  if (auto* text = given(flux_range)) p.flux_range = parse_flux_range(*text);
  validate(p);
  return p;
}

std::vector<std::pair<std::string, std::string>> parameters_as_text(const ScfindParameters& p) {
  const std::array<std::string, parameter_keys.size()> text{list_text(p.kernels_xy),  list_text(p.kernels_z),
                                                            number_text(p.threshold), number_text(p.replacement),
                                                            to_string(p.statistic),   to_string(p.flux_range)};
  std::vector<std::pair<std::string, std::string>> out;
  for (std::size_t i = 0; i < parameter_keys.size(); ++i) out.emplace_back(parameter_keys[i].key, text[i]);
  return out;
}

}  // namespace astrosweep::scfind
