#include "core/error.hpp"

namespace astrosweep {

const char* exit_code_name(ExitCode code) noexcept {
  switch (code) {
    case ExitCode::ok: return "ok";
    case ExitCode::internal: return "internal error";
    case ExitCode::usage: return "usage error";
    case ExitCode::input: return "input error";
    case ExitCode::output: return "output error";
    case ExitCode::runtime: return "runtime error";
    case ExitCode::interrupted: return "interrupted";
  }
  return "unknown";
}

namespace detail {
void throw_internal(const char* file, int line, const std::string& what) {
  throw InternalError(std::string("internal check failed at ") + file + ":" + std::to_string(line) + ": " + what +
                      " (please report this with the command line)");
}
}  // namespace detail

}  // namespace astrosweep
