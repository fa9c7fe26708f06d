#include "core/text.hpp"

#include <cstdarg>
#include <cstdio>

namespace astrosweep {

std::string format_text(const char* format, ...) {
  char text[4096];
  va_list args;
  va_start(args, format);
  std::vsnprintf(text, sizeof text, format, args);
  va_end(args);
  return text;
}

}  // namespace astrosweep
