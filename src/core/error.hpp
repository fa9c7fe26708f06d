#pragma once
// One error vocabulary for astrosweep: typed exceptions that carry the exit code a user sees, where
// the failure was detected, and what the user should do about it. `main` turns them into a message
// and the exit code (docs/user-guide.md lists the codes).

#include <stdexcept>
#include <string>

namespace astrosweep {

/// Process exit codes; documented in docs/user-guide.md ("Exit codes"). Never renumber.
enum class ExitCode : int {
  ok = 0,
  internal = 1,     ///< a bug or an unexpected library failure
  usage = 2,        ///< bad command line or parameter file, inconsistent parameters, too many ranks
  input = 3,        ///< missing, unreadable or malformed input
  output = 4,       ///< output exists (without --overwrite) or cannot be written
  runtime = 5,      ///< the MPI/CUDA runtime cannot provide what the job needs
  interrupted = 6,  ///< stopped by a signal (SIGTERM, SIGINT, SIGUSR1/2); the product can be resumed
};

[[nodiscard]] const char* exit_code_name(ExitCode code) noexcept;

class Error : public std::runtime_error {
 public:
  Error(ExitCode code, const std::string& what, std::string hint = {})
      : std::runtime_error(what), code_(code), hint_(std::move(hint)) {}
  [[nodiscard]] ExitCode code() const noexcept { return code_; }
  /// What the user should do; may be empty.
  [[nodiscard]] const std::string& hint() const noexcept { return hint_; }

 private:
  ExitCode code_;
  std::string hint_;
};

struct UsageError : Error {
  explicit UsageError(const std::string& what, std::string hint = {}) : Error(ExitCode::usage, what, std::move(hint)) {}
};
struct InputError : Error {
  explicit InputError(const std::string& what, std::string hint = {}) : Error(ExitCode::input, what, std::move(hint)) {}
};
struct OutputError : Error {
  explicit OutputError(const std::string& what, std::string hint = {})
      : Error(ExitCode::output, what, std::move(hint)) {}
};
struct RuntimeError : Error {
  explicit RuntimeError(const std::string& what, std::string hint = {})
      : Error(ExitCode::runtime, what, std::move(hint)) {}
};
struct InternalError : Error {
  explicit InternalError(const std::string& what) : Error(ExitCode::internal, what) {}
};

namespace detail {
[[noreturn]] void throw_internal(const char* file, int line, const std::string& what);
}  // namespace detail

}  // namespace astrosweep

/// Throws `ErrorType(msg)` unless `cond` holds. For user-facing conditions.
#define AS_EXPECTS(cond, ErrorType, ...)       \
  do {                                         \
    if (!(cond)) throw ErrorType(__VA_ARGS__); \
  } while (0)

/// Internal invariant; a failure is a bug and reports file and line.
#define AS_ASSERT(cond)                                                           \
  do {                                                                            \
    if (!(cond)) ::astrosweep::detail::throw_internal(__FILE__, __LINE__, #cond); \
  } while (0)
