#pragma once
// Data cubes for the scfind job: FITS (CFITSIO) and HDF5 datasets, read a range of channels at a
// time so no rank ever holds the whole cube; the FITS mask product written in parallel.

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace astrosweep::fits {
class File;
}

namespace astrosweep::io {

enum class CubeFormat { fits, hdf5 };

struct CubeInfo {
  std::string path;     ///< the file
  std::string dataset;  ///< HDF5: the dataset's path in the file; empty for FITS
  CubeFormat format = CubeFormat::fits;
  std::size_t nx = 0, ny = 0, nz = 0;  ///< NAXIS1 (fastest), NAXIS2, NAXIS3
  int naxis = 3;                       ///< FITS: 3, or 4 with NAXIS4 = 1
  int bitpix = -32;                    ///< FITS BITPIX; HDF5: the same code for its element type
  /// FITS: every card of the primary header (80 characters each, END excluded), so products can
  /// carry the input's WCS. HDF5: empty.
  std::vector<std::string> header_cards;
};

/// Opens `spec` — "cube.fits", "cube.h5" (dataset "/cube"), or "cube.h5:/path/to/dataset" — and
/// reads its shape. Throws InputError naming the file for a missing, empty, truncated, compressed
/// or malformed cube, NAXIS other than 3 or 4 (with NAXIS4 = 1), or a BITPIX other than 8, 16, 32,
/// −32, −64; for HDF5, a dataset that is not rank 3 of float32/64, (u)int8, int16 or int32.
CubeInfo read_cube_info(const std::string& spec);

struct ChannelReadCounts {
  std::uint64_t blanks = 0;      ///< NaN in the file, or BLANK for integer data
  std::uint64_t infinities = 0;  ///< ±inf, turned into blanks (NaN) as SoFiA-2 does
};

/// Reads channels [z0, z1) into `out` (nx·ny·(z1−z0) floats, x fastest) as float32: integer data
/// scaled by BZERO + BSCALE·value (in double, then rounded) with BLANK → NaN; float data with a
/// non-trivial BSCALE/BZERO scaled like SoFiA-2 (multiply, then add, each rounded to the stored
/// type); float64 rounded to float32 last; infinities (also values beyond the float32 range) → NaN.
/// Only those channels are read from the file. Throws InputError when the file cannot be read.
ChannelReadCounts read_cube_channels(const CubeInfo& info, std::size_t z0, std::size_t z1, std::span<float> out);

/// How a FITS mask is stored. none: a plain image in the primary HDU, as SoFiA-2 writes it (every
/// FITS reader, SoFiA-2 included, takes it). rice, gzip: CFITSIO's tile-compressed image (RICE_1,
/// GZIP_1; one tile per channel) in extension 1 behind an empty primary HDU, which astropy, DS9
/// and CFITSIO read as an image; SoFiA-2's own FITS reader does not.
enum class FitsCompression { none, rice, gzip };

/// A uint8 mask cube in FITS (BITPIX 8) with the input's header: WCS and other keywords kept,
/// BITPIX set to 8, NAXIS1..3 set to the cube's shape, BSCALE/BZERO/BLANK/DATAMIN/DATAMAX/BUNIT
/// (and CHECKSUM/DATASUM, which would be wrong) dropped; a minimal header for an HDF5 input. Rank
/// 0 writes the header and sizes the file (zero bytes, padded to 2880); every rank then writes
/// its channels through MPI-IO into the data unit. The file is written as PATH.part and renamed to
/// PATH by close(), so a mask under its own name is always complete; a writer destroyed without
/// close() (an error) removes PATH.part. Construction, write_channels() and close() are collective
/// over `comm`, which must outlive the writer. Tile-compressed (FitsCompression rice, gzip): rank 0
/// makes the file with CFITSIO and writes every rank's channels, which the other ranks send it a
/// channel at a time (a CFITSIO file has one writer; compressing is then rank 0's work alone).
class FitsMaskWriter {
 public:
  /// Throws, on every rank alike, an Error with ExitCode::output (an mpi::SharedError found by
  /// rank 0) when `path` exists (unless `overwrite`), is a directory, or cannot be created (missing
  /// or unwritable directory, no space); an OutputError when MPI-IO cannot open it.
  /// `bitpix` 8: a mask of 0/1 bytes; 32: the linker's source mask (big-endian int32 source ids,
  /// 0 outside sources, SoFiA-2's `_mask.fits`), plain only.
  FitsMaskWriter(const std::string& path, const CubeInfo& like, MPI_Comm comm, bool overwrite,
                 FitsCompression compression = FitsCompression::none, int bitpix = 8);
  ~FitsMaskWriter();
  FitsMaskWriter(const FitsMaskWriter&) = delete;
  FitsMaskWriter& operator=(const FitsMaskWriter&) = delete;
  /// Writes channels [z0, z0 + mask.size() / (nx·ny)); collective (a rank with nothing passes an
  /// empty span). Throws OutputError on every rank when a write failed on any.
  void write_channels(std::size_t z0, std::span<const std::uint8_t> mask);
  /// The same for a writer of bitpix 32.
  void write_channels(std::size_t z0, std::span<const std::int32_t> labels);
  /// Collective; the file is complete (padded to 2880 bytes) and has its name afterwards.
  void close();
  /// Byte offset of the data unit (the header's size, a multiple of 2880); plain masks only.
  [[nodiscard]] std::uint64_t data_offset() const noexcept { return data_offset_; }

 private:
  void write_tiles(std::size_t z0, std::span<const std::uint8_t> mask);
  void write_plain(std::uint64_t offset, std::span<const std::uint8_t> bytes);
  std::uint64_t bytes_per_voxel_ = 1;
  FitsCompression compression_ = FitsCompression::none;
  std::unique_ptr<fits::File> tiles_;  ///< rank 0, tile-compressed masks: the file CFITSIO writes
  std::string path_;
  std::string part_;  ///< the name while it is written
  bool completed_ = false;
  std::uint64_t data_offset_ = 0;
  std::uint64_t nx_ = 0, ny_ = 0;
  std::uint64_t plane_ = 0;
  std::uint64_t nz_ = 0;
  MPI_Comm comm_ = MPI_COMM_NULL;
  MPI_File file_ = MPI_FILE_NULL;
};

}  // namespace astrosweep::io
