#include "accel_text.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <vector>

#include "core/error.hpp"
#include "harmonic_table.hpp"
#include "physics.hpp"
#include "template_bank.hpp"

namespace astrosweep::fdas {

namespace {

// snprintf into a string. Floats must be passed as doubles (what C's varargs would promote them to).
template <typename... Args>
std::string print(const char* format, Args... args) {
  const int n = std::snprintf(nullptr, 0, format, args...);
  std::string text(static_cast<std::size_t>(n), '\0');
  std::snprintf(text.data(), text.size() + 1, format, args...);
  return text;
}

double as_float(double x) { return static_cast<double>(static_cast<float>(x)); }

constexpr double tiny = 1e-14;  // PRESTO's DBLCORRECT

// ⌊log10 |x|⌋, x ≠ 0.
int decade(double x) { return static_cast<int>(std::floor(std::log10(std::fabs(x)))); }

// nice_output_1: the error to one significant digit, the value rounded to that digit.
std::string one_digit_error(double value, double error) {
  int err_exp = error == 0 ? 0 : decade(error);
  int err_digit = static_cast<int>(std::floor(std::fabs(error) * std::pow(10.0, -err_exp) + tiny + 0.5));
  if (err_digit == 10) {  // e.g. 0.96 rounds up into the next decade: 1, not 10
    err_digit = 1;
    ++err_exp;
  }
  const double rounded = std::pow(10.0, err_exp) * std::floor(value * std::pow(10.0, -err_exp) + 0.5);
  // Digits before the point (at least one) and after it (those the error reaches).
  int int_digits = value == 0 ? 1 : static_cast<int>(std::ceil(std::log10(std::fabs(value))));
  if (int_digits == 0) int_digits = 1;
  const int frac_digits = -err_exp;
  int digits = int_digits + frac_digits;
  const int out_exp = rounded == 0 ? 0 : decade(rounded);
  const double mantissa = rounded * std::pow(10.0, -out_exp);
  if (std::fabs(1.0 - mantissa) < tiny || std::fabs(-1.0 - mantissa) < tiny) ++digits;  // ±1.000…: one more digit

  // An error of 10 or more: the value as a mantissa × 10^e, with as many decimals as reach the
  // error's digit, or as a whole mantissa when the value and the error share a decade.
  if (err_exp > 0 && out_exp > err_exp) return print("% .*f(%d)x10^%d", digits - 1, mantissa, err_digit, out_exp);
  if (err_exp > 0 && out_exp == err_exp) return print("% d(%d)x10^%d", static_cast<int>(mantissa), err_digit, out_exp);
  // A value below 1e-4 with an error at least as small: mantissa × 10^e too.
  if (out_exp < -4 && out_exp >= err_exp) return print("% .*f(%d)x10^%d", digits - 1, mantissa, err_digit, out_exp);
  // A value smaller than its error: the whole mantissa in the error's decade.
  if (out_exp < err_exp && err_exp != 0)
    return print("% d(%d)x10^%d", static_cast<int>(mantissa + tiny), err_digit, err_exp);
  // Plain notation.
  if (frac_digits == 0 && std::fabs(rounded) < 1e-15)
    return print("% d(%d)", static_cast<int>(std::fabs(rounded)), err_digit);
  if (std::fabs(rounded) <= tiny && err_exp < -5) return print("0.0(%d)x10^%d", err_digit, err_exp + 1);
  return print("% .*f(%d)", frac_digits, rounded, err_digit);
}

// nice_output_2: the error to two significant digits, the value rounded to the second.
std::string two_digit_error(double value, double error) {
  int err_exp = error == 0 ? 0 : decade(error);
  int err_digits = static_cast<int>(std::floor(std::fabs(error) * std::pow(10.0, -err_exp + 1) + tiny + 0.5));
  if (err_digits == 100) {  // 9.96 → 10, in the next decade
    err_digits = 10;
    ++err_exp;
  }
  double rounded = std::pow(10.0, err_exp - 1) * std::floor(value * std::pow(10.0, -err_exp + 1) + 0.5);
  const int out_exp = rounded == 0.0 ? 0 : decade(rounded);
  const int value_exp = value == 0.0 ? 0 : decade(value);
  double mantissa = rounded * std::pow(10.0, -out_exp);
  const int e1 = err_digits / 10;  // the error as d.d where it is written with a point
  const int e2 = err_digits % 10;

  if (out_exp < -4) {  // tiny values: mantissa × 10^e
    const int decimals = out_exp - err_exp + 1;
    if (decimals == 0) return print("% .1f(%d.%d)x10^%d", mantissa / 10, e1, e2, out_exp + 1);
    if (decimals < 2) return print("% .1f(%d.%d)x10^%d", mantissa, e1, e2, out_exp);
    return print("% .*f(%.2d)x10^%d", decimals, mantissa, err_digits, out_exp);
  }
  // An error of 100 or more and over ten times the value: the value is shown as zero.
  if (err_exp - value_exp > 1 && err_exp != 0 && err_exp != 1) return print("0.0(%d.%d)x10^%d", e1, e2, err_exp);
  if (err_exp == 0) {  // error 1 … 9.9: one decimal; a value that rounds to ±0.0 is written unsigned
    if (std::fabs(rounded) < 0.1) rounded = std::fabs(rounded);
    return print("% .1f(%d.%d)", rounded, e1, e2);
  }
  if (err_exp < 0) {  // error below 1: decimals down to the error's second digit
    if (std::fabs(rounded) * std::pow(10.0, -err_exp + 1) < 0.1) rounded = std::fabs(rounded);
    if (std::fabs(rounded) <= tiny && err_exp < -4) return print("0.0(%d.%d)x10^%d", e1, e2, err_exp);
    return print("% .*f(%.2d)", -err_exp + 1, rounded, err_digits);
  }
  // error 10 or more
  if (err_exp == out_exp) {
    if (err_exp == 1) return print("% d(%.2d)", static_cast<int>(rounded), err_digits);
    return print("% .1f(%d.%d)x10^%d", mantissa, e1, e2, err_exp);
  }
  if (err_exp - out_exp == 1) {
    if (std::fabs(mantissa) < 0.99999999999999) mantissa = std::fabs(mantissa);
    return print("% .1f(%d.%d)x10^%d", mantissa / 10.0, e1, e2, err_exp);
  }
  if (err_exp > 1 && out_exp > 1 && err_exp - out_exp <= -1)
    return print("% .*f(%.2d)x10^%d", out_exp - err_exp + 1, mantissa, err_digits, out_exp);
  if (err_exp == 1 && out_exp > 0) return print("% d(%.2d)", static_cast<int>(rounded), err_digits);
  // PRESTO stops here ("undefined condition in nice_output2()"); no finite input reaches it.
  throw InternalError("value_error_text: no notation for " + print("%.17g(%.17g)", value, error));
}

struct Column {
  int width;
  const char* title1;
  const char* title2;
};

// output_fundamentals' widths and titles, its FFT 'w' column (jerk searches only) left out.
constexpr Column fundamental_columns[] = {
    {4, "", "Cand"},           {5, "", "Sigma"},         {6, "Summed", "Power"},
    {8, "Coherent", "Power"},  {4, "Num", "Harm"},       {16, "Period", "(ms)"},
    {15, "Frequency", "(Hz)"}, {15, "FFT 'r'", "(bin)"}, {15, "Freq Deriv", "(Hz/s)"},
    {11, "FFT 'z'", "(bins)"}, {15, "Accel", "(m/s^2)"}, {20, "", "Notes"}};

// output_harmonics' widths and titles, its FFT 'w' and Pred 'w' columns left out.
constexpr Column harmonic_columns[] = {
    {5, "", "Cand"},           {4, "", "Harm"},          {5, "", "Sigma"},          {15, "Power /", "Loc Pow"},
    {11, "Raw", "Power"},      {18, "FFT 'r'", "(bin)"}, {13, "Pred 'r'", "(bin)"}, {12, "FFT 'z'", "(bins)"},
    {9, "Pred 'z'", "(bins)"}, {12, "Phase", "(rad)"},   {10, "Centroid", "(0-1)"}, {10, "Purity", "<p> = 1"},
    {20, "", "Notes"}};

// The two title lines and the dashes: every column centred and followed by two spaces (two dashes),
// the last (Notes) followed by the newline.
void write_header(std::string& out, std::span<const Column> columns) {
  for (int line = 0; line < 3; ++line) {
    for (std::size_t i = 0; i < columns.size(); ++i) {
      const Column& c = columns[i];
      if (line == 2)
        out += std::string(static_cast<std::size_t>(c.width), '-');
      else
        out += centred(line == 0 ? c.title1 : c.title2, c.width);
      out += i + 1 < columns.size() ? (line == 2 ? "--" : "  ") : "\n";
    }
  }
}

// One line of a table: the fields centred in all columns but Notes, each followed by two spaces,
// then two more spaces and the notes as "%.20s" writes them.
void write_row(std::string& out, std::span<const Column> columns, const std::vector<std::string>& fields,
               const std::string& notes) {
  AS_ASSERT(fields.size() + 1 == columns.size());
  for (std::size_t i = 0; i < fields.size(); ++i) out += centred(fields[i], columns[i].width) + "  ";
  out += "  " + notes.substr(0, 20) + "\n";
}

std::vector<std::string> fundamental_fields(const CandidateRow& c) {
  // PRESTO keeps sigma and summed power (accelcand), and the errors of r, z, period, frequency
  // and f-dot (fourierprops, rzwerrs) in float; the period error is printed as perr · 1000.
  return {print("%-4d", c.number),
          print("%.2f", as_float(c.sigma)),
          print("%.2f", as_float(c.summed_power)),
          print("%.2f", c.coherent_power),
          print("%d", c.numharm),
          value_error_text(c.period_ms, as_float(c.period_err_ms / 1000.0) * 1000.0, 1),
          value_error_text(c.frequency_hz, as_float(c.frequency_err_hz), 1),
          value_error_text(c.r, as_float(c.r_err), 2),
          value_error_text(c.fdot_hz_s, as_float(c.fdot_err_hz_s), 1),
          value_error_text(c.z, as_float(c.z_err), 2),
          value_error_text(c.accel_m_s2, c.accel_err_m_s2, 2)};
}

std::vector<std::string> harmonic_fields(const HarmonicRow& h, bool first) {
  const HarmonicProps p = harmonic_props(h);
  auto d = [](float x) { return static_cast<double>(x); };
  return {first ? print(" %-4d", h.number) : std::string(5, ' '),
          print("%-4d", h.harmonic),
          print("%.2f", h.sigma),
          value_error_text(d(p.power), d(p.power_err), 2),
          print("%.3g", d(p.raw_power)),
          value_error_text(p.r, d(p.r_err), 2),
          print("%.2f", h.r_predicted),
          value_error_text(p.z, d(p.z_err), 2),
          print("%.2f", h.z_predicted),
          value_error_text(d(p.phase), d(p.phase_err), 2),
          value_error_text(d(p.centroid), d(p.centroid_err), 2),
          value_error_text(d(p.purity), d(p.purity_err), 2)};
}

}  // namespace

AccelTextRows presto_view(std::span<const CandidateRow> candidates, std::span<const HarmonicRow> harmonics,
                          double span_s) {
  std::vector<std::size_t> order(candidates.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    const CandidateRow& x = candidates[a];
    const CandidateRow& y = candidates[b];
    // PRESTO compares the float members it keeps (accelcand's sigma and power).
    const float sx = as_float(x.found_sigma), sy = as_float(y.found_sigma);
    return sx != sy ? sx > sy : as_float(x.found_power) > as_float(y.found_power);
  });
  AccelTextRows view;
  for (std::size_t k = 0; k < order.size(); ++k) {
    CandidateRow c = candidates[order[k]];
    const std::int32_t old_number = c.number;
    c.number = static_cast<std::int32_t>(k + 1);
    c.sigma = c.found_sigma;
    c.summed_power = c.found_power;
    c.r = c.found_r;
    c.z = c.found_z;
    set_physics(c, to_physical(c.r, c.z, c.numharm, span_s));
    view.candidates.push_back(c);
    for (const HarmonicRow& h : harmonics)
      if (h.number == old_number) {
        HarmonicRow renumbered = h;
        renumbered.number = c.number;
        view.harmonics.push_back(renumbered);
      }
  }
  return view;
}

