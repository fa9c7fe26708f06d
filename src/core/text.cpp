#include "core/text.hpp"

#include <cstdarg>
#include <cstdio>
#include <exception>

namespace astrosweep {

std::string format_text(const char* format, ...) {
  char text[4096];
  va_list args;
  va_start(args, format);
  std::vsnprintf(text, sizeof text, format, args);
  va_end(args);
  return text;
}

std::optional<double> parse_number(const std::string& text) {
  std::size_t used = 0;
  double value = 0;
  try {
    value = std::stod(text, &used);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  if (used == 0 || text.find_first_not_of(" \t\r", used) != std::string::npos) return std::nullopt;
  return value;
}

}  // namespace astrosweep
