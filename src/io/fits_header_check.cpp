#include "io/fits_header_check.hpp"

#include <array>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <string_view>
#include <utility>

#include "core/error.hpp"

namespace astrosweep::fits {

namespace {

constexpr std::size_t block = 2880;
constexpr std::size_t card = 80;

bool column_string_keyword(std::string_view keyword) {
  for (std::string_view prefix : {"TTYPE", "TFORM", "TUNIT", "TDISP", "TDIM"}) {
    if (keyword.size() <= prefix.size() || keyword.substr(0, prefix.size()) != prefix) continue;
    if (keyword.find_first_not_of("0123456789", prefix.size()) == std::string_view::npos) return true;
  }
  return false;
}

std::string_view trimmed(std::string_view s) {
  const auto b = s.find_first_not_of(' ');
  if (b == std::string_view::npos) return {};
  return s.substr(b, s.find_last_not_of(' ') - b + 1);
}

// The integer value of a fixed- or free-format card, if it is one.
bool integer_value(std::string_view value, long long& out) {
  const std::string text(trimmed(value.substr(0, value.find('/'))));
  if (text.empty()) return false;
  char* end = nullptr;
  out = std::strtoll(text.c_str(), &end, 10);
  return *end == '\0';
}

// A card's keyword and value as CFITSIO reads them: '=' in column 9 (CFITSIO takes a value
// without the standard's blank after it), or else CFITSIO's long-keyword form `NAME = value`
// with '=' anywhere after a name of one word, which the standard does not know but CFITSIO
// parses into the same table fields (a 71-character unquoted `TTYPE1 =` value overflowed one).
// No value: an empty keyword.
std::pair<std::string_view, std::string_view> keyword_and_value(std::string_view text) {
  if (text[8] == '=') return {trimmed(text.substr(0, 8)), text.substr(9)};
  const auto equals = text.find('=');
  if (equals == std::string_view::npos) return {};
  const std::string_view name = trimmed(text.substr(0, equals));
  if (name.empty() || name.find(' ') != std::string_view::npos) return {};
  return {name, text.substr(equals + 1)};
}

// Whether TFIELDS's value, read as CFITSIO reads it (the leading integer, whatever follows), is
// within the standard's 0 … 999: CFITSIO allocates a column structure per field before looking
// further, so `TFIELDS = 2147483648` had it ask for 343 GB (the fits_light_curves fuzz target).
bool columns_within_standard(std::string_view value) {
  const std::string text(trimmed(value));
  char* end = nullptr;
  const long long n = std::strtoll(text.c_str(), &end, 10);
  return end == text.c_str() || (n >= 0 && n <= 999);  // no number: CFITSIO's own error
}

}  // namespace

void check_column_string_cards(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::array<char, block> buffer{};
  std::uint64_t offset = 0;
  for (int hdu = 1; in; ++hdu) {
    // The header: cards until END, in whole blocks; the sizes that say where the next HDU starts.
    long long bitpix = 0, naxis = 0, pcount = 0, gcount = 1;
    std::array<long long, 1000> naxes{};
    bool end = false;
    while (!end) {
      in.seekg(static_cast<std::streamoff>(offset));
      if (!in.read(buffer.data(), block)) return;
      // Not plain FITS (a gzip file, which CFITSIO unpacks itself): no SIMPLE card. Read as CFITSIO
      // reads it, with the '=' wherever the long-keyword form puts it (`SIMPLE    =` hid a file from
      // these checks while CFITSIO read it).
      if (offset == 0 && keyword_and_value(std::string_view(buffer.data(), card)).first != "SIMPLE") return;
      offset += block;
      for (std::size_t c = 0; c < block / card && !end; ++c) {
        const std::string_view text(buffer.data() + c * card, card);
        end = trimmed(text.substr(0, 8)) == "END";
        const auto [keyword, value] = keyword_and_value(text);
        if (end || keyword.empty()) continue;
        AS_EXPECTS(!column_string_keyword(keyword) || trimmed(value).substr(0, 1) == "'", InputError,
                   path + ": HDU " + std::to_string(hdu) + ", header card " + std::string(keyword) +
                       ": the value is not a quoted string, which the FITS standard requires there",
                   "the file is not valid FITS; re-create or re-download it");
        AS_EXPECTS(keyword != "TFIELDS" || columns_within_standard(value), InputError,
                   path + ": HDU " + std::to_string(hdu) + ", header card TFIELDS: more than the 999 columns " +
                       "the FITS standard allows",
                   "the file is not valid FITS; re-create or re-download it");
        long long v = 0;
        if (!integer_value(value, v)) continue;
        if (keyword == "BITPIX") bitpix = v;
        if (keyword == "NAXIS") naxis = v;
        if (keyword == "PCOUNT") pcount = v;
        if (keyword == "GCOUNT") gcount = v;
        if (keyword.size() > 5 && keyword.substr(0, 5) == "NAXIS") {
          const long long axis = std::atoll(std::string(keyword.substr(5)).c_str());
          if (axis >= 1 && axis < static_cast<long long>(naxes.size())) naxes[static_cast<std::size_t>(axis)] = v;
        }
      }
    }
    // The data unit, to skip: |BITPIX|/8 · GCOUNT · (PCOUNT + NAXIS1···NAXISn); stop on anything odd.
    const bool standard_bitpix = bitpix == 8 || bitpix == 16 || bitpix == 32 || bitpix == 64 || bitpix == -32 ||
                                 bitpix == -64;  // any other CFITSIO refuses (and -LLONG_MIN would overflow)
    if (!standard_bitpix || naxis < 0 || naxis >= static_cast<long long>(naxes.size()) || pcount < 0 || gcount < 0)
      return;
    std::uint64_t elements = naxis == 0 ? 0 : 1;
    constexpr auto limit = std::numeric_limits<std::uint64_t>::max() / 16;
    for (long long a = 1; a <= naxis; ++a) {
      if (naxes[static_cast<std::size_t>(a)] < 0) return;
      const auto n = static_cast<std::uint64_t>(naxes[static_cast<std::size_t>(a)]);
      if (n != 0 && elements > limit / n) return;
      elements *= n;
    }
    const auto bytes_per_element = static_cast<std::uint64_t>(bitpix < 0 ? -bitpix : bitpix) / 8;  // 1 … 8
    if (elements > limit - static_cast<std::uint64_t>(pcount)) return;
    const std::uint64_t data = (naxis == 0 ? 0 : elements + static_cast<std::uint64_t>(pcount));
    if (data != 0 && static_cast<std::uint64_t>(gcount) > limit / data) return;
    const std::uint64_t bytes = data * static_cast<std::uint64_t>(gcount) * bytes_per_element;
    if (bytes > limit) return;
    offset += (bytes + block - 1) / block * block;
  }
}

}  // namespace astrosweep::fits
