#pragma once
// The scfind products: an HDF5 file with the raw mask (uint8, chunked, written with parallel
// HDF5) and the noise of every kernel pair, and a FITS raw mask with the input's header.

#include <mpi.h>

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "io/cube.hpp"
#include "scfind_job.hpp"
#include "smooth_and_clip.hpp"

namespace astrosweep::scfind {

class ScfindProduct {
 public:
  /// Collective: creates both files (OutputError when one exists without overwrite).
  ScfindProduct(const ScfindOptions& options, const io::CubeInfo& cube, MPI_Comm comm);
  ~ScfindProduct();
  ScfindProduct(const ScfindProduct&) = delete;
  ScfindProduct& operator=(const ScfindProduct&) = delete;

  /// Collective: this rank's mask channels [z0, z0 + mask.size() / plane).
  void write_mask(std::size_t z0, std::span<const std::uint8_t> mask);
  /// Collective: noise per kernel pair, parameters and counts; closes the files. The product is
  /// marked complete only here.
  void finish(const std::vector<KernelPair>& pairs, const ScfindSummary& summary, std::size_t cadence);

 private:
  struct Files;
  std::unique_ptr<Files> files_;
  const ScfindOptions& options_;
  const io::CubeInfo& cube_;
  MPI_Comm comm_;
};

}  // namespace astrosweep::scfind
