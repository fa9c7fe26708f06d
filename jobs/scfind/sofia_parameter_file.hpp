#pragma once
// SoFiA-2 parameter files ("key = value" lines, '#' comments) for the scfind job: the keys that
// define the raw mask are taken; keys that would change the raw mask in ways astrosweep does not
// implement are refused; other SoFiA-2 keys (later stages) set to anything but their default or
// off are listed for a warning; a key SoFiA-2 does not have is an error naming the nearest one.

#include <map>
#include <string>
#include <vector>

namespace astrosweep::scfind {

struct SofiaParameterFile {
  std::map<std::string, std::string> values;   ///< keys astrosweep uses, as written
  std::map<std::string, std::string> where;    ///< "FILE:LINE" of each value, for messages about it
  std::map<std::string, std::string> written;  ///< every key the file sets, its value as written (the VOTable's list)
  /// "key = value (FILE:LINE)" of SoFiA-2 settings scfind does not implement (later stages) whose
  /// value is neither the default nor off, for one warning to the user
  std::vector<std::string> not_implemented;
};

/// Throws InputError (unreadable, malformed line naming file:line) or UsageError naming file:line
/// (a key SoFiA-2 v2.5 does not have, with the nearest one it has; an unsupported setting, with
/// what to do).
SofiaParameterFile read_sofia_parameter_file(const std::string& path);

}  // namespace astrosweep::scfind
