#pragma once
#include <string>

namespace astrosweep::io {

/// Checks before any work starts that `path` can become an output: not a directory, absent or
/// `overwrite`, in an existing writable directory. Throws UsageError/OutputError naming `option`.
void check_output_path(const std::string& path, bool overwrite, const std::string& option = "--output");

}  // namespace astrosweep::io
