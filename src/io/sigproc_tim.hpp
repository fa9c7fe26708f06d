#pragma once
// Reader of SIGPROC time series (`.tim`, docs/formats.md): a binary header of keyword records
// between the strings HEADER_START and HEADER_END, then the samples. Every string (keyword or
// string value) is a little-endian int32 length and that many bytes; a keyword's value is an
// int32, a float64 or a string according to the keyword (the table of sigproc_keyword_type).
// An unknown keyword ends the read: the size of its value is unknown.

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace astrosweep::io {

enum class SigprocValueType { int32, float64, string };

/// The value type of a SIGPROC header keyword; nullopt for a keyword astrosweep does not know.
std::optional<SigprocValueType> sigproc_keyword_type(const std::string& keyword);

/// Longest string (keyword or value) a header may hold: SIGPROC's own limit is 80 characters;
/// longer ones (a long rawdatafile path) are accepted up to this, beyond it the header is damaged.
inline constexpr std::int32_t sigproc_max_string = 4096;
/// No header is longer than this; a file without HEADER_END within it is not a SIGPROC file.
inline constexpr std::size_t sigproc_max_header_bytes = 1 << 16;

/// The header's values by type (each keyword once; a repeated keyword keeps its last value, as
/// SIGPROC's own reader does), and the header's size in bytes (HEADER_START to HEADER_END).
struct SigprocHeader {
  std::map<std::string, std::int32_t> ints;
  std::map<std::string, double> doubles;
  std::map<std::string, std::string> strings;
  std::size_t size = 0;

  [[nodiscard]] std::optional<std::int32_t> int_value(const std::string& keyword) const;
  [[nodiscard]] std::optional<double> double_value(const std::string& keyword) const;
  [[nodiscard]] std::optional<std::string> string_value(const std::string& keyword) const;
};

/// Parses the header at the start of `bytes` (the first bytes of the file `path`, named in the
/// messages). `complete` says whether `bytes` is the whole file: a header that runs past the end
/// is then "cut short", otherwise "longer than sigproc_max_header_bytes". Throws InputError for a
/// file that does not start with HEADER_START, an unknown keyword, a string length beyond
/// sigproc_max_string or below 1, a keyword that is not printable text, a header cut short.
SigprocHeader parse_sigproc_header(std::span<const std::byte> bytes, const std::string& path, bool complete);

/// Reads and parses the header of a file (the first sigproc_max_header_bytes at most).
SigprocHeader read_sigproc_header(const std::string& path);

/// What a time series header says, checked: nchans = 1, nifs = 1, data_type = 2 (each when
/// present), nbits 8 (unsigned), 16 (signed) or 32 (float), tsamp finite and > 0, tstart finite.
struct SigprocTimeSeriesInfo {
  double tsamp = 0;       ///< seconds
  double tstart_mjd = 0;  ///< MJD of the first sample
  double dm = 0;          ///< refdm (pc cm^-3); 0 when the header has none
  bool has_dm = false;    ///< whether refdm was present
  std::string source_name;
  int nbits = 32;
  std::uint64_t n_samples = 0;    ///< nsamples when present and > 0, else from the file size
  std::uint64_t data_offset = 0;  ///< where the samples start (the header's size)
};

/// Checks the header as a time series and counts the samples from the file size: an nsamples
/// that the data section does not hold ("expected ... bytes, found ...") or a data section that
/// is not whole samples is an InputError, as is a series without samples.
SigprocTimeSeriesInfo sigproc_time_series_info(const SigprocHeader& header, std::uint64_t file_size,
                                               const std::string& path);

struct SigprocTimeSeries {
  SigprocTimeSeriesInfo info;
  SigprocHeader header;  ///< every header value, kept for provenance
  std::vector<float> samples;
};

/// Reads a whole `.tim` file; 8- and 16-bit samples are converted to float. Throws InputError
/// naming the file. Non-finite samples are returned as they are (time_series_inputs.hpp refuses them).
SigprocTimeSeries read_sigproc_tim(const std::string& path);

}  // namespace astrosweep::io
