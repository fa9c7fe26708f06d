#pragma once
// SoFiA-2's linker over a cube cut into slabs along the spectral axis and spread over ranks: the
// same sources, numbers and flags as link_sources on the whole cube (linker.hpp), for any cut.
//
//   1. Each slab is labelled alone: a union-find over its voxels that take part (held sparsely:
//      the mask is mostly empty), giving components with their statistics (Component) and the
//      blanks found within the slab; in blocks of channels on all OpenMP threads, joined the same
//      way (label_slab.hpp).
//   2. Components get global keys (slab order). A voxel within radiusZ channels of another slab is
//      sent to that slab's rank with its key; the receiver links it with its own voxels within the
//      merge radius (pairs of keys) and notes a blank within the radius (a flagged key). With
//      radiusZ = 0 nothing crosses a slab boundary and nothing is sent.
//   3. Rank 0 gathers every component, pair and flagged key, joins them (Component::merge is
//      associative and the sums exact, so the order does not matter), applies SoFiA-2's limits and
//      numbering, and sends every rank each key's source number and the kept sources.
// What crosses ranks is the boundary voxels of the mask and one record per component, not the cube.

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "linker.hpp"
#include "slab_buffer.hpp"

namespace astrosweep::scfind {

/// One slab of a rank: its owned channels [z_begin, z_end) of the mask (0/1) and of the data (the
/// cube's values, NaN for blanks), x fastest.
struct LinkerSlab {
  std::size_t z_begin = 0, z_end = 0;
  std::span<const std::uint8_t> mask;
  std::span<const float> data;
};

struct SlabLinkedSources {
  std::vector<SlabBuffer<std::int32_t>> labels;  ///< per slab given, its channels' source numbers (0: none)
  std::vector<Component> sources;                ///< every kept source of the cube, on every rank
};

/// Collective over `comm`. The slabs of all ranks must tile the cube's channels (any number per
/// rank, none on some). Throws UsageError when more sources are kept than an int32 can number.
SlabLinkedSources link_sources_in_slabs(const CubeShape& cube, std::span<const LinkerSlab> slabs,
                                        const LinkerParameters& parameters, MPI_Comm comm);

}  // namespace astrosweep::scfind
