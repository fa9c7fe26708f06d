#include "io/sigproc_tim.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>

#include "core/error.hpp"
#include "io/binary_file.hpp"

namespace astrosweep::io {

static_assert(std::endian::native == std::endian::little, "SIGPROC files are little-endian; so is this reader's host");

std::optional<SigprocValueType> sigproc_keyword_type(const std::string& keyword) {
  // The keyword table of docs/formats.md (and docs/fdas.md, section 1).
  static const std::map<std::string, SigprocValueType> table = {
      {"source_name", SigprocValueType::string},  {"rawdatafile", SigprocValueType::string},
      {"telescope_id", SigprocValueType::int32},  {"machine_id", SigprocValueType::int32},
      {"data_type", SigprocValueType::int32},     {"barycentric", SigprocValueType::int32},
      {"pulsarcentric", SigprocValueType::int32}, {"nbits", SigprocValueType::int32},
      {"nsamples", SigprocValueType::int32},      {"nchans", SigprocValueType::int32},
      {"nifs", SigprocValueType::int32},          {"nbeams", SigprocValueType::int32},
      {"ibeam", SigprocValueType::int32},         {"tstart", SigprocValueType::float64},
      {"tsamp", SigprocValueType::float64},       {"fch1", SigprocValueType::float64},
      {"foff", SigprocValueType::float64},        {"refdm", SigprocValueType::float64},
      {"period", SigprocValueType::float64},      {"refrf", SigprocValueType::float64},
      {"az_start", SigprocValueType::float64},    {"za_start", SigprocValueType::float64},
      {"src_raj", SigprocValueType::float64},     {"src_dej", SigprocValueType::float64},
  };
  const auto it = table.find(keyword);
  if (it == table.end()) return std::nullopt;
  return it->second;
}

std::optional<std::int32_t> SigprocHeader::int_value(const std::string& keyword) const {
  const auto it = ints.find(keyword);
  return it == ints.end() ? std::nullopt : std::optional(it->second);
}
std::optional<double> SigprocHeader::double_value(const std::string& keyword) const {
  const auto it = doubles.find(keyword);
  return it == doubles.end() ? std::nullopt : std::optional(it->second);
}
std::optional<std::string> SigprocHeader::string_value(const std::string& keyword) const {
  const auto it = strings.find(keyword);
  return it == strings.end() ? std::nullopt : std::optional(it->second);
}

namespace {

constexpr const char* damaged_hint = "the header is damaged or the file is not a SIGPROC time series; copy it again";

// A string as it may be shown in a one-line message: damaged bytes as '?', at most 40 characters.
std::string shown(const std::string& text) {
  std::string out = text.substr(0, 40);
  for (char& c : out)
    if (c < 32 || c > 126) c = '?';
  return text.size() > 40 ? out + "..." : out;
}

// Walks the header's bytes; every read checks what is left, so no value is read past the end.
class HeaderCursor {
 public:
  HeaderCursor(std::span<const std::byte> bytes, const std::string& path, bool complete)
      : bytes_(bytes), path_(path), complete_(complete) {}

  [[nodiscard]] std::size_t position() const noexcept { return at_; }

  template <class T>
  T number(const std::string& what) {
    need(sizeof(T), what);
    T value;
    std::memcpy(&value, bytes_.data() + at_, sizeof(T));
    at_ += sizeof(T);
    return value;
  }

  std::string string(const std::string& what) {
    const std::size_t start = at_;
    const auto length = number<std::int32_t>("the length of " + what);
    AS_EXPECTS(length >= 1 && length <= sigproc_max_string, InputError,
               "'" + path_ + "': header byte " + std::to_string(start) + ": " + what + " has a length of " +
                   std::to_string(length) + " bytes (1 to " + std::to_string(sigproc_max_string) +
                   " expected): not a SIGPROC header, or a damaged one",
               damaged_hint);
    need(static_cast<std::size_t>(length), what);
    std::string text(reinterpret_cast<const char*>(bytes_.data() + at_), static_cast<std::size_t>(length));
    at_ += static_cast<std::size_t>(length);
    return text;
  }

 private:
  void need(std::size_t n, const std::string& what) const {
    if (bytes_.size() - at_ >= n) return;
    if (complete_)
      throw InputError("'" + path_ + "': the SIGPROC header is cut short at byte " + std::to_string(bytes_.size()) +
                           " (reading " + what + ", before HEADER_END)",
                       "the file is incomplete (an interrupted copy or download?); copy it again");
    throw InputError("'" + path_ + "': no HEADER_END in the first " + std::to_string(bytes_.size()) +
                         " bytes: not a SIGPROC header, or a damaged one",
                     damaged_hint);
  }

