#include "io/csv_light_curves.hpp"

#include <cerrno>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string_view>
#include <unordered_map>

#include "core/error.hpp"

namespace astrosweep::io {

namespace {

std::string read_whole_file(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  AS_EXPECTS(fs::exists(path, ec), InputError, "input file '" + path + "' does not exist",
             "check the path given to --input");
  AS_EXPECTS(!fs::is_directory(path, ec), InputError,
             "input '" + path + "' is a directory, but the CSV format reads one file",
             "give the file itself, or use --format fits for a directory of FITS light curves");
  errno = 0;
  std::ifstream in(path, std::ios::binary);
  AS_EXPECTS(in.good(), InputError,
             "cannot read input file '" + path + "'" + (errno != 0 ? std::string(": ") + std::strerror(errno) : ""),
             "check its permissions (it must be readable by the user running astrosweep)");
  std::ostringstream contents;
  contents << in.rdbuf();
  AS_EXPECTS(!in.bad(), InputError, "reading '" + path + "' failed");
  return std::move(contents).str();
}

bool is_separator(char c) { return c == ',' || c == ' ' || c == '\t' || c == '\r'; }

// Splits a line into at most 5 fields (5 means "too many").
int split_fields(std::string_view line, std::string_view (&fields)[5]) {
  int n = 0;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && is_separator(line[i])) ++i;
    if (i >= line.size()) break;
    const std::size_t start = i;
    while (i < line.size() && !is_separator(line[i])) ++i;
    if (n == 5) return 6;
    fields[n++] = line.substr(start, i - start);
  }
  return n;
}

enum class Parsed { ok, not_a_number, out_of_range };

template <class T>
Parsed parse(std::string_view s, T& out) {
  if (!s.empty() && s.front() == '+') s.remove_prefix(1);
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  if (end != s.data() + s.size()) return Parsed::not_a_number;
  if (ec == std::errc::result_out_of_range) return Parsed::out_of_range;
  return ec == std::errc() ? Parsed::ok : Parsed::not_a_number;
}

// A field as it may be shown in a one-line message: damaged bytes as '?', at most 40 characters.
std::string shown(std::string_view field) {
  std::string text(field.substr(0, 40));
  for (char& c : text)
    if (c < 32 || c > 126) c = '?';
  return field.size() > 40 ? text + "..." : text;
}

}  // namespace

CsvRead read_csv_light_curves(const std::string& path) {
  const std::string text = read_whole_file(path);
  CsvRead result;
  result.identity.format = "csv";
  result.identity.paths = path;
  result.identity.bytes = text.size();
  Fnv1a64 digest;
  digest.update(text.data(), text.size());
  result.identity.digest = digest.hex();

  auto& block = result.block;
  std::unordered_map<std::int64_t, std::size_t> first_line_of;  // id -> line where it began
  int n_columns = 0;
  std::size_t line_no = 0;
  std::size_t object_rows = 0;
  auto where = [&](std::size_t line) { return path + ":" + std::to_string(line); };

  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t eol = text.find('\n', pos);
    if (eol == std::string::npos) eol = text.size();
    std::string_view line(text.data() + pos, eol - pos);
    pos = eol + 1;
    ++line_no;
    if (const auto hash = line.find('#'); hash != std::string_view::npos) line = line.substr(0, hash);

    std::string_view f[5];
    const int n = split_fields(line, f);
    if (n == 0) continue;
    if (n_columns == 0) {
      AS_EXPECTS(n == 3 || n == 4, InputError,
                 where(line_no) + ": expected 3 or 4 columns 'id, t, y[, dy]', found " + std::to_string(n),
                 "fix the line or comment it out with '#'");
      n_columns = n;
    }
    AS_EXPECTS(n == n_columns, InputError,
               where(line_no) + ": expected " + std::to_string(n_columns) +
                   " columns like the first data line, found " + std::to_string(n > 5 ? 5 : n) +
                   (n > 5 ? " or more" : ""),
               "every line must have the same columns 'id, t, y[, dy]'");
    std::int64_t id = 0;
    double v[3] = {0, 0, 0};
    AS_EXPECTS(parse(f[0], id) == Parsed::ok, InputError,
               where(line_no) + ": object id '" + shown(f[0]) + "' is not an integer",
               "ids must be 64-bit integers; a header line must start with '#'");
    for (int c = 1; c < n; ++c) {
      const Parsed parsed = parse(f[c], v[c - 1]);
      AS_EXPECTS(parsed == Parsed::ok, InputError,
                 where(line_no) + ": column " + std::to_string(c + 1) + " value '" + shown(f[c]) +
                     (parsed == Parsed::out_of_range ? "' is outside the range of a double (magnitudes 1e-308 to 1e308)"
                                                     : "' is not a number"),
                 "fix or remove the line (nan is accepted and counted as a non-finite value)");
    }

    if (block.ids.empty() || block.ids.back() != id) {
      auto [it, inserted] = first_line_of.emplace(id, line_no);
      AS_EXPECTS(inserted, InputError,
                 where(line_no) + ": object id " + std::to_string(id) + " appears again; its rows began at line " +
                     std::to_string(it->second) + " and another object came between",
                 "the rows of one object must be contiguous: sort the file by id (stable, keeping time order)");
      if (!block.ids.empty()) block.counts.back() = object_rows;
      block.ids.push_back(id);
      block.counts.push_back(0);
      block.n_flagged.push_back(0);
      object_rows = 0;
    }
    block.t.push_back(v[0]);
    block.y.push_back(v[1]);
    if (n_columns == 4) block.dy.push_back(v[2]);
    ++object_rows;
  }
  if (!block.ids.empty()) block.counts.back() = object_rows;
  AS_EXPECTS(!block.ids.empty(), InputError, "input file '" + path + "' contains no data lines",
             "expected rows 'id, t, y[, dy]'");
  return result;
}

}  // namespace astrosweep::io
