#include "io/output_path.hpp"

#include <unistd.h>

#include <filesystem>

#include "core/error.hpp"

namespace astrosweep::io {

void check_output_path(const std::string& path, bool overwrite, const std::string& option) {
  namespace fs = std::filesystem;
  std::error_code ec;
  AS_EXPECTS(!path.empty(), UsageError, "no output given", "pass " + option + " PATH");
  if (fs::exists(path, ec)) {
    AS_EXPECTS(!fs::is_directory(path, ec), OutputError, "output '" + path + "' is a directory",
               "give a file name to " + option);
    AS_EXPECTS(overwrite, OutputError, "output '" + path + "' already exists",
               "choose another " + option + " or pass --overwrite to replace it");
  }
  fs::path dir = fs::path(path).parent_path();
  if (dir.empty()) dir = ".";
  AS_EXPECTS(fs::exists(dir, ec), OutputError, "the directory of output '" + path + "' does not exist",
             "create it first");
  AS_EXPECTS(fs::is_directory(dir, ec), OutputError,
             "output '" + path + "': '" + dir.string() + "' is not a directory but a file",
             "give " + option + " a path inside a directory");
  AS_EXPECTS(access(dir.c_str(), W_OK) == 0, OutputError, "the directory of output '" + path + "' is not writable",
             "choose a writable location for " + option);
}

}  // namespace astrosweep::io
