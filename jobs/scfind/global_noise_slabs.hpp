#pragma once
// SoFiA-2's global noise (catalogue.hpp's global_noise: the unit of the linker's mean, std, skew
// and kurt and of the reliability filter) without the whole cube on one rank: its sample (at most
// SoFiA-2's 999983 voxels, every cadence-th from the cube's end) is drawn by the rank owning each
// voxel and gathered on rank 0 in SoFiA-2's order, where the same median is taken.

#include <mpi.h>

#include <span>

#include "source_cutouts.hpp"

namespace astrosweep::scfind {

/// Collective over `comm`; every rank gets the value (equal to global_noise on the whole cube to
/// the bit). `mine`: this rank's channels (their labels are not read); all ranks' tile the cube.
double global_noise_in_slabs(const CubeShape& cube, std::span<const OwnedChannels> mine, MPI_Comm comm);

}  // namespace astrosweep::scfind
