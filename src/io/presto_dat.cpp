#include "io/presto_dat.hpp"

#include <bit>
#include <charconv>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <optional>
#include <string_view>

#include "core/error.hpp"
#include "io/binary_file.hpp"

namespace astrosweep::io {

static_assert(std::endian::native == std::endian::little, "PRESTO .dat files are little-endian; so is this host");

namespace {

constexpr const char* label_count = "Number of bins in the time series";
constexpr const char* label_tsamp = "Width of each time series bin (sec)";
constexpr const char* label_epoch = "Epoch of observation (MJD)";
constexpr const char* label_dm = "Dispersion measure (cm-3 pc)";
constexpr const char* label_object = "Object being observed";
constexpr const char* label_notes = "Any additional notes:";
constexpr const char* inf_hint = "an .inf file has one 'label = value' per line, as PRESTO writes it; repair the line";

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

// A line as it may be shown in a one-line message: damaged bytes as '?', at most 60 characters.
std::string shown(std::string_view text) {
  std::string out(text.substr(0, 60));
  for (char& c : out)
    if (c < 32 || c > 126) c = '?';
  return text.size() > 60 ? out + "..." : out;
}

template <class T>
bool parse_number(std::string_view s, T& out) {
  if (!s.empty() && s.front() == '+') s.remove_prefix(1);
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && end == s.data() + s.size();
}

}  // namespace

PrestoInf read_presto_inf(const std::string& inf_path) {
  const std::uint64_t size = input_file_size(inf_path);
  AS_EXPECTS(size > 0, InputError, "input '" + inf_path + "' is empty (0 bytes)",
             "the .inf is incomplete; copy it again (or write it with PRESTO)");
  AS_EXPECTS(size <= (1U << 20), InputError,
             "'" + inf_path + "' is " + std::to_string(size) + " bytes long: not a PRESTO .inf file (a few kB)",
             "give the .inf text header of the .dat");
  const auto bytes = read_file_range(inf_path, 0, size);
  const std::string_view text(reinterpret_cast<const char*>(bytes.data()), bytes.size());

  PrestoInf inf;
  std::optional<std::size_t> count_line, tsamp_line, epoch_line;
  std::size_t line_no = 0;
  bool in_notes = false;
  for (std::size_t pos = 0; pos < text.size();) {
    std::size_t eol = text.find('\n', pos);
    if (eol == std::string_view::npos) eol = text.size();
    const std::string_view raw = text.substr(pos, eol - pos);
    pos = eol + 1;
    ++line_no;
    const std::string where = inf_path + ":" + std::to_string(line_no);
    if (in_notes) {
      inf.notes += std::string(trim(raw)) + "\n";
      continue;
    }
    const std::string_view line = trim(raw);
    if (line.empty()) continue;
    if (line == label_notes) {
      in_notes = true;
      continue;
    }
    const auto eq = line.find('=');
    AS_EXPECTS(eq != std::string_view::npos && !trim(line.substr(0, eq)).empty(), InputError,
               where + ": expected 'label = value', found '" + shown(line) + "'", inf_hint);
    const std::string label(trim(line.substr(0, eq)));
    const std::string_view value = trim(line.substr(eq + 1));
    inf.fields.emplace_back(label, std::string(value));
    auto number = [&](double& out) {
      AS_EXPECTS(parse_number(value, out) && std::isfinite(out), InputError,
                 where + ": '" + label + "' = '" + shown(value) + "' is not a number", inf_hint);
    };
    if (label == label_count) {
      AS_EXPECTS(parse_number(value, inf.n_samples), InputError,
                 where + ": '" + label + "' = '" + shown(value) + "' is not a whole number of samples", inf_hint);
      count_line = line_no;
    } else if (label == label_tsamp) {
      number(inf.tsamp);
      AS_EXPECTS(inf.tsamp > 0, InputError, where + ": '" + label + "' = '" + shown(value) + "' is not positive",
                 inf_hint);
      tsamp_line = line_no;
    } else if (label == label_epoch) {
      number(inf.epoch_mjd);
      epoch_line = line_no;
    } else if (label == label_dm) {
      number(inf.dm);
      inf.has_dm = true;
    } else if (label == label_object) {
      inf.object = std::string(value);
    }
  }
  auto require = [&](const std::optional<std::size_t>& line, const char* label) {
    AS_EXPECTS(line.has_value(), InputError, "'" + inf_path + "' has no line '" + label + " = ...'",
               "the .inf is incomplete or not PRESTO's; write it with PRESTO (prepdata, prepsubband)");
  };
  require(count_line, label_count);
  require(tsamp_line, label_tsamp);
  require(epoch_line, label_epoch);
  AS_EXPECTS(inf.n_samples > 0, InputError,
             inf_path + ":" + std::to_string(*count_line) + ": the time series has no samples",
             "give a series with samples");
  return inf;
}

PrestoPaths presto_paths(const std::string& dat_or_inf) {
  namespace fs = std::filesystem;
  const fs::path path(dat_or_inf);
  const auto ext = path.extension().string();
  AS_EXPECTS(ext == ".dat" || ext == ".inf", InputError,
             "'" + dat_or_inf + "' is not a PRESTO time series: its name ends neither in .dat nor in .inf",
             "give NAME.dat (with NAME.inf beside it), or NAME.inf");
  PrestoPaths paths;
  paths.dat = fs::path(path).replace_extension(".dat").string();
  paths.inf = fs::path(path).replace_extension(".inf").string();
  std::error_code ec;
  const std::string& other = ext == ".dat" ? paths.inf : paths.dat;
  AS_EXPECTS(fs::exists(dat_or_inf, ec), InputError, "input '" + dat_or_inf + "' does not exist",
             "check the path given to --input");
  AS_EXPECTS(fs::exists(other, ec), InputError,
             "'" + dat_or_inf + "' has no " + (ext == ".dat" ? "header" : "samples") + " '" + other + "' beside it",
             ext == ".dat" ? "PRESTO writes NAME.inf with NAME.dat (sample count, tsamp, epoch, DM); copy it too"
                           : "PRESTO writes NAME.dat (float32 samples) with NAME.inf; copy it too");
  return paths;
}

void check_presto_dat_size(const PrestoPaths& paths, const PrestoInf& inf) {
  const std::uint64_t size = input_file_size(paths.dat);
  // Compared as a sample count, so an absurd count in the .inf cannot wrap 4 × count around.
  const bool agree = size % 4 == 0 && size / 4 == inf.n_samples;
  const std::string expected = inf.n_samples <= UINT64_MAX / 4 ? std::to_string(inf.n_samples * 4) : "more than 2^64";
  AS_EXPECTS(agree, InputError,
             "'" + paths.dat + "' holds " + std::to_string(size) + " bytes" +
                 (size % 4 == 0 ? " (" + std::to_string(size / 4) + " float32 samples)" : std::string()) + ", but '" +
                 paths.inf + "' says " + std::to_string(inf.n_samples) + " samples (" + expected + " bytes)",
             size / 4 < inf.n_samples
                 ? "the .dat is cut short (an interrupted copy or download?); copy it again"
                 : "the .inf does not belong to this .dat, or was edited; use the pair PRESTO wrote");
}

PrestoTimeSeries read_presto_dat(const std::string& dat_or_inf) {
  PrestoTimeSeries series;
  series.paths = presto_paths(dat_or_inf);
  series.inf = read_presto_inf(series.paths.inf);
  check_presto_dat_size(series.paths, series.inf);
  series.samples.resize(series.inf.n_samples);
  read_file_into(series.paths.dat, 0, std::as_writable_bytes(std::span(series.samples)));
  return series;
}

}  // namespace astrosweep::io
