#include "io/csv_light_curves.hpp"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <deque>
#include <filesystem>
#include <fstream>
#include <string_view>
#include <unordered_map>

#include "core/error.hpp"

namespace astrosweep::io {

namespace {

// The file opened for reading, with the same messages for a missing, directory or unreadable input
// as before it was read a piece at a time.
std::ifstream open_input(const std::string& path) {
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
  return in;
}

// Bytes read at a time: large enough that a read costs nothing next to parsing it.
constexpr std::size_t read_bytes = std::size_t{4} << 20;

// The line where each object's rows began, to name it when its id comes back after another
// object. Ids that arrive in increasing order (a file sorted by id, the usual case) are kept in a
// sorted deque, 16 bytes an object (a vector would double, and copy itself, as it grows); the
// others in a hash map.
class FirstLines {
 public:
  /// The line where `id` began, or 0 when it is new (it is then recorded as beginning at `line`).
  std::size_t find_or_add(std::int64_t id, std::size_t line) {
    if ((sorted_.empty() || id > sorted_.back().first) && !other_.contains(id)) {
      sorted_.emplace_back(id, line);
      return 0;
    }
    const auto at = std::lower_bound(sorted_.begin(), sorted_.end(), id, [](auto& e, auto v) { return e.first < v; });
    if (at != sorted_.end() && at->first == id) return at->second;
    const auto [it, inserted] = other_.emplace(id, line);
    return inserted ? 0 : it->second;
  }

 private:
  std::deque<std::pair<std::int64_t, std::size_t>> sorted_;
  std::unordered_map<std::int64_t, std::size_t> other_;
};

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

StreamedInput stream_csv_light_curves(const std::string& path, LightCurveSink& sink, std::uint64_t block_rows) {
  std::ifstream in = open_input(path);
  StreamedInput result;
  result.identity.format = "csv";
  result.identity.paths = path;
  Fnv1a64 digest;

  ObjectBatcher out(sink, block_rows);
  FirstLines first_line_of;
  int n_columns = 0;
  std::size_t line_no = 0;
  std::size_t object_rows = 0;
  std::int64_t current_id = 0;
  std::uint64_t n_objects = 0;
  auto where = [&](std::size_t line) { return path + ":" + std::to_string(line); };

  auto parse_line = [&](std::string_view line) {
    ++line_no;
    if (const auto hash = line.find('#'); hash != std::string_view::npos) line = line.substr(0, hash);

    std::string_view f[5];
    const int n = split_fields(line, f);
    if (n == 0) return;
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

    auto& block = out.block();
    if (n_objects == 0 || id != current_id) {
      const std::size_t began = first_line_of.find_or_add(id, line_no);
      AS_EXPECTS(began == 0, InputError,
                 where(line_no) + ": object id " + std::to_string(id) + " appears again; its rows began at line " +
                     std::to_string(began) + " and another object came between",
                 "the rows of one object must be contiguous: sort the file by id (stable, keeping time order)");
      if (n_objects > 0) {
        block.counts.back() = object_rows;
        out.object_done();  // the previous object is whole: the block may be passed on
      }
      block.ids.push_back(id);
      block.counts.push_back(0);
      block.n_flagged.push_back(0);
      current_id = id;
      ++n_objects;
      object_rows = 0;
    }
    block.t.push_back(v[0]);
    block.y.push_back(v[1]);
    if (n_columns == 4) block.dy.push_back(v[2]);
    ++object_rows;
  };

  // Whole lines are parsed as they arrive; a line cut by the end of a read waits at the front of
  // the buffer for the rest of it. Lines are counted as before: a last line without '\n' is one.
  std::string buffer;
  std::size_t start = 0;
  for (;;) {
    buffer.erase(0, start);
    start = 0;
    const std::size_t kept = buffer.size();
    buffer.resize(kept + read_bytes);
    in.read(buffer.data() + kept, static_cast<std::streamsize>(read_bytes));
    const auto got = static_cast<std::size_t>(in.gcount());
    buffer.resize(kept + got);
    AS_EXPECTS(!in.bad(), InputError, "reading '" + path + "' failed");
    digest.update(buffer.data() + kept, got);
    result.identity.bytes += got;
    for (std::size_t eol; (eol = buffer.find('\n', start)) != std::string::npos; start = eol + 1)
      parse_line(std::string_view(buffer.data() + start, eol - start));
    if (got == 0) break;
  }
  if (start < buffer.size()) parse_line(std::string_view(buffer.data() + start, buffer.size() - start));
  AS_EXPECTS(n_objects > 0, InputError, "input file '" + path + "' contains no data lines",
             "expected rows 'id, t, y[, dy]'");
  out.block().counts.back() = object_rows;
  out.flush();
  result.identity.digest = digest.hex();
  return result;
}

CsvRead read_csv_light_curves(const std::string& path) {
  BlockCollector all;
  auto streamed = stream_csv_light_curves(path, all, default_block_rows);
  return {all.take(), std::move(streamed.identity)};
}

}  // namespace astrosweep::io
