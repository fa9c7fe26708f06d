// FITS cubes through CFITSIO: the primary HDU's shape, cards and a channel range at a time, with
// the raw stored values scaled here exactly as SoFiA-2 scales them.
#include <fitsio.h>

#include <algorithm>
#include <filesystem>
#include <limits>
#include <type_traits>
#include <vector>

#include "core/error.hpp"
#include "io/cube_detail.hpp"
#include "io/fits.hpp"

namespace astrosweep::io::detail {

namespace {

constexpr const char* supported_hint =
    "scfind reads 3-D cubes (NAXIS = 3, or 4 with NAXIS4 = 1) of BITPIX 8, 16, 32 (integers, scaled by "
    "BSCALE/BZERO) or -32, -64 (floats)";

bool supported_bitpix(int bitpix) {
  return bitpix == 8 || bitpix == 16 || bitpix == 32 || bitpix == -32 || bitpix == -64;
}

std::string axes_text(int naxis, const LONGLONG* naxes) {
  std::string text = "NAXIS = " + std::to_string(naxis);
  if (naxis == 4) text += " with NAXIS4 = " + std::to_string(naxes[3]);
  return text;
}

std::uint64_t product(const std::string& path, std::uint64_t a, std::uint64_t b) {
  AS_EXPECTS(b == 0 || a <= std::numeric_limits<std::uint64_t>::max() / b, InputError,
             path + ": the cube's dimensions are too large (malformed NAXISn?)", supported_hint);
  return a * b;
}

std::vector<std::string> read_cards(const fits::File& f) {
  int status = 0, n_cards = 0, more = 0;
  fits_get_hdrspace(f.get(), &n_cards, &more, &status);
  f.check(status, "reading the primary header");
  std::vector<std::string> cards;
  cards.reserve(static_cast<std::size_t>(n_cards));
  for (int k = 1; k <= n_cards; ++k) {
    char card[FLEN_CARD] = {};
    fits_read_record(f.get(), k, card, &status);
    f.check(status, "reading header card " + std::to_string(k));
    std::string c(card);
    c.resize(80, ' ');  // CFITSIO trims trailing blanks; cards are 80 characters in the file
    cards.push_back(std::move(c));
  }
  return cards;
}

Scaling read_scaling(const fits::File& f, int bitpix) {
  Scaling s;
  s.bscale = f.keyword_double("BSCALE").value_or(1.0);
  s.bzero = f.keyword_double("BZERO").value_or(0.0);
  // BLANK marks undefined integers; for floats NaN does, and the standard forbids BLANK.
  if (bitpix > 0)
    if (auto blank = f.keyword_double("BLANK")) s.blank = static_cast<std::int64_t>(*blank);
  return s;
}

// Reads elements [first, first + out.size()) of the data unit as Raw (CFITSIO type code `type`)
// piece by piece and hands each piece to `convert(raw, out_piece)`. Float32 is read in place.
template <class Raw, class Convert>
void read_pieces(const fits::File& f, int type, std::uint64_t first, std::span<float> out, Convert convert) {
  constexpr bool in_place = std::is_same_v<Raw, float>;
  std::vector<Raw> buffer(in_place ? 0 : std::min(read_piece, out.size()));
  for (std::size_t done = 0; done < out.size(); done += read_piece) {
    const std::size_t n = std::min(read_piece, out.size() - done);
    Raw* raw = nullptr;
    if constexpr (in_place)
      raw = out.data() + done;
    else
      raw = buffer.data();
    int status = 0, any_null = 0;
    // nulval == nullptr: no undefined-value checks; BLANK and NaN are handled in `convert`.
    fits_read_img(f.get(), type, static_cast<LONGLONG>(first + done + 1), static_cast<LONGLONG>(n), nullptr, raw,
                  &any_null, &status);
    f.check(status, "reading the cube's data");
    convert(std::span<const Raw>(raw, n), out.subspan(done, n));
  }
}

}  // namespace

CubeInfo read_fits_cube_info(const std::string& path) {
  fits::File f(path, fits::Name::disk_file);
  int status = 0, bitpix = 0, naxis = 0;
  LONGLONG naxes[9] = {};
  fits_get_img_paramll(f.get(), 9, &bitpix, &naxis, naxes, &status);
  f.check(status, "reading the primary header");
  AS_EXPECTS(supported_bitpix(bitpix), InputError, path + ": BITPIX = " + std::to_string(bitpix) + " is not supported",
             supported_hint);
  AS_EXPECTS(naxis == 3 || (naxis == 4 && naxes[3] == 1), InputError,
             path + ": " + axes_text(naxis, naxes) + ": not a data cube", supported_hint);
  for (int i = 0; i < 3; ++i)
    AS_EXPECTS(naxes[i] > 0, InputError,
               path + ": NAXIS" + std::to_string(i + 1) + " = " + std::to_string(naxes[i]) + ": the cube is empty",
               supported_hint);

  CubeInfo info;
  info.path = path;
  info.format = CubeFormat::fits;
  info.nx = static_cast<std::size_t>(naxes[0]);
  info.ny = static_cast<std::size_t>(naxes[1]);
  info.nz = static_cast<std::size_t>(naxes[2]);
  info.naxis = naxis;
  info.bitpix = bitpix;

  // A data unit cut short reads as garbage or fails on some rank mid-run; find it now. CFITSIO
  // reads whole 2880-byte blocks, so the padding after the data must be there too (SoFiA-2, which
  // reads with fread, would accept a file without it).
  LONGLONG header_start = 0, data_start = 0, data_end = 0;
  fits_get_hduaddrll(f.get(), &header_start, &data_start, &data_end, &status);
  f.check(status, "locating the data unit");
  const auto element_bytes = static_cast<std::uint64_t>(bitpix < 0 ? -bitpix : bitpix) / 8;
  const std::uint64_t data_bytes =
      product(path, product(path, product(path, info.nx, info.ny), info.nz), element_bytes);
  const std::uint64_t needed = static_cast<std::uint64_t>(data_start) + (data_bytes + 2879) / 2880 * 2880;
  std::error_code ec;
  const std::uint64_t file_bytes = std::filesystem::file_size(path, ec);
  AS_EXPECTS(!ec, InputError, path + ": cannot read the file size: " + ec.message());
  AS_EXPECTS(file_bytes >= needed, InputError,
             path + ": truncated: the header and the data (padded to 2880-byte blocks) need " + std::to_string(needed) +
                 " bytes, the file has " + std::to_string(file_bytes),
             "the file is incomplete (an interrupted copy or download?); copy it again");

  info.header_cards = read_cards(f);
  return info;
}

ChannelReadCounts read_fits_cube_channels(const CubeInfo& info, std::size_t z0, std::span<float> out) {
  fits::File f(info.path, fits::Name::disk_file);
  int status = 0;
  // Raw stored values: SoFiA-2 scales them itself, in its own order of roundings.
  fits_set_bscale(f.get(), 1.0, 0.0, &status);
  f.check(status, "reading the cube's data");
  const Scaling scaling = read_scaling(f, info.bitpix);
  const std::uint64_t first = static_cast<std::uint64_t>(z0) * info.nx * info.ny;
  ChannelReadCounts counts;
  static_assert(sizeof(int) == 4 && sizeof(short) == 2, "CFITSIO's TINT and TSHORT must be 32 and 16 bits");
  switch (info.bitpix) {
    case 8:
      read_pieces<std::uint8_t>(f, TBYTE, first, out, [&](std::span<const std::uint8_t> raw, std::span<float> o) {
        integers_to_floats(raw, scaling, o, counts);
      });
      break;
    case 16:
      read_pieces<std::int16_t>(f, TSHORT, first, out, [&](std::span<const std::int16_t> raw, std::span<float> o) {
        integers_to_floats(raw, scaling, o, counts);
      });
      break;
    case 32:
      read_pieces<std::int32_t>(f, TINT, first, out, [&](std::span<const std::int32_t> raw, std::span<float> o) {
        integers_to_floats(raw, scaling, o, counts);
      });
      break;
    case -32:
      read_pieces<float>(f, TFLOAT, first, out,
                         [&](std::span<const float>, std::span<float> o) { scale_floats(o, scaling, counts); });
      break;
    case -64:
      read_pieces<double>(f, TDOUBLE, first, out, [&](std::span<const double> raw, std::span<float> o) {
        doubles_to_floats(raw, scaling, o, counts);
      });
      break;
    default: AS_ASSERT(false && "read_cube_info admits no other BITPIX");
  }
  return counts;
}

}  // namespace astrosweep::io::detail
