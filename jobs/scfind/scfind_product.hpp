#pragma once
// The scfind products: an HDF5 file with the raw mask (uint8, chunked, written with parallel
// HDF5) and the noise of every kernel pair, and a FITS raw mask with the input's header.
//
// Resumable (docs/reliability.md): every dataset is created with its full size and the file's
// metadata flushed at once, so later writes are raw data only and a killed run leaves a readable
// file. While the run lasts, /mask holds checkpoint labels: the number of kernel pairs done at the
// checkpoint that first saw a voxel in the mask (0: not in it). A checkpoint counts once its
// journal entry "<pairs done> 0" is written, after every rank has made its labels durable; on
// resume, labels above the last journalled count are ignored, so a checkpoint cut short changes
// nothing. finish() writes the final 0/1 mask.

#include <mpi.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "io/cube.hpp"
#include "io/journal.hpp"
#include "io/resume_point.hpp"
#include "scfind_job.hpp"
#include "smooth_and_clip.hpp"

namespace astrosweep::scfind {

/// What the product's results depend on: the input, its cube, the parameters, the version.
io::Fingerprint scfind_fingerprint(const ScfindOptions& options, const io::CubeInfo& cube);

class ScfindProduct {
 public:
  enum class Open { create, resume };
  /// Collective, on paths the run lifecycle has checked. create: the HDF5 product (the FITS mask
  /// follows with the final mask); resume: the incomplete HDF5 product opened to continue, and the
  /// FITS mask made afresh.
  ScfindProduct(const ScfindOptions& options, const io::CubeInfo& cube, const std::vector<KernelPair>& pairs, Open open,
                MPI_Comm comm);
  ~ScfindProduct();
  ScfindProduct(const ScfindProduct&) = delete;
  ScfindProduct& operator=(const ScfindProduct&) = delete;

  /// Rank 0 alone: the product at `path` when it is a readable scfind product, else nullopt.
  static std::optional<io::ExistingProduct> inspect(const std::string& path);

  /// Independent: checkpoint labels of channels [z0, z0 + labels.size() / plane) into /mask.
  void write_labels(std::size_t z0, std::span<const std::uint8_t> labels);
  /// Independent: the labels /mask holds for channels [z0, z1).
  [[nodiscard]] std::vector<std::uint8_t> read_labels(std::size_t z0, std::size_t z1);
  /// Independent (one rank): the noise the clip used for kernel pairs [0, noise.size()).
  void write_noise(std::span<const double> noise);
  /// Independent: the noise of kernel pairs [0, n) written by earlier checkpoints.
  [[nodiscard]] std::vector<double> read_noise(std::size_t n);
  /// Independent: returns once everything this rank wrote is durable (fsync).
  void sync();

  /// Collective: this rank's final mask channels [z0, z0 + mask.size() / plane), 0/1, in both
  /// files.
  void write_mask(std::size_t z0, std::span<const std::uint8_t> mask);
  /// Collective: flushes and closes, leaving status="incomplete" (an interrupted run).
  void close();
  /// Collective: the noise of every kernel pair, the counts; marks the product complete, closes.
  void finish(std::span<const double> noise, const ScfindSummary& summary, std::size_t cadence);

 private:
  struct Files;
  std::unique_ptr<Files> files_;
  const ScfindOptions& options_;
  const io::CubeInfo& cube_;
  MPI_Comm comm_;
};

}  // namespace astrosweep::scfind
