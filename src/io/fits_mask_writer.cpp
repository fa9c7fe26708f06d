// The FITS mask product. Plain, written in parallel: rank 0 lays out the file (header cards,
// zero-filled data unit of the final size) with plain file I/O, then every rank writes its channels
// with MPI-IO at their byte offsets; BITPIX 8 needs no byte swapping, so no FITS library is needed
// for the data. Tile-compressed: CFITSIO writes the file on rank 0, which receives the other
// ranks' channels one at a time.
#include <fitsio.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <memory>
#include <set>
#include <vector>

#include "core/error.hpp"
#include "core/mpi.hpp"
#include "io/cube.hpp"
#include "io/fits.hpp"

namespace astrosweep::io {

namespace {

constexpr std::uint64_t fits_block = 2880;
constexpr std::size_t card_length = 80;

std::uint64_t padded(std::uint64_t bytes) { return (bytes + fits_block - 1) / fits_block * fits_block; }

std::string keyword_of(const std::string& card) {
  std::string key = card.substr(0, 8);
  key.erase(key.find_last_not_of(' ') + 1);
  return key;
}

std::string card(std::string text) {
  text.resize(card_length, ' ');
  return text;
}

std::string integer_card(const char* key, std::uint64_t value, const char* comment) {
  char text[card_length + 1] = {};
  std::snprintf(text, sizeof text, "%-8s= %20llu / %s", key, static_cast<unsigned long long>(value), comment);
  return card(text);
}

// The input's cards with the data description changed to an unsigned-byte mask; keywords that
// describe the input's values (scaling, blanks, range, unit, checksums) dropped; no END.
std::vector<std::string> mask_cards(const CubeInfo& like, int bitpix = 8) {
  const char* what = bitpix == 8 ? "mask: unsigned bytes" : "source mask: 32-bit source ids";
  static const std::set<std::string> dropped{"BSCALE",  "BZERO", "BLANK",    "DATAMIN",
                                             "DATAMAX", "BUNIT", "CHECKSUM", "DATASUM"};
  std::vector<std::string> cards;
  if (like.header_cards.empty()) {  // an HDF5 input: the mandatory cards only
    cards.push_back(card("SIMPLE  =                    T / conforms to the FITS standard"));
    cards.push_back(integer_card("BITPIX", static_cast<std::uint64_t>(bitpix), what));
    cards.push_back(integer_card("NAXIS", 3, "number of data axes"));
    cards.push_back(integer_card("NAXIS1", like.nx, "length of data axis 1"));
    cards.push_back(integer_card("NAXIS2", like.ny, "length of data axis 2"));
    cards.push_back(integer_card("NAXIS3", like.nz, "length of data axis 3"));
  } else {
    AS_ASSERT(keyword_of(like.header_cards.front()) == "SIMPLE");
    for (const auto& c : like.header_cards) {
      const std::string key = keyword_of(c);
      if (dropped.contains(key)) continue;
      if (key == "BITPIX")
        cards.push_back(integer_card("BITPIX", static_cast<std::uint64_t>(bitpix), what));
      else if (key == "NAXIS1")
        cards.push_back(integer_card("NAXIS1", like.nx, "length of data axis 1"));
      else if (key == "NAXIS2")
        cards.push_back(integer_card("NAXIS2", like.ny, "length of data axis 2"));
      else if (key == "NAXIS3")
        cards.push_back(integer_card("NAXIS3", like.nz, "length of data axis 3"));
      else
        cards.push_back(card(c));
    }
  }
  return cards;
}

std::string mask_header(const CubeInfo& like, int bitpix = 8) {
  std::vector<std::string> cards = mask_cards(like, bitpix);
  cards.push_back(card("END"));
  std::string header;
  for (const auto& c : cards) header += c;
  header.resize(padded(header.size()), ' ');
  return header;
}

// Keywords CFITSIO writes itself for a tile-compressed image (the image's shape, the binary
// table that holds the tiles), which a card copied from the input must not repeat.
bool written_by_cfitsio(const std::string& key) {
  static const std::set<std::string> keys{"SIMPLE",   "BITPIX",   "NAXIS",    "EXTEND",   "XTENSION", "PCOUNT",
                                          "GCOUNT",   "TFIELDS",  "THEAP",    "ZIMAGE",   "ZCMPTYPE", "ZBITPIX",
                                          "ZSIMPLE",  "ZTENSION", "ZEXTEND",  "ZBLOCKED", "ZPCOUNT",  "ZGCOUNT",
                                          "ZHECKSUM", "ZDATASUM", "ZQUANTIZ", "ZDITHER0", "END"};
  if (keys.contains(key)) return true;
  for (const std::string prefix : {"NAXIS", "TTYPE", "TFORM", "TUNIT", "TDIM", "ZNAXIS", "ZTILE", "ZNAME", "ZVAL"}) {
    if (key.size() > prefix.size() && key.compare(0, prefix.size(), prefix) == 0 &&
        std::all_of(key.begin() + static_cast<std::ptrdiff_t>(prefix.size()), key.end(),
                    [](char c) { return c >= '0' && c <= '9'; }))
      return true;
  }
  return false;
}

// Rank 0 only: whether the mask may be written to `path` (through its temporary name `part`).
void check_output(const std::string& path, const std::string& part, bool overwrite) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path p(path);
  const fs::path dir = p.has_parent_path() ? p.parent_path() : fs::path(".");
  AS_EXPECTS(fs::is_directory(dir, ec), OutputError,
             "cannot write '" + path + "': directory '" + dir.string() + "' does not exist",
             "create the directory first, or choose another output path");
  if (fs::exists(p, ec)) {
    AS_EXPECTS(!fs::is_directory(p, ec), OutputError, "output '" + path + "' is a directory",
               "give the mask a file name");
    AS_EXPECTS(fs::is_regular_file(p, ec), OutputError,
               "output '" + path + "' exists and is not a regular file (a device, pipe or socket)",
               "give the mask the name of a file");
    AS_EXPECTS(overwrite, OutputError, "output '" + path + "' exists", "remove it, or pass --overwrite");
  }
  AS_EXPECTS(!fs::exists(part, ec) || fs::is_regular_file(part, ec), OutputError,
             "'" + part + "' (the name of the mask while it is written) exists and is not a regular file",
             "remove it, or give the mask another name");
}

// Rank 0 only: the file (under its temporary name `part`) with its header and a zero data unit of
// the final size (sparse where the file system allows), so ranks can write anywhere in it.
void lay_out_file(const std::string& path, const std::string& part, const std::string& header, std::uint64_t total,
                  bool overwrite) {
  check_output(path, part, overwrite);
  std::error_code ec;
  {
    std::ofstream out(part, std::ios::binary | std::ios::trunc);
    AS_EXPECTS(out, OutputError, "cannot create '" + part + "': " + std::strerror(errno),
               "check that the directory is writable");
    out.write(header.data(), static_cast<std::streamsize>(header.size()));
    out.close();
    AS_EXPECTS(out, OutputError, "cannot write the header of '" + part + "'", "check the free space and quota");
  }
  std::filesystem::resize_file(part, total, ec);
  AS_EXPECTS(!ec, OutputError, "cannot make '" + part + "' " + std::to_string(total) + " bytes long: " + ec.message(),
             "check the free space and quota");
}

std::string mpi_error_text(int rc) {
  char text[MPI_MAX_ERROR_STRING] = {};
  int length = 0;
  MPI_Error_string(rc, text, &length);
  return std::string(text, static_cast<std::size_t>(length));
}

// Rank 0 only: the tile-compressed image (under its temporary name `part`), one tile per channel,
// with the input's cards; its tiles follow as the channels arrive.
std::unique_ptr<fits::File> create_tiles(const std::string& path, const std::string& part, const CubeInfo& like,
                                         FitsCompression compression, bool overwrite) {
  check_output(path, part, overwrite);
  std::error_code ec;
  std::filesystem::remove(part, ec);  // a stopped run's
  auto file = std::make_unique<fits::File>(part, fits::create_new);
  fitsfile* f = file->get();
  int status = 0;
  fits_set_compression_type(f, compression == FitsCompression::rice ? RICE_1 : GZIP_1, &status);
  // Three axes even for a cube with a degenerate fourth (NAXIS4 = 1): CFITSIO compresses images of
  // at most three ("only 1D, 2D, or 3D images are currently supported"). Its WCS cards stay.
  long tile[3] = {static_cast<long>(like.nx), static_cast<long>(like.ny), 1};
  fits_set_tile_dim(f, 3, tile, &status);
  LONGLONG naxes[3] = {static_cast<LONGLONG>(like.nx), static_cast<LONGLONG>(like.ny), static_cast<LONGLONG>(like.nz)};
  fits_create_imgll(f, BYTE_IMG, 3, naxes, &status);
  file->check_write(status, "creating the tile-compressed image");
  for (const auto& c : mask_cards(like))
    if (!written_by_cfitsio(keyword_of(c))) fits_write_record(f, c.c_str(), &status);
  file->check_write(status, "writing the header");
  return file;
}

// The file a mask written to `path` ends up in: through a symbolic link, its target (the rename
// that completes the mask must replace the file, not the link).
std::string final_name(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_symlink(path, ec)) return path;
  const auto target = std::filesystem::weakly_canonical(path, ec);
  return ec ? path : target.string();
}

