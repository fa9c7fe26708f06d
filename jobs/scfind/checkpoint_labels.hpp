#pragma once
// The checkpoint labels of an unfinished scfind run, in a file beside the product,
// PRODUCT.labels: for every voxel of the cube, in its order (channels, y, x), the number of kernel
// pairs done at the checkpoint that first found it in the mask (1-255; 0: not in it), one byte
// each, no header. Checkpoints write it (each rank its own channels, then fsync), a resumed run
// reads it, and it is removed once the product is complete (docs/reliability.md, scfind).
//
// Why beside the product and not in its /mask: a compressed chunk changes HDF5's metadata (where
// the chunk is, how long) every time it is written, so checkpoints into a compressed /mask would
// change metadata during the run, which a kill could leave half written. Here a checkpoint is raw
// bytes at fixed offsets, as it was in the uncompressed /mask, and the product's /mask is written
// once, at the end.

#include <mpi.h>

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "io/posix_file.hpp"

namespace astrosweep::scfind {

/// "PRODUCT.labels".
std::string checkpoint_labels_path(const std::string& product);

class CheckpointLabels {
 public:
  enum class Open { create, resume };
  /// Collective. create: rank 0 checks that the file system has room for `voxels` bytes and makes
  /// the file of that size (zeros; sparse where the file system allows); resume: the file of the
  /// interrupted run, which must exist with that size. Every rank then opens it. Throws, on every
  /// rank alike, an OutputError naming the file.
  CheckpointLabels(const std::string& product, std::uint64_t voxels, Open open, MPI_Comm comm);

  /// Independent: the labels of voxels [first, first + labels.size()).
  void write(std::uint64_t first, std::span<const std::uint8_t> labels);
  /// Independent: the labels of voxels [first, first + n).
  [[nodiscard]] std::vector<std::uint8_t> read(std::uint64_t first, std::uint64_t n) const;
  /// Independent: returns once this rank's writes are durable (fsync).
  void sync();
  [[nodiscard]] const std::string& path() const noexcept { return path_; }

 private:
  std::string path_;
  std::uint64_t voxels_ = 0;
  io::PosixFile file_;
};

/// Rank 0 alone: removes the labels file of `product`, if there is one (a fresh run's stale one, or
/// a finished run's); returns false when it exists and cannot be removed.
bool remove_checkpoint_labels(const std::string& product);

}  // namespace astrosweep::scfind
