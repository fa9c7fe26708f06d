#include "sofia_defaults.hpp"

#include <sstream>

#include "core/text.hpp"

namespace astrosweep::scfind {

const std::vector<SofiaDefault>& sofia_defaults() {
  static const std::vector<SofiaDefault> table{
      {"pipeline.verbose", "false"},
      {"pipeline.pedantic", "true"},
      {"pipeline.threads", "0"},
      {"input.data", ""},
      {"input.region", ""},
      {"input.gain", ""},
      {"input.noise", ""},
      {"input.weights", ""},
      {"input.primaryBeam", ""},  // SoFiA-2 v2.6; astrosweep refused it before and still does when set
      {"input.mask", ""},
      {"input.invert", "false"},
      {"flag.region", ""},
      {"flag.catalog", ""},
      {"flag.radius", "5"},
      {"flag.auto", "false"},
      {"flag.threshold", "5.0"},
      {"flag.log", "false"},
      {"contsub.enable", "false"},
      {"contsub.order", "0"},
      {"contsub.threshold", "2.0"},
      {"contsub.shift", "4"},
      {"contsub.padding", "3"},
      {"scaleNoise.enable", "false"},
      {"scaleNoise.mode", "spectral"},
      {"scaleNoise.statistic", "mad"},
      {"scaleNoise.fluxRange", "negative"},
      {"scaleNoise.windowXY", "25"},
      {"scaleNoise.windowZ", "15"},
      {"scaleNoise.gridXY", "0"},
      {"scaleNoise.gridZ", "0"},
      {"scaleNoise.interpolate", "false"},
      {"scaleNoise.scfind", "false"},
      {"rippleFilter.enable", "false"},
      {"rippleFilter.statistic", "median"},
      {"rippleFilter.windowXY", "31"},
      {"rippleFilter.windowZ", "15"},
      {"rippleFilter.gridXY", "0"},
      {"rippleFilter.gridZ", "0"},
      {"rippleFilter.interpolate", "false"},
      {"scfind.enable", "true"},
      {"scfind.kernelsXY", "0, 3, 6"},
      {"scfind.kernelsZ", "0, 3, 7, 15"},
      {"scfind.threshold", "5.0"},
      {"scfind.replacement", "2.0"},
      {"scfind.statistic", "mad"},
      {"scfind.fluxRange", "negative"},
      {"threshold.enable", "false"},
      {"threshold.threshold", "5.0"},
      {"threshold.mode", "relative"},
      {"threshold.statistic", "mad"},
      {"threshold.fluxRange", "negative"},
      {"linker.enable", "true"},
      {"linker.radiusXY", "1"},
      {"linker.radiusZ", "1"},
      {"linker.minSizeXY", "5"},
      {"linker.minSizeZ", "5"},
      {"linker.maxSizeXY", "0"},
      {"linker.maxSizeZ", "0"},
      {"linker.minPixels", "0"},
      {"linker.maxPixels", "0"},
      {"linker.minFill", "0.0"},
      {"linker.maxFill", "0.0"},
      {"linker.positivity", "false"},
      {"linker.keepNegative", "false"},
      {"reliability.enable", "false"},
      {"reliability.parameters", "peak, sum, mean"},
      {"reliability.threshold", "0.9"},
      {"reliability.scaleKernel", "0.4"},
      {"reliability.minSNR", "3.0"},
      {"reliability.minPixels", "0"},
      {"reliability.autoKernel", "false"},
      {"reliability.iterations", "30"},
      {"reliability.tolerance", "0.05"},
      {"reliability.catalog", ""},
      {"reliability.plot", "true"},
      {"reliability.debug", "false"},
      {"dilation.enable", "false"},
      {"dilation.iterationsXY", "10"},
      {"dilation.iterationsZ", "5"},
      {"dilation.threshold", "0.001"},
      {"parameter.enable", "true"},
      {"parameter.wcs", "true"},
      {"parameter.physical", "false"},
      {"parameter.prefix", "SoFiA"},
      {"parameter.offset", "false"},
      {"output.directory", ""},
      {"output.filename", ""},
      {"output.writeCatASCII", "true"},
      {"output.writeCatXML", "true"},
      {"output.writeCatSQL", "false"},
      {"output.writeNoise", "false"},
      {"output.writeFiltered", "false"},
      {"output.writeMask", "false"},
      {"output.writeMask2d", "false"},
      {"output.writeRawMask", "false"},
      {"output.writeMoments", "false"},
      {"output.writeCubelets", "false"},
      {"output.marginCubelets", "10"},
      {"output.thresholdMom12", "0.0"},
      {"output.overwrite", "true"},
  };
  return table;
}

std::optional<std::string> sofia_default(const std::string& key) {
  for (const auto& d : sofia_defaults())
    if (key == d.key) return std::string(d.value);
  return std::nullopt;
}

namespace {

// The comma-separated items of `text`, each trimmed.
std::vector<std::string> items(const std::string& text) {
  std::vector<std::string> out;
  std::string item;
  std::istringstream in(text);
  while (std::getline(in, item, ',')) {
    const auto b = item.find_first_not_of(" \t");
    const auto e = item.find_last_not_of(" \t");
    out.push_back(b == std::string::npos ? std::string{} : item.substr(b, e - b + 1));
  }
  return out;
}

bool same_item(const std::string& a, const std::string& b) {
  if (a == b) return true;
  const auto x = parse_number(a);
  const auto y = parse_number(b);
  return x && y && *x == *y;
}

}  // namespace

bool is_default_or_off(const std::string& key, const std::string& value) {
  if (value.empty() || value == "false") return true;
  const auto fallback = sofia_default(key);
  if (!fallback) return false;
  const auto given = items(value);
  const auto expected = items(*fallback);
  if (given.size() != expected.size()) return false;
  for (std::size_t i = 0; i < given.size(); ++i)
    if (!same_item(given[i], expected[i])) return false;
  return true;
}

}  // namespace astrosweep::scfind