// True on every rank when `ok` holds on every rank of `comm`.
bool all_ranks(MPI_Comm comm, bool ok) {
  int value = ok ? 1 : 0;
  AS_MPI_TRY(MPI_Allreduce(MPI_IN_PLACE, &value, 1, MPI_INT, MPI_MIN, comm));
  return value == 1;
}

}  // namespace

FitsMaskWriter::FitsMaskWriter(const std::string& path, const CubeInfo& like, MPI_Comm comm, bool overwrite,
                               FitsCompression compression, int bitpix)
    : compression_(compression),
      path_(final_name(path)),
      part_(path_ + ".part"),
      nx_(like.nx),
      ny_(like.ny),
      plane_(static_cast<std::uint64_t>(like.nx) * like.ny),
      nz_(like.nz),
      comm_(comm) {
  AS_ASSERT(plane_ > 0 && nz_ > 0 && (bitpix == 8 || (bitpix == 32 && compression == FitsCompression::none)));
  bytes_per_voxel_ = static_cast<std::uint64_t>(bitpix / 8);
  if (compression_ != FitsCompression::none) {
    // Channels travel to rank 0 one at a time, counted in MPI's int.
    AS_EXPECTS(plane_ <= static_cast<std::uint64_t>(std::numeric_limits<int>::max()), UsageError,
               "a channel of " + std::to_string(plane_) + " voxels is too large for a tile-compressed FITS mask",
               "write the FITS mask plain (--fits-mask-compression none)");
    mpi::on_root_then_share_failure(comm, [&] { tiles_ = create_tiles(path_, part_, like, compression_, overwrite); });
    return;
  }
  const std::string header = mask_header(like, bitpix);
  data_offset_ = header.size();
  const std::uint64_t total = data_offset_ + padded(plane_ * nz_ * bytes_per_voxel_);
  mpi::on_root_then_share_failure(comm, [&] { lay_out_file(path_, part_, header, total, overwrite); });

  const int rc = MPI_File_open(comm, part_.c_str(), MPI_MODE_WRONLY, MPI_INFO_NULL, &file_);
  if (rc != MPI_SUCCESS) file_ = MPI_FILE_NULL;
  // A rank that opened the file must not go on alone to collective writes: all fail together.
  if (!all_ranks(comm, rc == MPI_SUCCESS))
    throw OutputError("cannot open '" + part_ + "' for parallel writing" +
                          (rc != MPI_SUCCESS ? ": " + mpi_error_text(rc) : std::string(" on every rank")),
                      "the output must be on a file system that every rank can reach");
}

