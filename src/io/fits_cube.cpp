// FITS cubes through CFITSIO: the primary HDU's shape, cards and a channel range at a time, with
// the raw stored values scaled here exactly as SoFiA-2 scales them.
#include <fcntl.h>
#include <fitsio.h>
#include <omp.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstring>
#include <exception>
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
  if (bitpix > 0) s.blank = f.keyword_integer("BLANK");
  return s;
}

/// A file descriptor for positioned reads, closed on destruction.
class ReadOnlyFile {
 public:
  explicit ReadOnlyFile(const std::string& path) : fd_(::open(path.c_str(), O_RDONLY | O_CLOEXEC)), path_(path) {
    AS_EXPECTS(fd_ >= 0, InputError, "cannot open '" + path + "': " + std::strerror(errno),
               "check that the file exists and is readable");
  }
  ~ReadOnlyFile() { ::close(fd_); }
  ReadOnlyFile(const ReadOnlyFile&) = delete;
  ReadOnlyFile& operator=(const ReadOnlyFile&) = delete;
  /// Reads exactly `bytes` at `offset` (retrying short reads).
  void read(void* to, std::size_t bytes, std::uint64_t offset) const {
    auto* p = static_cast<char*>(to);
    while (bytes > 0) {
      const ssize_t got = ::pread(fd_, p, bytes, static_cast<off_t>(offset));
      if (got < 0 && errno == EINTR) continue;
      AS_EXPECTS(got > 0, InputError,
                 path_ + ": reading the cube's data failed" +
                     (got < 0 ? std::string(": ") + std::strerror(errno) : ": end of file"),
                 "the file may be truncated or on a failing device");
      p += got;
      bytes -= static_cast<std::size_t>(got);
      offset += static_cast<std::uint64_t>(got);
    }
  }

 private:
  int fd_;
  std::string path_;
};

// FITS stores big-endian; the hosts we run on are little-endian.
template <class Raw>
void from_big_endian(std::span<Raw> values) {
  static_assert(std::endian::native == std::endian::little, "big-endian hosts need no swap: add that case");
  for (Raw& v : values) {
    if constexpr (sizeof(Raw) == 2) {
      v = std::bit_cast<Raw>(__builtin_bswap16(std::bit_cast<std::uint16_t>(v)));
    } else if constexpr (sizeof(Raw) == 4) {
      v = std::bit_cast<Raw>(__builtin_bswap32(std::bit_cast<std::uint32_t>(v)));
    } else if constexpr (sizeof(Raw) == 8) {
      v = std::bit_cast<Raw>(__builtin_bswap64(std::bit_cast<std::uint64_t>(v)));
    }
  }
}

// Reads elements [first, first + out.size()) of the data unit (which starts at byte `data_start`)
// as Raw, piece by piece on all OpenMP threads with positioned reads (CFITSIO's buffered reads
// run at well under 1 GB/s on one thread; a cube from the page cache reads at memory speed this
// way), and hands each piece to `convert(raw, out_piece, counts)`. Float32 is read in place.
template <class Raw, class Convert>
ChannelReadCounts read_pieces(const std::string& path, std::uint64_t data_start, std::uint64_t first,
                              std::span<float> out, Convert convert) {
  constexpr bool in_place = std::is_same_v<Raw, float>;
  const ReadOnlyFile file(path);
  // Pieces of read_piece elements, or smaller where that leaves threads idle: a block of a few
  // channels (scfind's GPU rank reads 64 MiB at a time) still keeps every thread reading.
  const auto threads = static_cast<std::size_t>(std::max(1, omp_get_max_threads()));
  const std::size_t piece =
      std::clamp<std::size_t>((out.size() + 2 * threads - 1) / (2 * threads), std::size_t{1} << 16, read_piece);
  const std::size_t pieces = (out.size() + piece - 1) / piece;
  ChannelReadCounts total;
  std::exception_ptr failure;
#pragma omp parallel
  {
    std::vector<Raw> buffer(in_place ? 0 : std::min(piece, out.size()));
    ChannelReadCounts counts;
#pragma omp for schedule(dynamic, 1)
    for (std::size_t k = 0; k < pieces; ++k) {
      try {
        const std::size_t done = k * piece;
        const std::size_t n = std::min(piece, out.size() - done);
        Raw* raw = nullptr;
        if constexpr (in_place)
          raw = out.data() + done;
        else
          raw = buffer.data();
        file.read(raw, n * sizeof(Raw), data_start + (first + done) * sizeof(Raw));
        from_big_endian(std::span<Raw>(raw, n));
        convert(std::span<const Raw>(raw, n), out.subspan(done, n), counts);
      } catch (...) {
#pragma omp critical(astrosweep_fits_read)
        if (!failure) failure = std::current_exception();
      }
    }
#pragma omp critical(astrosweep_fits_read)
    {
      total.blanks += counts.blanks;
      total.infinities += counts.infinities;
    }
  }
  if (failure) std::rethrow_exception(failure);
  return total;
}

}  // namespace

