#include "sofia_parameter_file.hpp"

#include <algorithm>
#include <array>
#include <fstream>
#include <vector>

#include "core/error.hpp"
#include "core/option_file.hpp"
#include "core/text.hpp"
#include "sofia_defaults.hpp"

namespace astrosweep::scfind {

namespace {

// A line as it may be shown in a one-line message: damaged bytes as '?', at most 60 characters.
std::string shown(const std::string& text) {
  std::string out = text.substr(0, 60);
  for (char& c : out)
    if (c < 32 || c > 126) c = '?';
  return text.size() > 60 ? out + "..." : out;
}

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return {};
  const auto e = s.find_last_not_of(" \t\r");
  return s.substr(b, e - b + 1);
}

// Keys whose value is taken.
constexpr std::array used_keys{"input.data",
                               "scfind.enable",
                               "scfind.kernelsXY",
                               "scfind.kernelsZ",
                               "scfind.threshold",
                               "scfind.replacement",
                               "scfind.statistic",
                               "scfind.fluxRange",
                               "output.directory",
                               "output.filename",
                               "output.overwrite",
                               "output.writeRawMask",
                               "output.writeMask",
                               "output.writeMask2d",
                               "output.writeMoments",
                               "output.writeCubelets",
                               "output.marginCubelets",
                               "output.thresholdMom12",
                               "linker.enable",
                               "linker.radiusXY",
                               "linker.radiusZ",
                               "linker.minSizeXY",
                               "linker.minSizeZ",
                               "linker.maxSizeXY",
                               "linker.maxSizeZ",
                               "linker.minPixels",
                               "linker.maxPixels",
                               "linker.minFill",
                               "linker.maxFill",
                               "linker.positivity",
                               "linker.keepNegative",
                               "parameter.enable",
                               "parameter.wcs",
                               "parameter.physical",
                               "parameter.prefix",
                               "parameter.offset",
                               "output.writeCatASCII",
                               "output.writeCatXML",
                               "output.writeCatSQL",
                               "reliability.enable",
                               "reliability.parameters",
                               "reliability.threshold",
                               "reliability.scaleKernel",
                               "reliability.minSNR",
                               "reliability.minPixels",
                               "reliability.autoKernel",
                               "reliability.iterations",
                               "reliability.tolerance",
                               "reliability.catalog",
                               "reliability.plot",
                               "reliability.debug"};

// Keys that change nothing astrosweep does, whatever their value: messages (astrosweep has its own)
// and pedantry (astrosweep is always pedantic).
constexpr std::array moot_keys{"pipeline.verbose", "pipeline.pedantic"};

// Switches of steps before the S+C finder that change what it sees: refused when enabled.
constexpr std::array refused_when_true{"flag.auto",         "contsub.enable",      "scaleNoise.enable",
                                       "scaleNoise.scfind", "rippleFilter.enable", "input.invert",
                                       "threshold.enable"};

// Inputs that change what the S+C finder sees: refused when given.
constexpr std::array refused_when_set{"flag.region", "flag.catalog", "input.region",      "input.mask",
                                      "input.gain",  "input.noise",  "input.primaryBeam", "input.weights"};

template <std::size_t N>
bool listed(const std::array<const char*, N>& keys, const std::string& key) {
  return std::find(keys.begin(), keys.end(), key) != keys.end();
}

}  // namespace

SofiaParameterFile read_sofia_parameter_file(const std::string& path) {
  std::ifstream in = open_parameter_file(path, "a SoFiA-2 parameter file (key = value lines)",
                                         "check the path given to --par and that the file is readable");
  SofiaParameterFile file;
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    const std::string text = trim(line.substr(0, line.find('#')));
    if (text.empty()) continue;
    const auto eq = text.find('=');
    AS_EXPECTS(eq != std::string::npos, InputError,
               path + ":" + std::to_string(number) + ": expected 'key = value', found '" + shown(text) + "'",
               "SoFiA-2 parameter files have one 'key = value' per line; '#' starts a comment");
    const std::string key = trim(text.substr(0, eq));
    const std::string value = trim(text.substr(eq + 1));
    AS_EXPECTS(!key.empty(), InputError, path + ":" + std::to_string(number) + ": missing key before '='");
    const std::string at = path + ":" + std::to_string(number);
    if (!sofia_default(key)) {
      std::vector<std::string> known;
      for (const auto& d : sofia_defaults()) known.emplace_back(d.key);
      throw UsageError(at + ": unknown parameter '" + shown(key) + "'" + did_you_mean(key, known),
                       "astrosweep scfind reads SoFiA-2 v2.5 parameter files; docs/scfind.md lists the keys it uses");
    }
    file.written[key] = value;
    if (listed(used_keys, key)) {
      file.values[key] = value;
      file.where[key] = at;
    } else if (listed(refused_when_true, key)) {
      const bool off = value.empty() || value == "false";
      AS_EXPECTS(off, UsageError, at + ": " + key + " = " + value + " is not supported by astrosweep scfind",
                 "set it to false (astrosweep reproduces SoFiA-2's raw mask of the cube as given; run that step "
                 "beforehand)");
    } else if (listed(refused_when_set, key)) {
      AS_EXPECTS(value.empty(), UsageError, at + ": " + key + " is not supported by astrosweep scfind",
                 "leave it empty; cut or flag the cube beforehand");
    } else if (!listed(moot_keys, key) && !is_default_or_off(key, value)) {
      // Later stages (linker, reliability, parameterisation, other outputs) and pipeline.threads.
      file.not_implemented.push_back(key + " = " + shown(value) + " (" + at + ")");
    }
  }
  AS_EXPECTS(in.eof(), InputError, "error while reading parameter file '" + path + "'");
  return file;
}

}  // namespace astrosweep::scfind