FitsMaskWriter::~FitsMaskWriter() {
  // Closing is collective: not while one rank unwinds an error, nor after MPI has ended.
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized || completed_) return;
  tiles_.reset();  // rank 0's CFITSIO file, closed by rank 0 alone
  if (file_ != MPI_FILE_NULL && !mpi::unwinding_in_parallel()) MPI_File_close(&file_);
  // Never closed: the mask is not complete, and rank 0 removes its temporary file (unlinking is
  // safe while other ranks still have it open). A run killed outright leaves NAME.part behind.
  int rank = 0;
  MPI_Comm_rank(comm_, &rank);
  std::error_code ec;
  if (rank == 0) std::filesystem::remove(part_, ec);
}

void FitsMaskWriter::write_channels(std::size_t z0, std::span<const std::uint8_t> mask) {
  AS_ASSERT(mask.size() % plane_ == 0);
  AS_ASSERT(mask.empty() || z0 + mask.size() / plane_ <= nz_);
  AS_ASSERT(bytes_per_voxel_ == 1);
  if (compression_ != FitsCompression::none) {
    write_tiles(z0, mask);
    return;
  }
  write_plain(data_offset_ + static_cast<std::uint64_t>(z0) * plane_, mask);
}

void FitsMaskWriter::write_channels(std::size_t z0, std::span<const std::int32_t> labels) {
  AS_ASSERT(bytes_per_voxel_ == 4 && labels.size() % plane_ == 0);
  AS_ASSERT(labels.empty() || z0 + labels.size() / plane_ <= nz_);
  std::vector<std::uint8_t> bytes(labels.size() * 4);  // big-endian, as FITS stores integers
  for (std::size_t i = 0; i < labels.size(); ++i) {
    const auto v = static_cast<std::uint32_t>(labels[i]);
    bytes[4 * i] = static_cast<std::uint8_t>(v >> 24);
    bytes[4 * i + 1] = static_cast<std::uint8_t>(v >> 16);
    bytes[4 * i + 2] = static_cast<std::uint8_t>(v >> 8);
    bytes[4 * i + 3] = static_cast<std::uint8_t>(v);
  }
  write_plain(data_offset_ + static_cast<std::uint64_t>(z0) * plane_ * 4, bytes);
}

