#pragma once
// SoFiA-2 parameter files ("key = value" lines, '#' comments) for the scfind job: the keys that
// define the raw mask are taken; keys of later SoFiA-2 stages are reported as ignored; keys that
// would change the raw mask in ways astrosweep does not implement are refused.

#include <map>
#include <string>
#include <vector>

namespace astrosweep::scfind {

struct SofiaParameterFile {
  std::map<std::string, std::string> values;  ///< keys astrosweep uses, as written
  std::map<std::string, std::string> where;   ///< "FILE:LINE" of each value, for messages about it
  std::vector<std::string> ignored;           ///< keys of later stages, for one note to the user
};

/// Throws InputError (unreadable, malformed line naming file:line) or UsageError (an unsupported
/// setting, naming the key and what to do).
SofiaParameterFile read_sofia_parameter_file(const std::string& path);

}  // namespace astrosweep::scfind