CubeInfo read_fits_cube_info(const std::string& path) {
  fits::File f(path, fits::Name::disk_file);
  f.check_header_cards();  // the cards go into the FITS mask: a damaged one is refused here
  int status = 0, bitpix = 0, naxis = 0;
  LONGLONG naxes[9] = {};
  fits_get_img_paramll(f.get(), 9, &bitpix, &naxis, naxes, &status);
  f.check(status, "reading the primary header");
  AS_EXPECTS(supported_bitpix(bitpix), InputError, path + ": BITPIX = " + std::to_string(bitpix) + " is not supported",
             supported_hint);
  AS_EXPECTS(naxis == 3 || (naxis == 4 && naxes[3] == 1), InputError,
             path + ": " + axes_text(naxis, naxes) + ": not a data cube", supported_hint);
  read_scaling(f, bitpix);  // a malformed BLANK is refused when the cube is opened, not by each rank later
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
  (void)read_scaling(f, bitpix);  // a damaged BSCALE/BZERO/BLANK stops the job here, found by rank 0
  return info;
}

ChannelReadCounts read_fits_cube_channels(const CubeInfo& info, std::size_t z0, std::span<float> out) {
  Scaling scaling;
  LONGLONG header_start = 0, data_start = 0, data_end = 0;
  {
    fits::File f(info.path, fits::Name::disk_file);
    int status = 0;
    fits_get_hduaddrll(f.get(), &header_start, &data_start, &data_end, &status);
    f.check(status, "locating the data unit");
    scaling = read_scaling(f, info.bitpix);  // raw stored values: scaled here in SoFiA-2's order
  }
  const auto start = static_cast<std::uint64_t>(data_start);
  const std::uint64_t first = static_cast<std::uint64_t>(z0) * info.nx * info.ny;
  switch (info.bitpix) {
    case 8:
      return read_pieces<std::uint8_t>(info.path, start, first, out, [&](auto raw, auto o, auto& counts) {
        integers_to_floats(raw, scaling, o, counts);
      });
    case 16:
      return read_pieces<std::int16_t>(info.path, start, first, out, [&](auto raw, auto o, auto& counts) {
        integers_to_floats(raw, scaling, o, counts);
      });
    case 32:
      return read_pieces<std::int32_t>(info.path, start, first, out, [&](auto raw, auto o, auto& counts) {
        integers_to_floats(raw, scaling, o, counts);
      });
    case -32:
      return read_pieces<float>(info.path, start, first, out,
                                [&](auto, auto o, auto& counts) { scale_floats(o, scaling, counts); });
    case -64:
      return read_pieces<double>(info.path, start, first, out,
                                 [&](auto raw, auto o, auto& counts) { doubles_to_floats(raw, scaling, o, counts); });
    default: AS_ASSERT(false && "read_cube_info admits no other BITPIX");
  }
  return {};
}

}  // namespace astrosweep::io::detail
