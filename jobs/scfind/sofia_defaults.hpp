#pragma once
// Every parameter SoFiA-2 v2.5.1 knows, with its default (SoFiA-2's Parameter_default in
// src/Parameter.c, the list its default_parameters.par documents): what a parameter file may name.
// A name not here is a mistake (SoFiA-2 itself refuses unknown names under its default
// pipeline.pedantic = true).

#include <optional>
#include <string>
#include <vector>

namespace astrosweep::scfind {

struct SofiaDefault {
  const char* key;
  const char* value;
};

/// The keys in SoFiA-2's order (by stage: pipeline, input, flag, contsub, scaleNoise, rippleFilter,
/// scfind, threshold, linker, reliability, dilation, parameter, output).
const std::vector<SofiaDefault>& sofia_defaults();

/// The default of `key`; nothing when SoFiA-2 has no such parameter.
std::optional<std::string> sofia_default(const std::string& key);

/// Whether `value` leaves `key`'s stage as SoFiA-2 runs it by default: the default itself (numbers
/// and lists compared as numbers, so 5 is 5.0 and "0,3" is "0, 3"), or off (false, or empty).
bool is_default_or_off(const std::string& key, const std::string& value);

}  // namespace astrosweep::scfind
