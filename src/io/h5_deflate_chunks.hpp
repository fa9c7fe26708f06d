#pragma once
// Deflate-compressed channel blocks written at the speed of the rank's cores. Parallel HDF5 1.10
// compresses a filtered dataset's chunks inside a collective H5Dwrite on one thread per rank:
// 19.5 s for the 3.15 GB mask of a 1500 x 1500 x 1400 cube on one rank (H100 host, 2026-11-26).
// Here each rank compresses its own chunks with zlib on all its OpenMP threads, in the deflate
// filter's own format, so HDF5 and h5py read them back through the filter as if HDF5 had written
// them; chunks of zeros are not written at all (parallel HDF5 stores every chunk at creation as the
// compressed fill value 0). The compressed chunks are then shared with every rank, and every rank
// hands every chunk to H5Dwrite_chunk in the same order: parallel HDF5 keeps the chunk index
// consistent only when every rank makes the same metadata calls (chunks written by one rank alone
// are lost from the index another rank writes).

#include <hdf5.h>
#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <span>

namespace astrosweep::h5 {

/// Bytes of compressed chunks above which a rank's block goes through HDF5's own collective write
/// instead: every rank holds every rank's compressed chunks while they are written.
inline constexpr std::uint64_t shared_chunk_limit = 256ULL << 20;

/// What write_deflated_channels did, summed over the ranks (every rank gets the same).
struct DeflatedChannels {
  std::uint64_t chunks = 0;            ///< chunks of the blocks
  std::uint64_t written = 0;           ///< of them not all zeros, written compressed
  std::uint64_t compressed_bytes = 0;  ///< their compressed size
  bool through_hdf5 = false;           ///< too large to share: written by HDF5's collective write
};

/// Collective: rank r's `block` holds channels [z0, z0 + block.size() / plane) of the 3-D chunked,
/// deflate-filtered `dataset` (nz, ny, nx) of elements of `type` (elements of block's size each);
/// its chunks must be (1, rows, nx), so that every chunk lies in one channel. A rank may pass an
/// empty block. The dataset must have been created in this collective (parallel) file with the fill
/// value 0, as h5::create_chunked_dataset makes it. Throws OutputError (exit 4) when a write fails.
/// Above `share_limit` compressed bytes in all, HDF5's collective write does it instead.
DeflatedChannels write_deflated_channels(hid_t dataset, hid_t type, std::uint64_t z0, std::span<const std::byte> block,
                                         MPI_Comm comm, std::uint64_t share_limit = shared_chunk_limit);

/// write_deflated_channels for a uint8 dataset of zeros and ones given only where its ones are:
/// `offsets`, ascending, of the voxels that are 1 among channels [z0, z0 + channels), counted from
/// channel z0's first voxel (a rank may pass none, or 0 channels). Only the chunks holding a one
/// are written, each encoded straight from its ones (zlib_ones.hpp: no zlib pass over the zeros),
/// so the work is the ones', not the mask's bytes; the dataset reads back as the dense write's. Above
/// `share_limit` the rank's block is made dense for HDF5's collective write.
DeflatedChannels write_deflated_mask_offsets(hid_t dataset, std::uint64_t z0, std::uint64_t channels,
                                             std::span<const std::uint64_t> offsets, MPI_Comm comm,
                                             std::uint64_t share_limit = shared_chunk_limit);

}  // namespace astrosweep::h5
