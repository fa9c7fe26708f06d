#pragma once
// printf-style formatting into a std::string, for log lines built from numbers, and the number
// parsing of option values and parameter files.

#include <optional>
#include <string>

namespace astrosweep {

/// The text std::printf(format, ...) would print (truncated at 4 KiB).
std::string format_text(const char* format, ...) __attribute__((format(printf, 1, 2)));

/// The number `text` spells (std::stod's syntax, trailing blanks allowed), or nothing when it is
/// not a number through to its end.
std::optional<double> parse_number(const std::string& text);

}  // namespace astrosweep
