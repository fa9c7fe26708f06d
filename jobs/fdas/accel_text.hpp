#pragma once
// PRESTO's `_ACCEL_<zmax>` text file of one series (spec §9, `--accel-text DIR`), laid out byte
// for byte as accelsearch writes it (accel_utils.c: output_fundamentals, then output_harmonics),
// so that a run can be diffed against PRESTO's:
//   the fundamental table: two title lines, a line of dashes, one line per candidate
//     (Cand, Sigma, Summed Power, Coherent Power, Num Harm, Period (ms), Frequency (Hz),
//     FFT 'r' (bin), Freq Deriv (Hz/s), FFT 'z' (bins), Accel (m/s^2), Notes), then two blank lines;
//   the harmonic table: likewise, one line per harmonic (Cand on the first only, Harm, Sigma,
//     Power / Loc Pow, Raw Power, FFT 'r', Pred 'r', FFT 'z', Pred 'z', Phase (rad), Centroid,
//     Purity, Notes), then two blank lines;
//   then the series' `.inf` file, which accelsearch appends (`cat ROOT.inf >> ACCEL`).
// Each field is centred in its column (center_string) and followed by two spaces; values with
// errors are written as PRESTO's nice_output_1 / nice_output_2 write them. The jerk columns
// (FFT 'w') are left out, as accelsearch leaves them out without -wmax.

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "candidate_rows.hpp"

namespace astrosweep::fdas {

/// The name accelsearch gives the text file: `<root>_ACCEL_<zmax>`, root the input's file name
/// without its directory and without a final `.dat`, `.tim`, `.sdat` or `.fft` (any other name is
/// kept whole), zmax as PRESTO prints it: `%d` of -zmax rounded up to an even number, i.e. the
/// drift grid's z_max (201 → 202). UsageError for a z_max the drift grid refuses.
std::string accel_text_name(const std::string& input_path, double z_max);

/// `value(error)` as PRESTO's nice_output_1 (error_digits 1) or nice_output_2 (error_digits 2)
/// writes it, left-justified (their len = 0): the value rounded to the error's last digit, the
/// error's one or two leading digits in parentheses, "x10^e" where the magnitudes need it, and a
/// leading space for a non-negative value. A non-finite value or error, where PRESTO's result is
/// undefined, gives "% g(%g)".
std::string value_error_text(double value, double error, int error_digits);

/// PRESTO's center_string: `text` centred in `width` characters (the odd space on the right),
/// or its first `width` characters when it is longer.
std::string centred(std::string_view text, int width);

/// A series' rows as accelsearch's ACCEL file shows them.
struct AccelTextRows {
  std::vector<CandidateRow> candidates;
  std::vector<HarmonicRow> harmonics;
};

/// PRESTO's view of a series' rows (the product's, polished and ordered by polished sigma):
/// accelsearch's fundamental table prints each candidate's r, z, summed power and sigma as the
/// search found them (optimize_accelcand polishes only the harmonics and recomputes sigma from the
/// unpolished power), ordered by that sigma, ties by power (sort_accelcands, stable). So the rows
/// take found_r, found_z, found_power and found_sigma, their physical columns are recomputed from
/// the found (r, z) over `span_s` (calc_props of cand->r, cand->z), and candidates and their
/// harmonic rows (polished, as PRESTO's) are renumbered 1, 2, … in that order. The coherent power
/// and the notes stay.
AccelTextRows presto_view(std::span<const CandidateRow> candidates, std::span<const HarmonicRow> harmonics,
                          double span_s);

/// The whole file for a series' candidates (in file order, numbered by CandidateRow::number) and
/// their harmonic rows (numharm rows per candidate, harmonics 1 … numharm, grouped in the same
/// order; InternalError if they are not), followed by `inf_text` (the series' `.inf` file; empty
/// for inputs without one).
std::string accel_text(std::span<const CandidateRow> candidates, std::span<const HarmonicRow> harmonics,
                       std::string_view inf_text = {});

/// Writes accel_text(...) to `path`, replacing the file. With no candidates it writes nothing
/// (accelsearch writes no ACCEL file when it finds none). OutputError naming the path when it
/// cannot be written.
void write_accel_text(const std::string& path, std::span<const CandidateRow> candidates,
                      std::span<const HarmonicRow> harmonics, std::string_view inf_text = {});

}  // namespace astrosweep::fdas