std::string accel_text_name(const std::string& input_path, double z_max) {
  std::string root = std::filesystem::path(input_path).filename().string();
  for (const char* suffix : {".dat", ".tim", ".sdat", ".fft"}) {
    const std::size_t n = std::strlen(suffix);
    if (root.size() > n && root.compare(root.size() - n, n, suffix) == 0) {
      root.resize(root.size() - n);
      break;
    }
  }
  return root + "_ACCEL_" + std::to_string(static_cast<int>(make_drift_grid(z_max).z_max));
}

std::string value_error_text(double value, double error, int error_digits) {
  AS_ASSERT(error_digits == 1 || error_digits == 2);
  if (!std::isfinite(value) || !std::isfinite(error)) return print("% g(%g)", value, error);
  return error_digits == 1 ? one_digit_error(value, error) : two_digit_error(value, error);
}

std::string centred(std::string_view text, int width) {
  const auto w = static_cast<std::size_t>(width);
  if (text.size() >= w) return std::string(text.substr(0, w));
  const std::size_t left = (w - text.size()) / 2;
  return std::string(left, ' ') + std::string(text) + std::string(w - left - text.size(), ' ');
}

std::string accel_text(std::span<const CandidateRow> candidates, std::span<const HarmonicRow> harmonics,
                       std::string_view inf_text) {
  std::string out;
  // output_fundamentals
  write_header(out, fundamental_columns);
  for (const CandidateRow& c : candidates) {
    const std::string notes = from_notes_text(c.notes);
    write_row(out, fundamental_columns, fundamental_fields(c), notes.empty() ? std::string(20, ' ') : notes);
  }
  out += "\n\n";
  // output_harmonics
  write_header(out, harmonic_columns);
  std::size_t next = 0;
  for (const CandidateRow& c : candidates) {
    for (int h = 1; h <= c.numharm; ++h, ++next) {
      AS_EXPECTS(next < harmonics.size() && harmonics[next].number == c.number && harmonics[next].harmonic == h,
                 InternalError,
                 "the harmonic rows of an ACCEL text file must follow its candidates: candidate " +
                     std::to_string(c.number) + ", harmonic " + std::to_string(h) + " is missing");
      write_row(out, harmonic_columns, harmonic_fields(harmonics[next], h == 1), std::string(20, ' '));
    }
  }
  AS_EXPECTS(next == harmonics.size(), InternalError,
             "the ACCEL text file has " + std::to_string(harmonics.size() - next) + " harmonic rows of no candidate");
  out += "\n\n";
  out += inf_text;
  return out;
}

void write_accel_text(const std::string& path, std::span<const CandidateRow> candidates,
                      std::span<const HarmonicRow> harmonics, std::string_view inf_text) {
  if (candidates.empty()) return;
  const std::string text = accel_text(candidates, harmonics, inf_text);
  auto fail = [&path](int error) {
    return OutputError("cannot write the ACCEL text file " + path + ": " + std::strerror(error),
                       "check that the --accel-text directory exists and is writable");
  };
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), "wb"), &std::fclose);
  if (!file) throw fail(errno);
  if (std::fwrite(text.data(), 1, text.size(), file.get()) != text.size()) throw fail(errno);
  if (std::fclose(file.release()) != 0) throw fail(errno);
}

}  // namespace astrosweep::fdas
