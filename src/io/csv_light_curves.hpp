#pragma once
// Reader for the gpu_lomb_scargle text format: one row per observation, `id, t, y[, dy]`,
// separated by commas and/or blanks; `#` starts a comment; blank lines are skipped; all rows of an
// object are contiguous. Every data line has the same number of columns (3 or 4).

#include <cstdint>
#include <string>

#include "io/light_curve_sink.hpp"
#include "io/light_curves.hpp"

namespace astrosweep::io {

struct CsvRead {
  LightCurveBlock block;
  InputIdentity identity;
};

/// Reads the file a piece at a time and passes its objects on to `sink` in blocks of about
/// `block_rows` rows (more when one object is longer): what is held is one block, the line being
/// read and, per object, its id and first line (to name both lines when an id comes back). Throws
/// InputError naming the file (and line) for a missing or unreadable file, a malformed line, a
/// column count that changes, or an id that reappears after another object; objects before the
/// bad line may have been passed on.
StreamedInput stream_csv_light_curves(const std::string& path, LightCurveSink& sink,
                                      std::uint64_t block_rows = default_block_rows);

/// The whole file in one block (the small-input path: `period` on a CSV input).
CsvRead read_csv_light_curves(const std::string& path);

}  // namespace astrosweep::io