void FitsMaskWriter::write_plain(std::uint64_t offset, std::span<const std::uint8_t> bytes) {
  AS_ASSERT(file_ != MPI_FILE_NULL);
  // MPI counts are int: pieces of at most 1 GiB, and every rank must make the same number of
  // collective calls, so the largest rank's count sets it.
  constexpr std::uint64_t piece = std::uint64_t{1} << 30;
  std::uint64_t pieces = (bytes.size() + piece - 1) / piece;
  AS_MPI_TRY(MPI_Allreduce(MPI_IN_PLACE, &pieces, 1, MPI_UINT64_T, MPI_MAX, comm_));
  static const std::uint8_t nothing = 0;  // a valid address for zero-byte writes
  int failure = MPI_SUCCESS;
  for (std::uint64_t k = 0; k < pieces; ++k) {
    const std::uint64_t begin = std::min<std::uint64_t>(k * piece, bytes.size());
    const auto n = static_cast<int>(std::min<std::uint64_t>(piece, bytes.size() - begin));
    MPI_Status status;
    const int rc = MPI_File_write_at_all(file_, static_cast<MPI_Offset>(offset + begin),
                                         n > 0 ? bytes.data() + begin : &nothing, n, MPI_BYTE, &status);
    if (rc != MPI_SUCCESS && failure == MPI_SUCCESS) failure = rc;
  }
  if (!all_ranks(comm_, failure == MPI_SUCCESS))
    throw OutputError("writing the bytes to '" + part_ + "' failed" +
                          (failure != MPI_SUCCESS ? ": " + mpi_error_text(failure) : std::string(" on another rank")),
                      "check the free space and quota of the output file system");
}