  std::span<const std::byte> bytes_;
  const std::string& path_;
  bool complete_;
  std::size_t at_ = 0;
};

bool printable(const std::string& text) {
  return std::all_of(text.begin(), text.end(), [](char c) { return c >= 33 && c <= 126; });
}

}  // namespace

SigprocHeader parse_sigproc_header(std::span<const std::byte> bytes, const std::string& path, bool complete) {
  HeaderCursor cursor(bytes, path, complete);
  // Told apart before anything else: a file of another kind gets one plain message.
  const bool starts = bytes.size() >= 16 && std::memcmp(bytes.data(), "\x0c\0\0\0HEADER_START", 16) == 0;
  AS_EXPECTS(starts, InputError, "'" + path + "' is not a SIGPROC file: it does not start with the string HEADER_START",
             "give a SIGPROC time series (.tim), e.g. from SIGPROC's dedisperse, or PRESTO .dat/.inf files");
  cursor.string("HEADER_START");
  SigprocHeader header;
  for (;;) {
    const std::size_t at = cursor.position();
    const std::string keyword = cursor.string("a keyword");
    if (keyword == "HEADER_END") break;
    AS_EXPECTS(printable(keyword), InputError,
               "'" + path + "': header byte " + std::to_string(at) + ": the keyword '" + shown(keyword) +
                   "' holds bytes that are not printable text: the header is damaged",
               damaged_hint);
    const auto type = sigproc_keyword_type(keyword);
    AS_EXPECTS(
        type.has_value(), InputError,
        "'" + path + "': unknown SIGPROC header keyword '" + shown(keyword) + "' at header byte " + std::to_string(at),
        "astrosweep reads the keywords listed in docs/formats.md; the size of an unknown keyword's value is "
        "unknown, so the header cannot be read past it. Rewrite the header without it (or report the keyword)");
    const std::string what = "the value of '" + keyword + "'";
    switch (*type) {
      case SigprocValueType::int32: header.ints[keyword] = cursor.number<std::int32_t>(what); break;
      case SigprocValueType::float64: header.doubles[keyword] = cursor.number<double>(what); break;
      case SigprocValueType::string: header.strings[keyword] = cursor.string(what); break;
    }
  }
  header.size = cursor.position();
  return header;
}

SigprocHeader read_sigproc_header(const std::string& path) {
  const std::uint64_t size = input_file_size(path);
  AS_EXPECTS(size > 0, InputError, "input '" + path + "' is empty (0 bytes)",
             "the file is incomplete (an interrupted copy or download?); copy it again");
  const std::uint64_t n = std::min<std::uint64_t>(size, sigproc_max_header_bytes);
  const auto bytes = read_file_range(path, 0, n);
  return parse_sigproc_header(bytes, path, n == size);
}

SigprocTimeSeriesInfo sigproc_time_series_info(const SigprocHeader& header, std::uint64_t file_size,
                                               const std::string& path) {
  const std::string file = "'" + path + "': ";
  constexpr const char* dedisperse_hint =
      "fdas searches dedispersed time series: dedisperse the filterbank first (SIGPROC dedisperse, PRESTO "
      "prepdata/prepsubband)";
  if (const auto nchans = header.int_value("nchans"))
    AS_EXPECTS(*nchans == 1, InputError,
               file + "nchans = " + std::to_string(*nchans) + ": a filterbank, not a time series (nchans = 1)",
               dedisperse_hint);
  if (const auto data_type = header.int_value("data_type"))
    AS_EXPECTS(*data_type == 2, InputError,
               file + "data_type = " + std::to_string(*data_type) + (*data_type == 1 ? " (filterbank)" : "") +
                   ": not a time series (data_type = 2)",
               dedisperse_hint);
  if (const auto nifs = header.int_value("nifs"))
    AS_EXPECTS(*nifs == 1, InputError,
               file + "nifs = " + std::to_string(*nifs) + ": several polarisations, where a time series has one",
               "sum the polarisations before dedispersing");

  SigprocTimeSeriesInfo info;
  const auto nbits = header.int_value("nbits");
  AS_EXPECTS(nbits.has_value(), InputError, file + "the header has no nbits", damaged_hint);
  AS_EXPECTS(*nbits == 8 || *nbits == 16 || *nbits == 32, InputError,
             file + "nbits = " + std::to_string(*nbits) +
                 " is not supported for a time series (8: unsigned, 16: signed integers, 32: float)",
             "write the time series as 32-bit floats");
  info.nbits = *nbits;
  const auto tsamp = header.double_value("tsamp");
  AS_EXPECTS(tsamp.has_value(), InputError, file + "the header has no tsamp", damaged_hint);
  AS_EXPECTS(std::isfinite(*tsamp) && *tsamp > 0, InputError,
             file + "tsamp = " + std::to_string(*tsamp) + " s: the sampling interval must be a positive number",
             damaged_hint);
  info.tsamp = *tsamp;
  const auto tstart = header.double_value("tstart");
  AS_EXPECTS(tstart.has_value(), InputError, file + "the header has no tstart (MJD of the first sample)", damaged_hint);
  AS_EXPECTS(std::isfinite(*tstart), InputError, file + "tstart is not a finite number", damaged_hint);
  info.tstart_mjd = *tstart;
  if (const auto refdm = header.double_value("refdm")) {
    AS_EXPECTS(std::isfinite(*refdm), InputError, file + "refdm is not a finite number", damaged_hint);
    info.dm = *refdm;
    info.has_dm = true;
  }
  info.source_name = header.string_value("source_name").value_or("");
  info.data_offset = header.size;

  const std::uint64_t bytes_per_sample = static_cast<std::uint64_t>(info.nbits) / 8;
  const std::uint64_t data_bytes = file_size - std::min<std::uint64_t>(file_size, header.size);
  const auto nsamples = header.int_value("nsamples");
  AS_EXPECTS(!nsamples || *nsamples >= 0, InputError, file + "nsamples = " + std::to_string(*nsamples) + " is negative",
             damaged_hint);
  if (nsamples && *nsamples > 0) {
    const std::uint64_t expected = static_cast<std::uint64_t>(*nsamples) * bytes_per_sample;
    AS_EXPECTS(data_bytes >= expected, InputError,
               file + "truncated: nsamples = " + std::to_string(*nsamples) + " samples of " +
                   std::to_string(bytes_per_sample) + " bytes need " + std::to_string(expected) +
                   " bytes after the header, found " + std::to_string(data_bytes),
               "the file is incomplete (an interrupted copy or download?); copy it again");
    AS_EXPECTS(data_bytes == expected, InputError,
               file + "the data section holds " + std::to_string(data_bytes) +
                   " bytes, more than nsamples = " + std::to_string(*nsamples) + " samples of " +
                   std::to_string(bytes_per_sample) + " bytes (" + std::to_string(expected) + " bytes)",
               "the header's nsamples or the file is wrong; rewrite the header, or copy the file again");
    info.n_samples = static_cast<std::uint64_t>(*nsamples);
  } else {
    AS_EXPECTS(data_bytes % bytes_per_sample == 0, InputError,
               file + "truncated: the data section of " + std::to_string(data_bytes) +
                   " bytes is not a whole number of " + std::to_string(bytes_per_sample) + "-byte samples (expected " +
                   std::to_string(data_bytes / bytes_per_sample * bytes_per_sample + bytes_per_sample) +
                   " bytes, found " + std::to_string(data_bytes) + ")",
               "the file is incomplete (an interrupted copy or download?); copy it again");
    info.n_samples = data_bytes / bytes_per_sample;
  }
  AS_EXPECTS(info.n_samples > 0, InputError, file + "the time series has no samples (nothing after the header)",
             "the file is incomplete; copy it again");
  return info;
}

SigprocTimeSeries read_sigproc_tim(const std::string& path) {
  SigprocTimeSeries series;
  series.header = read_sigproc_header(path);
  const std::uint64_t size = input_file_size(path);
  series.info = sigproc_time_series_info(series.header, size, path);
  const auto& info = series.info;
  const std::uint64_t bytes_per_sample = static_cast<std::uint64_t>(info.nbits) / 8;
  // The size was checked against the file: these allocations are bounded by the file, not the header.
  series.samples.resize(info.n_samples);
  if (info.nbits == 32) {  // the samples' own bytes: read straight into them
    read_file_into(path, info.data_offset, std::as_writable_bytes(std::span(series.samples)));
    return series;
  }
  const auto bytes = read_file_range(path, info.data_offset, info.n_samples * bytes_per_sample);
  const auto* raw = bytes.data();
  for (std::uint64_t i = 0; i < info.n_samples; ++i) {
    if (info.nbits == 16) {
      std::int16_t v;
      std::memcpy(&v, raw + 2 * i, 2);
      series.samples[i] = static_cast<float>(v);
    } else {
      series.samples[i] = static_cast<float>(std::to_integer<std::uint8_t>(raw[i]));
    }
  }
  return series;
}

}  // namespace astrosweep::io
