#include "core/text.hpp"

#include <algorithm>
#include <cctype>
#include <cstdarg>
#include <cstdio>
#include <exception>
#include <limits>

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

std::size_t edit_distance(std::string_view a, std::string_view b) {
  const auto lower = [](char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); };
  // Three rows of the dynamic-programming table: d[i][j] is the distance of a's first i and b's
  // first j characters; a swap looks two rows back.
  std::vector<std::size_t> two_back(b.size() + 1), previous(b.size() + 1), row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) previous[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const bool same = lower(a[i - 1]) == lower(b[j - 1]);
      row[j] = std::min({previous[j] + 1, row[j - 1] + 1, previous[j - 1] + (same ? 0 : 1)});
      if (i > 1 && j > 1 && lower(a[i - 1]) == lower(b[j - 2]) && lower(a[i - 2]) == lower(b[j - 1]))
        row[j] = std::min(row[j], two_back[j - 2] + 1);
    }
    std::swap(two_back, previous);
    std::swap(previous, row);
  }
  return previous[b.size()];
}

std::optional<std::string> nearest_name(const std::string& wrong, const std::vector<std::string>& candidates) {
  const std::size_t limit = wrong.size() <= 4 ? 1 : wrong.size() <= 8 ? 2 : 3;
  std::optional<std::string> best;
  std::size_t best_distance = std::numeric_limits<std::size_t>::max();
  for (const auto& candidate : candidates) {
    const std::size_t d = edit_distance(wrong, candidate);
    if (d <= limit && d < best_distance) {
      best = candidate;
      best_distance = d;
    }
  }
  return best;
}

std::string did_you_mean(const std::string& wrong, const std::vector<std::string>& candidates) {
  const auto name = nearest_name(wrong, candidates);
  return name ? " (did you mean '" + *name + "'?)" : std::string{};
}

}  // namespace astrosweep
