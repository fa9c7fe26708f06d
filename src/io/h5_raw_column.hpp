#pragma once
// Rows of a 1-D float64 HDF5 dataset read straight from the file with pread(2), past the HDF5
// library, where the dataset's storage allows it: little-endian IEEE doubles on a little-endian
// host, stored contiguously or in chunks without filters. HDF5 builds without thread safety (ours,
// the parallel one) let one thread at a time into the library, so the period job's lanes took
// turns reading their units: 36 GB of a TESS-like catalog at 3.7 GB/s behind one lock. Here only
// the lookup of a unit's chunk addresses needs the library (and its lock); the bytes are then read
// by any number of threads at once, into the caller's buffer without a copy through HDF5.

#include <hdf5.h>

#include <cstdint>
#include <vector>

#include "io/posix_file.hpp"

namespace astrosweep::io {

class RawColumn {
 public:
  RawColumn() = default;
  /// Inspects `dataset` (HDF5 calls): usable() says whether its storage allows raw reads.
  explicit RawColumn(hid_t dataset);

  [[nodiscard]] bool usable() const noexcept { return usable_; }

  /// HDF5 calls (under the caller's HDF5 lock): the file addresses of the chunks holding rows
  /// [first, first + n), remembered. False when one of them cannot be read raw (not allocated,
  /// filtered, another size): the caller reads these rows through HDF5 instead.
  bool locate(hid_t dataset, std::uint64_t first, std::uint64_t n);

  /// pread(2) only, safe from several threads at once: rows [first, first + n), located first,
  /// into `out`, split over the calling thread's OpenMP threads. Throws InputError naming the file
  /// when it is shorter than its HDF5 metadata says.
  void read(const PosixFile& file, std::uint64_t first, std::uint64_t n, double* out) const;

 private:
  static constexpr std::uint64_t unknown = ~std::uint64_t{0};
  bool usable_ = false;
  std::uint64_t rows_ = 0;
  std::uint64_t chunk_rows_ = 0;              ///< 0: contiguous, at address_
  std::uint64_t address_ = unknown;           ///< the contiguous data's first byte
  std::vector<std::uint64_t> chunk_address_;  ///< per chunk, `unknown` until located
};

}  // namespace astrosweep::io
