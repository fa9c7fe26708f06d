// PRESTO's _ACCEL_<zmax> text file (accel_text.hpp): a small candidate list written byte for byte
// as accelsearch's output_fundamentals and output_harmonics lay it out; value(error) as
// nice_output_1 / nice_output_2 write it at several magnitudes; the file name rule; an unwritable
// path is an OutputError naming it.
#include <gtest/gtest.h>

#include <unistd.h>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "accel_statistics.hpp"
#include "accel_text.hpp"
#include "core/error.hpp"
#include "harmonic_table.hpp"
#include "physics.hpp"

namespace astrosweep::fdas {
namespace {

// One harmonic's measured properties, as harmonic_rows would give them.
HarmonicRow harmonic(int number, int h, double power, double local, double r, double r_pred, double z, double z_pred,
                     double phase_deg, double centroid, double purity) {
  HarmonicRow row;
  row.number = number;
  row.harmonic = h;
  row.power = power;
  row.local_power = local;
  row.raw_power = power * local;
  row.sigma = candidate_sigma(static_cast<double>(static_cast<float>(power)), 1, 1);  // as harmonic_rows
  row.r = r;
  row.r_predicted = r_pred;
  row.z = z;
  row.z_predicted = z_pred;
  row.phase_deg = phase_deg;
  row.centroid = centroid;
  row.purity = purity;
  return row;
}

// A fundamental-table row as the pipeline fills it: physics from (r, z) over T (physics.hpp).
CandidateRow candidate(int number, int numharm, double r, double z, double sigma, double summed_power,
                       std::span<const HarmonicRow> harmonics, const std::string& notes, double T) {
  CandidateRow c;
  c.number = number;
  c.numharm = numharm;
  c.sigma = sigma;
  c.summed_power = summed_power;
  c.coherent_power = coherent_power(harmonics);
  c.r = r;
  c.z = z;
  set_physics(c, to_physical(r, z, numharm, T));
  c.notes = to_notes_text(notes);
  return c;
}

// Two candidates over T = 100 s: a 2-harmonic one at r = 2000.3, z = 4, and its second harmonic
// found alone at r = 4000.62, z = 7.2 (PRESTO's compare_rzw_cands notes it "H 2 of Cand 1").
struct Example {
  std::vector<HarmonicRow> harmonics;
  std::vector<CandidateRow> candidates;
};

Example example() {
  Example e;
  e.harmonics = {harmonic(1, 1, 30, 1.1, 2000.27, 2000.3, 3.8, 4.0, 90, 0.52, 0.97),
                 harmonic(1, 2, 12, 1.1, 4000.54, 4000.6, 7.6, 8.0, 200, 0.45, 1.05),
                 harmonic(2, 1, 8.5, 20, 4000.66, 4000.62, 7.5, 7.2, 350, 0.61, 0.88)};
  const std::span<const HarmonicRow> all(e.harmonics);
  e.candidates = {candidate(1, 2, 2000.3, 4.0, 8.123, 45.678, all.subspan(0, 2), "", 100),
                  candidate(2, 1, 4000.62, 7.2, 3.456, 8.04, all.subspan(2, 1), "H 2 of Cand 1", 100)};
  return e;
}

// The file for example(), derived field by field from PRESTO's rules (and identical to what
// PRESTO's own output_fundamentals / output_harmonics write for these candidates, checked once
// by compiling them against these rows outside the repository).
//
// Fundamental table (output_fundamentals): column widths 4 5 6 8 4 16 15 15 15 11 15 20, every
// field centred (center_string: the odd space on the right) and followed by two spaces; titles
// on two lines, then dashes (width + 2 per column, 20 for Notes). A row ends with the two spaces
// after Accel, two more, and the notes as "%.20s" (20 spaces when empty: PRESTO's buffer is
// blank). Cand "%-4d"; Sigma and Summed Power "%.2f" of floats; Coherent Power "%.2f":
// |√30 e^{i·90°} + √12 e^{i(200° − 90°)}|² = 42 + 2√360 cos 20° = 77.66. Period, Frequency and
// Freq Deriv with nice_output_1, FFT 'r', FFT 'z' and Accel with nice_output_2:
//   P = T/r = 49.9925 ms ± T·0.25/r² = 0.0062 → 49.993(6)
//   f = 20.003 Hz ± 0.0025 held as a float, 0.00249999994 → one digit 2 → 20.003(2)
//   r ± 0.25 (= 0.5/H) → 2000.30(25); ḟ = 4/T² = 0.0004 ± 0.0001 → 0.0004(1)
//   z ± 1 (= 2/H) → 4.0(1.0); a = z c/(f T²) = 5995 ± 1499 m/s² → 6.0(1.5)x10^3 (the error's
//   decade 10³ equals the value's: mantissa with one decimal)
//   candidate 2: 24.996(3), 40.006(5), 4000.62(50), 0.0007(2), 7.2(2.0), 5395 ± 1499 → 5.4(1.5)x10^3
// Harmonic table (output_harmonics): widths 5 4 5 15 11 18 13 12 9 12 10 10 20; Cand " %-4d" on
// a candidate's first harmonic only, Harm "%-4d", Sigma "%.2f" of candidate_sigma(P, 1, 1)
// (Q_N⁻¹(e^{−P}): 30 → 7.36, 12 → 4.37, 8.5 → 3.54), Power / Loc Pow ± √(2P) (30 → 30.0(7.7)),
// Raw Power "%.3g" (33, 13.2, 170), FFT 'r' ± 3/(π p √(6P)) (P 30, purity 0.97: 0.073 →
// 2000.270(73)), Pred 'r' "%.2f", FFT 'z' ± 3√10/(π p² √P) (0.59 → 3.80(59)), Pred 'z' "%.2f",
// Phase in radians ± 1/√(2P) (90° = 1.5708 ± 0.129 → 1.57(13)), Centroid ± 1/√(24P)
// (0.52 ± 0.037 → 0.520(37)), Purity ± 1/(p √(10P)) (0.97 ± 0.060 → 0.970(60)); then two spaces
// and 20 blank notes. Each table is followed by two blank lines; the .inf text comes last.
// clang-format off
const char* const golden =
    "             Summed  Coherent  Num        Period          Frequency         FFT 'r'        Freq Deriv       FFT 'z'         Accel                           \n"
    "Cand  Sigma  Power    Power    Harm        (ms)             (Hz)             (bin)           (Hz/s)         (bins)         (m/s^2)             Notes        \n"
    "------------------------------------------------------------------------------------------------------------------------------------------------------------\n"
    "1     8.12   45.68    77.66     2        49.993(6)        20.003(2)       2000.30(25)       0.0004(1)       4.0(1.0)    6.0(1.5)x10^3                         \n"
    "2     3.46    8.04     8.50     1        24.996(3)        40.006(5)       4000.62(50)       0.0007(2)       7.2(2.0)    5.4(1.5)x10^3     H 2 of Cand 1\n"
    "\n"
    "\n"
    "                        Power /          Raw           FFT 'r'          Pred 'r'       FFT 'z'     Pred 'z'      Phase       Centroid     Purity                        \n"
    "Cand   Harm  Sigma      Loc Pow         Power           (bin)             (bin)         (bins)      (bins)       (rad)        (0-1)      <p> = 1           Notes        \n"
    "------------------------------------------------------------------------------------------------------------------------------------------------------------------------\n"
    " 1     1     7.36      30.0(7.7)         33          2000.270(73)        2000.30       3.80(59)      4.00       1.57(13)     0.520(37)   0.970(60)                        \n"
    "       2     4.37      12.0(4.9)        13.2          4000.54(11)        4000.60       7.60(79)      8.00       3.49(20)     0.450(59)   1.050(87)                        \n"
    " 2     1     3.54       8.5(4.1)         170          4000.66(15)        4000.62       7.5(1.3)      7.20       6.11(24)     0.610(70)   0.88(12)                         \n"
    "\n"
    "\n"
    " Data file name without suffix          =  g\n";
// clang-format on

const char* const inf_text = " Data file name without suffix          =  g\n";

std::string read(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// A fresh directory under the system's temporary one, removed at the end.
struct TempDir {
  std::filesystem::path path;
  TempDir() {
    path = std::filesystem::temp_directory_path() / ("astrosweep-accel-text-" + std::to_string(::getpid()));
    std::filesystem::remove_all(path);
    std::filesystem::create_directories(path);
  }
  ~TempDir() { std::filesystem::remove_all(path); }
};

TEST(AccelText, GoldenFile) {
  const Example e = example();
  const std::string text = accel_text(e.candidates, e.harmonics, inf_text);
  EXPECT_EQ(text, golden);

  TempDir dir;
  const auto path = dir.path / accel_text_name("/data/g.dat", 200);
  EXPECT_EQ(path.filename(), "g_ACCEL_200");
  write_accel_text(path.string(), e.candidates, e.harmonics, inf_text);
  EXPECT_EQ(read(path), golden);
  // Rewriting replaces the file.
  write_accel_text(path.string(), std::span(e.candidates).first(1), std::span(e.harmonics).first(2), "");
  EXPECT_EQ(read(path), accel_text(std::span(e.candidates).first(1), std::span(e.harmonics).first(2)));
}

TEST(AccelText, LinesAreAsWideAsTheirDashes) {
  // Every title line spans its table's dashes: the centring pads each field to its width. A data
  // row is two wider: PRESTO writes two spaces after its last field and two more before the notes
  // (the title lines have two).
  const Example e = example();
  std::istringstream in(accel_text(e.candidates, e.harmonics));
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  ASSERT_EQ(lines.size(), 15u);  // 3 + 2 rows + 2 blank, 3 + 3 rows + 2 blank
  const std::size_t fundamental = lines[2].size(), harmonics = lines[9].size();
  EXPECT_EQ(fundamental, 4 + 5 + 6 + 8 + 4 + 16 + 15 + 15 + 15 + 11 + 15 + 20 + 2 * 11u);
  EXPECT_EQ(harmonics, 5 + 4 + 5 + 15 + 11 + 18 + 13 + 12 + 9 + 12 + 10 + 10 + 20 + 2 * 12u);
  for (std::size_t i : {0u, 1u}) EXPECT_EQ(lines[i].size(), fundamental) << i;
  for (std::size_t i : {7u, 8u}) EXPECT_EQ(lines[i].size(), harmonics) << i;
  EXPECT_EQ(lines[3].size(), fundamental + 2);
  EXPECT_EQ(lines[4].size(), fundamental + 2 - 20 + std::string("H 2 of Cand 1").size());
  for (std::size_t i : {10u, 11u, 12u}) EXPECT_EQ(lines[i].size(), harmonics + 2) << i;
  for (std::size_t i : {5u, 6u, 13u, 14u}) EXPECT_TRUE(lines[i].empty()) << i;
}

TEST(AccelText, ValueWithOneDigitError) {
  // nice_output_1: the error rounded to one significant digit, the value to the same decimal.
  EXPECT_EQ(value_error_text(-2.71828, 0.05, 1), "-2.72(5)");
  EXPECT_EQ(value_error_text(49.9925011248, 0.006248125, 1), " 49.993(6)");
  // An error of 0.096 rounds to 0.10, i.e. one digit in the next decade: 1.0(1).
  EXPECT_EQ(value_error_text(0.96, 0.096, 1), " 1.0(1)");
  // An error of 10 or more: mantissa × 10^e with the decimals that reach the error's digit
  // (12350 ± 30 → 1.235(3)x10^4), a whole mantissa when both share a decade, and a value smaller
  // than its error written as 0 in the error's decade.
  EXPECT_EQ(value_error_text(12345.678, 30, 1), " 1.235(3)x10^4");
  EXPECT_EQ(value_error_text(1234, 1234, 1), " 1(1)x10^3");
  EXPECT_EQ(value_error_text(0.5, 100, 1), " 0(1)x10^2");
  // Below 1e-4 with an error in the same decade or smaller: scientific notation.
  EXPECT_EQ(value_error_text(3.2e-7, 4e-9, 1), " 3.20(4)x10^-7");
  EXPECT_EQ(value_error_text(0, 0, 1), " 0(0)");
}

TEST(AccelText, ValueWithTwoDigitError) {
  // nice_output_2: two significant digits of error; d.d inside the parentheses where the error's
  // decade is written as an exponent or the error is 1 … 9.9.
  EXPECT_EQ(value_error_text(2000.3, 0.25, 2), " 2000.30(25)");
  EXPECT_EQ(value_error_text(0.0123, 0.0045, 2), " 0.0123(45)");
  EXPECT_EQ(value_error_text(4, 1, 2), " 4.0(1.0)");
  EXPECT_EQ(value_error_text(-0.06, 3.0, 2), "-0.1(3.0)");
  EXPECT_EQ(value_error_text(-0.04, 3.0, 2), " 0.0(3.0)");  // rounds to zero: no sign
  EXPECT_EQ(value_error_text(12345.6, 23, 2), " 12346(23)");
  EXPECT_EQ(value_error_text(9.87, 9.96, 2), " 10(10)");  // 9.96 → 10: the error's decade moves up
  EXPECT_EQ(value_error_text(98765.4, 321, 2), " 9.877(32)x10^4");
  EXPECT_EQ(value_error_text(5994.95, 1498.74, 2), " 6.0(1.5)x10^3");
  EXPECT_EQ(value_error_text(-449.619, 1498.73, 2), "-0.4(1.5)x10^3");
  EXPECT_EQ(value_error_text(5, 2000, 2), "0.0(2.0)x10^3");  // error over ten times the value
  EXPECT_EQ(value_error_text(1.234e-6, 5.6e-8, 2), " 1.234(56)x10^-6");
  EXPECT_EQ(value_error_text(0, 0, 2), " 0.0(0.0)");
  // Where PRESTO's result is undefined (an empty harmonic row's infinite errors): "% g(%g)".
  EXPECT_EQ(value_error_text(2401, std::numeric_limits<double>::infinity(), 2), " 2401(inf)");
}

TEST(AccelText, Centred) {
  EXPECT_EQ(centred("ab", 5), " ab  ");  // the odd space on the right
  EXPECT_EQ(centred("abc", 5), " abc ");
  EXPECT_EQ(centred("", 3), "   ");
  EXPECT_EQ(centred("abcdef", 4), "abcd");  // too long: cut, as center_string does
}

TEST(AccelText, FileName) {
  EXPECT_EQ(accel_text_name("/data/obs/J1234_DM10.50.dat", 200), "J1234_DM10.50_ACCEL_200");
  EXPECT_EQ(accel_text_name("beam_DM5.00.tim", 0), "beam_DM5.00_ACCEL_0");
  EXPECT_EQ(accel_text_name("x.fft", 50), "x_ACCEL_50");
  EXPECT_EQ(accel_text_name("x.tim", 201), "x_ACCEL_202");  // -zmax rounded up to even, as accelsearch
  EXPECT_EQ(accel_text_name("x.tim", 199.5), "x_ACCEL_200");
  EXPECT_EQ(accel_text_name("beam.fil", 200), "beam.fil_ACCEL_200");  // not a series suffix: kept
  EXPECT_EQ(accel_text_name("dir.dat/noext", 200), "noext_ACCEL_200");
  EXPECT_THROW(accel_text_name("x.dat", 1300), UsageError);
}

TEST(AccelText, UnwritablePathIsAnOutputErrorNamingIt) {
  const Example e = example();
  TempDir dir;
  const std::string missing = (dir.path / "no-such-dir" / "g_ACCEL_200").string();
  try {
    write_accel_text(missing, e.candidates, e.harmonics);
    FAIL() << "no error";
  } catch (const OutputError& error) {
    EXPECT_NE(std::string(error.what()).find(missing), std::string::npos) << error.what();
    EXPECT_EQ(error.code(), ExitCode::output);
  }
  EXPECT_THROW(write_accel_text(dir.path.string(), e.candidates, e.harmonics), OutputError);  // a directory
}

TEST(AccelText, NoCandidatesWritesNoFile) {
  // accelsearch writes no ACCEL file when it finds nothing.
  TempDir dir;
  const auto path = dir.path / "g_ACCEL_200";
  write_accel_text(path.string(), {}, {});
  EXPECT_FALSE(std::filesystem::exists(path));
}

TEST(AccelText, HarmonicRowsMustFollowTheirCandidates) {
  const Example e = example();
  auto swapped = e.harmonics;
  std::swap(swapped[0], swapped[1]);
  EXPECT_THROW(accel_text(e.candidates, swapped), InternalError);
  EXPECT_THROW(accel_text(e.candidates, std::span(e.harmonics).first(2)), InternalError);  // one missing
  auto extra = e.harmonics;
  extra.push_back(extra.back());
  EXPECT_THROW(accel_text(e.candidates, extra), InternalError);
}

// accelsearch prints the search's r, z, power and sigma and orders by that sigma (ties: power);
// the product's rows are polished and ordered by polished sigma.
TEST(AccelText, PrestoViewShowsWhatTheSearchFoundInItsOrder) {
  const double span = 134.217728;
  auto row = [](int number, int numharm, double found_r, double found_z, double found_sigma, double found_power) {
    CandidateRow c;
    c.number = number;
    c.numharm = numharm;
    c.sigma = 20 - number;  // polished: descending in the product's order
    c.summed_power = 100 + number;
    c.coherent_power = 7 * number;
    c.r = found_r + 0.01;
    c.z = found_z + 0.1;
    c.found_r = found_r;
    c.found_z = found_z;
    c.found_sigma = found_sigma;
    c.found_power = static_cast<float>(found_power);
    c.notes = to_notes_text("note " + std::to_string(number));
    return c;
  };
  const std::vector<CandidateRow> product = {row(1, 2, 1000.5, 12, 3.5, 30), row(2, 1, 2000, -8, 6.25, 40),
                                             row(3, 1, 3000, 4, 3.5, 31)};
  std::vector<HarmonicRow> harmonics;
  for (const CandidateRow& c : product)
    for (int h = 1; h <= c.numharm; ++h)
      harmonics.push_back(
          harmonic(c.number, h, 10.0 * c.number + h, 1, h * c.r, h * c.found_r, h * c.z, h * c.found_z, 90, 0.5, 1));
  const AccelTextRows view = presto_view(product, harmonics, span);
  ASSERT_EQ(view.candidates.size(), 3U);
  // 6.25 first; the two of sigma 3.5 by power, the stronger (31, product's 3rd) first.
  const double expected_r[] = {2000, 3000, 1000.5};
  const int was[] = {2, 3, 1};
  for (std::size_t k = 0; k < 3; ++k) {
    const CandidateRow& c = view.candidates[k];
    const CandidateRow& p = product[static_cast<std::size_t>(was[k] - 1)];
    EXPECT_EQ(c.number, static_cast<int>(k + 1));
    EXPECT_EQ(c.r, expected_r[k]);
    EXPECT_EQ(c.z, p.found_z);
    EXPECT_EQ(c.sigma, p.found_sigma);
    EXPECT_EQ(c.summed_power, p.found_power);
    EXPECT_EQ(c.coherent_power, p.coherent_power);
    EXPECT_EQ(from_notes_text(c.notes), from_notes_text(p.notes));
    const PhysicalCandidate phys = to_physical(p.found_r, p.found_z, p.numharm, span);
    EXPECT_EQ(c.frequency_hz, phys.frequency_hz);
    EXPECT_EQ(c.accel_m_s2, phys.accel_m_s2);
    EXPECT_EQ(c.period_ms, 1e3 * phys.period_s);
  }
  // The harmonic rows follow their candidates, renumbered, their polished values kept.
  ASSERT_EQ(view.harmonics.size(), harmonics.size());
  const int numbers[] = {1, 2, 3, 3};
  const double powers[] = {21, 31, 11, 12};
  for (std::size_t i = 0; i < view.harmonics.size(); ++i) {
    EXPECT_EQ(view.harmonics[i].number, numbers[i]);
    EXPECT_EQ(view.harmonics[i].power, powers[i]);
  }
  EXPECT_NO_THROW(accel_text(view.candidates, view.harmonics));
  EXPECT_TRUE(presto_view({}, {}, span).candidates.empty());
}

}  // namespace
}  // namespace astrosweep::fdas
