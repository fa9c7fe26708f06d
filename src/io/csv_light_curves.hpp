#pragma once
// Reader for the gpu_lomb_scargle text format: one row per observation, `id, t, y[, dy]`,
// separated by commas and/or blanks; `#` starts a comment; blank lines are skipped; all rows of an
// object are contiguous. Every data line has the same number of columns (3 or 4).

#include <string>

#include "io/light_curves.hpp"

namespace astrosweep::io {

struct CsvRead {
  LightCurveBlock block;
  InputIdentity identity;
};

/// Throws InputError naming the file (and line) for a missing or unreadable file, a malformed
/// line, a column count that changes, or an id that reappears after another object.
CsvRead read_csv_light_curves(const std::string& path);

}  // namespace astrosweep::io