void FitsMaskWriter::write_tiles(std::size_t z0, std::span<const std::uint8_t> mask) {
  // Rank 0 writes every rank's channels, in the order of the channels; the others send theirs one
  // channel at a time, so no rank holds more than its own mask and a channel.
  int rank = 0, size = 1;
  MPI_Comm_rank(comm_, &rank);
  MPI_Comm_size(comm_, &size);
  const std::uint64_t mine[2] = {z0, mask.size() / plane_};
  std::vector<std::uint64_t> all(2 * static_cast<std::size_t>(size));
  AS_MPI_TRY(MPI_Gather(mine, 2, MPI_UINT64_T, all.data(), 2, MPI_UINT64_T, 0, comm_));
  constexpr int tag = 7;
  const int count = static_cast<int>(plane_);
  std::string failure;
  if (rank == 0) {
    std::vector<int> order(static_cast<std::size_t>(size));
    for (int r = 0; r < size; ++r) order[static_cast<std::size_t>(r)] = r;
    std::sort(order.begin(), order.end(), [&](int a, int b) { return all[2 * a] < all[2 * b]; });
    std::vector<std::uint8_t> channel(plane_);
    for (int r : order) {
      const std::uint64_t first = all[2 * static_cast<std::size_t>(r)];
      const std::uint64_t n = all[2 * static_cast<std::size_t>(r) + 1];
      for (std::uint64_t k = 0; k < n; ++k) {
        const std::uint8_t* data = mask.data() + k * plane_;
        if (r != 0) {
          AS_MPI_TRY(MPI_Recv(channel.data(), count, MPI_BYTE, r, tag, comm_, MPI_STATUS_IGNORE));
          data = channel.data();
        }
        if (!failure.empty()) continue;  // the other ranks' channels are still received
        // One whole tile: CFITSIO compresses it and appends it, in whatever order tiles come.
        const long z = static_cast<long>(first + k) + 1;
        long first_pixel[3] = {1, 1, z};
        long last_pixel[3] = {static_cast<long>(nx_), static_cast<long>(ny_), z};
        int status = 0;
        fits_write_subset(tiles_->get(), TBYTE, first_pixel, last_pixel, const_cast<std::uint8_t*>(data), &status);
        try {
          tiles_->check_write(status, "writing channel " + std::to_string(first + k));
        } catch (const Error& e) {
          failure = e.what();
        }
      }
    }
  } else {
    for (std::uint64_t k = 0; k < mine[1]; ++k)
      AS_MPI_TRY(MPI_Send(mask.data() + k * plane_, count, MPI_BYTE, 0, tag, comm_));
  }
  if (!all_ranks(comm_, failure.empty()))
    throw OutputError(failure.empty() ? "writing the mask to '" + part_ + "' failed on rank 0" : failure,
                      "check the free space and quota of the output file system");
}

void FitsMaskWriter::close() {
  if (completed_) return;
  if (compression_ != FitsCompression::none) {
    std::string failure;
    try {
      if (tiles_) tiles_->close();
    } catch (const Error& e) {
      failure = e.what();
    }
    tiles_.reset();
    if (!all_ranks(comm_, failure.empty()))
      throw OutputError(failure.empty() ? "closing '" + part_ + "' failed on rank 0" : failure,
                        "check the free space and quota of the output file system");
  } else {
    const int rc = file_ == MPI_FILE_NULL ? MPI_SUCCESS : MPI_File_close(&file_);
    file_ = MPI_FILE_NULL;
    if (!all_ranks(comm_, rc == MPI_SUCCESS))
      throw OutputError("closing '" + part_ + "' failed" +
                            (rc != MPI_SUCCESS ? ": " + mpi_error_text(rc) : std::string(" on another rank")),
                        "check the free space and quota of the output file system");
  }
  // Complete: the mask takes its name (replacing an older file only now, with --overwrite).
  int rank = 0;
  MPI_Comm_rank(comm_, &rank);
  std::error_code ec;
  if (rank == 0) std::filesystem::rename(part_, path_, ec);
  if (!all_ranks(comm_, !ec))
    throw OutputError("cannot rename '" + part_ + "' to '" + path_ + "'" + (ec ? ": " + ec.message() : std::string()),
                      "the complete mask is in '" + part_ + "'; rename it yourself");
  completed_ = true;
}

}  // namespace astrosweep::io
