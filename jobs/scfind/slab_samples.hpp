#pragma once
// SoFiA-2 draws its noise sample walking down the whole cube, and the noise statistics reduce it
// along a chain of ranks from the top down (noise.hpp). With several slabs per rank the slabs of
// one rank are not adjacent, so their samples are first moved to the rank whose contiguous group
// of slabs they belong to.

#include <mpi.h>

#include <cstddef>
#include <vector>

#include "slab_layout.hpp"

namespace astrosweep::scfind {

/// The noise samples of one slab: its owned voxels at global indices highest, highest − cadence, ...
struct SlabSamples {
  std::size_t slab = 0;
  std::vector<float> values;
};

/// Collective. Takes this rank's slabs' samples and returns the samples of its group, slabs
/// [rank·K, (rank+1)·K), in SoFiA-2's order (descending index). With one slab per rank the group
/// is the rank's own slab and nothing moves.
std::vector<float> regroup_samples(const SlabLayout& layout, std::size_t cadence, std::vector<SlabSamples> mine,
                                   MPI_Comm comm);

}  // namespace astrosweep::scfind
