#pragma once
// printf-style formatting into a std::string, for log lines built from numbers, the number
// parsing of option values and parameter files, and the nearest valid name to a misspelt one (for
// "did you mean" in messages about options, parameter keys and commands).

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace astrosweep {

/// The text std::printf(format, ...) would print (truncated at 4 KiB).
std::string format_text(const char* format, ...) __attribute__((format(printf, 1, 2)));

/// The number `text` spells (std::stod's syntax, trailing blanks allowed), or nothing when it is
/// not a number through to its end.
std::optional<double> parse_number(const std::string& text);

/// Edits that turn `a` into `b`, letters compared without case: each insertion, deletion,
/// substitution or swap of two neighbouring characters counts one (Damerau-Levenshtein, optimal
/// string alignment).
std::size_t edit_distance(std::string_view a, std::string_view b);

/// The candidate `wrong` most likely misspells: the one at the smallest edit_distance, if that is
/// at most 1 for names up to 4 characters, 2 up to 8 and 3 beyond (farther, a guess would mislead);
/// the first of equally near ones. A name differing only in case is distance 0, so it is found.
std::optional<std::string> nearest_name(const std::string& wrong, const std::vector<std::string>& candidates);

/// " (did you mean 'NAME'?)" with the nearest_name of `wrong`, or "" when none is near.
std::string did_you_mean(const std::string& wrong, const std::vector<std::string>& candidates);

}  // namespace astrosweep
