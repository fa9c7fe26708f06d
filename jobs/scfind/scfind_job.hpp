#pragma once
// The scfind job: SoFiA-2's smooth-and-clip over a cube split into slabs along the spectral axis,
// one per rank or several when a slab would not fit a rank's memory (slab_layout.hpp); writes the raw mask into an HDF5
// product and a FITS mask.

#include <mpi.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "catalogue.hpp"
#include "io/cube.hpp"
#include "linker.hpp"
#include "phase_clock.hpp"
#include "run/common_options.hpp"
#include "scfind_backend.hpp"
#include "scfind_config.hpp"
#include "source_reliability.hpp"

namespace astrosweep::scfind {

/// How the product's /mask is stored.
enum class MaskCompression {
  deflate,  ///< HDF5's deflate filter, level 1 (h5py and every HDF5 reader decompress it)
  none,     ///< plain chunks, one byte per voxel
};

/// The common options (output, resume, backend, ...: run/common_options.hpp) and scfind's own.
struct ScfindOptions : run::CommonOptions {
  std::string input;      ///< FITS cube, or HDF5 file[:/dataset]
  std::string fits_mask;  ///< FITS raw mask; empty: none (SoFiA-2's default)
  io::FitsCompression fits_mask_compression = io::FitsCompression::none;
  MaskCompression mask_compression = MaskCompression::deflate;
  double checkpoint_seconds = 600;  ///< make the mask durable at least this often; 0: after every pair
  ScfindParameters parameters;
  LinkerParameters linker;                              ///< linker.enable: SoFiA-2's default with --par, off without
  std::string fits_source_mask;                         ///< FITS source mask (int32 ids); empty: none
  ReliabilityParameters reliability;                    ///< reliability.* (with the linker)
  CatalogueParameters catalogue;                        ///< parameter.* (with the linker)
  CatalogueFiles catalogue_files{false, false, false};  ///< output.writeCat*: SoFiA-2's defaults with --par
  bool write_moments = false;                           ///< output.writeMoments: _mom0/1/2, _chan.fits (linker on)
  bool write_mask_2d = false;                           ///< output.writeMask2d: _mask-2d.fits (linker on)
  bool write_cubelets = false;                          ///< output.writeCubelets: <stem>_cubelets/ (linker on)
  std::size_t margin_cubelets = 10;                     ///< output.marginCubelets (SoFiA-2's default)
  double threshold_mom12 = 0;                           ///< output.thresholdMom12 (SoFiA-2's default)
  std::size_t slabs_per_rank = 0;                       ///< 0: the fewest that fit the memory budgets
  std::vector<std::string> unimplemented_parameters;    ///< SoFiA-2 settings of --par not used (warned of)
  std::map<std::string, std::string> sofia_settings;    ///< SoFiA-2 keys as --par and the command line wrote them
};

struct ScfindSummary {
  std::uint64_t mask_voxels = 0;
  std::uint64_t sources = 0;                 ///< kept by the linker (when enabled)
  std::uint64_t source_voxels = 0;           ///< voxels in those sources
  std::vector<std::string> catalogue_files;  ///< the catalogue files written
  std::vector<std::string> image_files;      ///< the moment maps and 2-D mask written (rank 0)
  std::vector<std::string> cubelet_files;    ///< the cubelets' files written (rank 0)
  std::vector<double> noise;                 ///< rms of the original, then of each smoothing pair in order
  /// This rank's kernel-pair loop (the rank line's "smooth-and-clip" figures; docs/scfind.md).
  struct SmoothAndClip {
    double seconds = 0;             ///< wall time of the loop
    PhaseSeconds phases;            ///< disjoint parts of it (phase_clock.hpp); the rest is "other"
    std::optional<double> kernels;  ///< device kernel time in it (events; overlaps the phases), GPU ranks
  } smooth_and_clip;
};

ScfindSummary run_scfind_job(const ScfindOptions& options, MPI_Comm comm);

}  // namespace astrosweep::scfind
