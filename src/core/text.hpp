#pragma once
// printf-style formatting into a std::string, for log lines built from numbers.

#include <string>

namespace astrosweep {

/// The text std::printf(format, ...) would print (truncated at 4 KiB).
std::string format_text(const char* format, ...) __attribute__((format(printf, 1, 2)));

}  // namespace astrosweep
