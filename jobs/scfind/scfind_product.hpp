#pragma once
// The scfind products: an HDF5 file with the raw mask (uint8, chunked, deflate-compressed unless
// --mask-compression none, written with parallel HDF5) and the noise of every kernel pair, and
// optionally a FITS raw mask with the input's header.
//
// Resumable (docs/reliability.md): every dataset is created at once and the file's metadata
// flushed, so a killed run leaves a readable file. While the run lasts, the checkpoint labels (the
// number of kernel pairs done at the checkpoint that first saw a voxel in the mask; 0: not in it)
// live beside the product (checkpoint_labels.hpp), and the product changes only by raw writes of
// the noise table. A checkpoint counts once its journal entry "<pairs done> 0" is written, after
// every rank has made its labels durable; on resume, labels above the last journalled count are
// ignored, so a checkpoint cut short changes nothing. /mask is written once, by finish()'s caller:
// the final 0/1 mask, compressed chunks and all. A resumed run writes the product anew (under a
// temporary name, renamed over the old one), so nothing a killed final write left in it matters.

#include <mpi.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "catalogue.hpp"
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
  /// follows with the final mask), and any checkpoint labels of an older run removed. resume: the
  /// incomplete product's command line and noise of kernel pairs [0, pairs_done) carried into a
  /// product made anew, its checkpoint labels opened, and the FITS mask made afresh.
  ScfindProduct(const ScfindOptions& options, const io::CubeInfo& cube, const std::vector<KernelPair>& pairs, Open open,
                std::uint64_t pairs_done, MPI_Comm comm);
  ~ScfindProduct();
  ScfindProduct(const ScfindProduct&) = delete;
  ScfindProduct& operator=(const ScfindProduct&) = delete;

  /// Rank 0 alone: the product at `path` when it is a readable scfind product, else nullopt.
  static std::optional<io::ExistingProduct> inspect(const std::string& path);

  /// Checkpoint labels of channels [z0, z0 + labels.size() / plane) into the labels file. The
  /// first call of a run is collective (it creates the file: every rank calls it the same number of
  /// times, once per slab); later ones are independent.
  void write_labels(std::size_t z0, std::span<const std::uint8_t> labels);
  /// Independent, when resuming: the labels of channels [z0, z1).
  [[nodiscard]] std::vector<std::uint8_t> read_labels(std::size_t z0, std::size_t z1);
  /// Independent (one rank): the noise the clip used for kernel pairs [0, noise.size()).
  void write_noise(std::span<const double> noise);
  /// The noise of kernel pairs [0, n) written by earlier checkpoints (n <= pairs_done of a resume).
  [[nodiscard]] std::vector<double> read_noise(std::size_t n) const;
  /// Independent: returns once everything this rank wrote is durable (fsync).
  void sync();
  /// Whether /mask is deflate-compressed.
  [[nodiscard]] bool compressed() const noexcept { return compressed_; }

  /// Collective: this rank's final mask channels [z0, z0 + mask.size() / plane), 0/1, in both
  /// files; every rank calls it the same number of times (compressed chunks are written only
  /// collectively).
  void write_mask(std::size_t z0, std::span<const std::uint8_t> mask);
  /// Collective, as write_mask, when /mask is compressed and no FITS mask is written: the same
  /// mask given as the ascending offsets of its ones among channels [z0, z0 + channels), counted
  /// from channel z0's first voxel (h5_deflate_chunks.hpp: only the chunks holding a one are
  /// compressed). Ranks may mix both calls: they make the same collective calls.
  void write_mask_offsets(std::size_t z0, std::size_t channels, std::span<const std::uint64_t> offsets);
  /// Collective, as write_mask: the linker's source numbers of channels [z0, z0 + labels.size() /
  /// (nx·ny)) into /source_mask (created when options.linker.enable), and into the FITS source
  /// mask when options.fits_source_mask names one.
  void write_source_mask(std::size_t z0, std::span<const std::int32_t> labels);
  /// Collective (dataset creation is): SoFiA-2's catalogue into /catalogue, a dataset per column
  /// with units, description and UCD attributes, names as fixed-length strings. Every rank passes
  /// the same catalogue; `write_rows` on one rank only (the others write nothing).
  void write_catalogue(const Catalogue& catalogue, bool write_rows);
  /// One 2-D map of /images (moment_maps.hpp): ny rows of nx pixels; `real` (float32) or
  /// `integer` (int32) holds them on the writing rank, is null elsewhere.
  struct Image {
    std::string name, units, description;
    const float* real = nullptr;
    const std::int32_t* integer = nullptr;
    bool is_integer = false;
  };
  /// Collective: the maps into the group /images (every rank passes the same names, units and
  /// descriptions; the data on one rank only).
  void write_images(const std::vector<Image>& images);
  /// Collective: flushes and closes, leaving status="incomplete" (an interrupted run).
  void close();
  /// Collective: the noise of every kernel pair, the counts; marks the product complete and closes
  /// it. The checkpoint labels have served then: the job removes them (remove_checkpoint_labels).
  void finish(std::span<const double> noise, const ScfindSummary& summary, std::size_t cadence);

 private:
  void create(const std::string& path, const std::vector<KernelPair>& pairs, const std::string& command_line);
  struct Files;
  std::unique_ptr<Files> files_;
  const ScfindOptions& options_;
  const io::CubeInfo& cube_;
  MPI_Comm comm_;
  bool compressed_ = false;
  std::vector<double> resumed_noise_;  ///< the noise of the pairs done before a resume
};

}  // namespace astrosweep::scfind
