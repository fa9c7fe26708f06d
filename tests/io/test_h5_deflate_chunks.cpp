// The sparse deflated mask write (h5_deflate_chunks.hpp: write_deflated_mask_offsets) against the
// dense one on however many ranks run this program (ctest: 1 and 3): the same mask given as the
// offsets of its ones must give the same dataset, the same chunks written, each read back through
// the filter as h5py reads it (the streams themselves differ: zlib_ones.hpp). Channel blocks interleave
// across ranks (a rank with none in the last round), rows do not divide the channel (a short last
// chunk), some channels and chunks are all zeros, some chunks hold one voxel; a dataset of zeros
// only; and HDF5's own collective write above the share limit, from the offsets made dense.
#include <gtest/gtest.h>
#include <hdf5.h>

#include <cstring>
#include <vector>

#include "core/mpi.hpp"
#include "io/h5.hpp"
#include "io/h5_deflate_chunks.hpp"
#include "test_data.hpp"

namespace astrosweep::io {
namespace {

using test::SharedDir;
using test::world_rank;
using test::world_size;

constexpr std::size_t dz = 23, dy = 37, dx = 19, plane = dy * dx, rows = 8, width = 2;

/// Channel z: nothing every fourth channel; one voxel in the first chunk; a row in the short last
/// chunk (rows 32-36) on odd channels; the last voxel of the channel every third one.
std::uint8_t value(std::size_t z, std::size_t i) {
  if (z % 4 == 3) return 0;
  const std::size_t y = i / dx, x = i % dx;
  if (y == z % rows && x == (z * 7) % dx) return 1;
  if (z % 2 == 1 && y == 33 && x % 3 != 0) return 1;
  if (z % 3 == 0 && i == plane - 1) return 1;
  return 0;
}

std::vector<std::uint8_t> block(std::size_t z0, std::size_t z1, bool zeros) {
  std::vector<std::uint8_t> v((z1 - z0) * plane, 0);
  if (!zeros)
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = value(z0 + i / plane, i % plane);
  return v;
}

std::vector<std::uint64_t> offsets_of(const std::vector<std::uint8_t>& mask) {
  std::vector<std::uint64_t> offsets;
  for (std::size_t i = 0; i < mask.size(); ++i)
    if (mask[i] != 0) offsets.push_back(i);
  return offsets;
}

struct Written {
  h5::DeflatedChannels dense, sparse, slow;
};

TEST(H5DeflatedMaskOffsets, SameDatasetAsTheDenseBlocks) {
  ASSERT_TRUE(h5::deflate_available());
  for (const bool zeros : {false, true}) {
    SCOPED_TRACE(zeros ? "all zeros" : "sparse mask");
    SharedDir dir;
    const auto path = dir.path("mask.h5");
    Written sum;
    {
      h5::Id file = h5::open_file(path, h5::Access::create_truncate, MPI_COMM_WORLD);
      std::vector<h5::Id> sets;
      for (const char* name : {"dense", "sparse", "slow"})
        sets.push_back(h5::create_chunked_dataset(file.get(), name, H5T_NATIVE_UINT8, {dz, dy, dx}, {1, rows, dx}, 1U));
      const std::size_t per_round = width * static_cast<std::size_t>(world_size());
      for (std::size_t r = 0; r < (dz + per_round - 1) / per_round; ++r) {
        const std::size_t z0 = std::min(dz, (r * static_cast<std::size_t>(world_size()) + world_rank()) * width);
        const std::size_t z1 = std::min(dz, z0 + width);
        const auto m = block(z0, z1, zeros);
        const auto offsets = offsets_of(m);
        const auto d = h5::write_deflated_channels(sets[0].get(), H5T_NATIVE_UINT8, z0, std::as_bytes(std::span(m)),
                                                   MPI_COMM_WORLD);
        const auto s = h5::write_deflated_mask_offsets(sets[1].get(), z0, z1 - z0, offsets, MPI_COMM_WORLD);
        const auto w = h5::write_deflated_mask_offsets(sets[2].get(), z0, z1 - z0, offsets, MPI_COMM_WORLD, 0);
        EXPECT_EQ(s.chunks, d.chunks);
        EXPECT_EQ(s.written, d.written);
        EXPECT_FALSE(s.through_hdf5);
        EXPECT_EQ(w.through_hdf5, w.compressed_bytes > 0);
        sum.dense.written += d.written;
        sum.sparse.written += s.written;
      }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    // 23 channels of 5 chunks, 5 of them empty: the first chunk of the other 18, and the short last
    // chunk of the 6 odd ones (z = 1 mod 4) and of 4 more (z = 0, 6, 12, 18: their last voxel).
    EXPECT_EQ(sum.sparse.written, zeros ? 0U : 28U);
    EXPECT_EQ(sum.sparse.written, sum.dense.written);
    if (world_rank() == 0) {  // serial HDF5, as h5py reads it
      h5::Id file = h5::open_file(path, h5::Access::read);
      for (const char* name : {"dense", "sparse", "slow"}) {
        std::vector<std::uint8_t> whole(dz * plane, 7);
        h5::read_hyperslab(h5::open_dataset(file.get(), name).get(), H5T_NATIVE_UINT8, {0, 0, 0}, {dz, dy, dx},
                           whole.data());
        EXPECT_EQ(whole, block(0, dz, zeros)) << name;
      }
    }
  }
}

}  // namespace
}  // namespace astrosweep::io
