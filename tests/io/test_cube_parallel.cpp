// Parallel writes of the scfind products on however many ranks run this program (ctest: 1 and 3):
// FitsMaskWriter and the collective hyperslab helpers of io/h5, ranks writing interleaved channel
// ranges (some of them empty), the results read back with CFITSIO and HDF5.
#include <fitsio.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <optional>

#include "core/error.hpp"
#include "core/mpi.hpp"
#include "io/cube.hpp"
#include "io/cube_fixtures.hpp"
#include "io/fits.hpp"
#include "io/h5.hpp"
#include "io/h5_deflate_chunks.hpp"
#include "test_data.hpp"

namespace astrosweep::io {
namespace {

using test::SharedDir;
using test::world_rank;
using test::world_size;

constexpr std::size_t nx = 7, ny = 5, nz = 11, plane = nx * ny, width = 2;

// Round r: rank k owns channels [(r·size + k)·width, +width), clipped to the cube, so ranks
// interleave and, in the last round, some have nothing.
std::pair<std::size_t, std::size_t> interleaved(std::size_t round, std::size_t nz_total) {
  const std::size_t z0 = std::min(nz_total, (round * world_size() + world_rank()) * width);
  return {z0, std::min(nz_total, z0 + width)};
}
std::size_t rounds(std::size_t nz_total) {
  const std::size_t per_round = width * world_size();
  return (nz_total + per_round - 1) / per_round;
}

// Every byte tells where it belongs, so a misplaced write shows.
std::uint8_t expected_byte(std::size_t z, std::size_t i) { return static_cast<std::uint8_t>(1 + (z * 37 + i) % 251); }

std::vector<std::uint8_t> channels(std::size_t z0, std::size_t z1) {
  std::vector<std::uint8_t> v((z1 - z0) * plane);
  for (std::size_t z = z0; z < z1; ++z)
    for (std::size_t i = 0; i < plane; ++i) v[(z - z0) * plane + i] = expected_byte(z, i);
  return v;
}

void write_interleaved(FitsMaskWriter& writer, std::size_t nz_total) {
  for (std::size_t r = 0; r < rounds(nz_total); ++r) {
    const auto [z0, z1] = interleaved(r, nz_total);
    writer.write_channels(z0, channels(z0, z1));
  }
}

std::vector<double> input_values(std::size_t n) {
  std::vector<double> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<double>(i % 1000) - 500.0;
  return v;
}

// The mask as CFITSIO reads it: an unscaled byte cube with the input's WCS and our bytes; a
// tile-compressed one (`compression`: ZCMPTYPE) in extension 1 behind an empty primary HDU.
void check_mask_file(const std::string& path, int naxis, std::size_t nz_total, bool wcs,
                     const std::string& compression = {}) {
  SCOPED_TRACE(path);
  fits::File f(path, fits::Name::disk_file);
  int status = 0, bitpix = 0, n = 0;
  if (!compression.empty()) {
    fits_get_img_dim(f.get(), &n, &status);
    EXPECT_EQ(n, 0);  // the primary HDU holds no data
    fits_movabs_hdu(f.get(), 2, nullptr, &status);
    ASSERT_EQ(status, 0);
    EXPECT_TRUE(fits_is_compressed_image(f.get(), &status));
    EXPECT_EQ(f.keyword("ZCMPTYPE"), compression);
    EXPECT_EQ(f.keyword("ZTILE3"), "1");  // a tile per channel
  }
  LONGLONG naxes[4] = {};
  fits_get_img_paramll(f.get(), 4, &bitpix, &n, naxes, &status);
  ASSERT_EQ(status, 0);
  EXPECT_EQ(bitpix, 8);
  EXPECT_EQ(n, naxis);
  EXPECT_EQ(naxes[0], static_cast<LONGLONG>(nx));
  EXPECT_EQ(naxes[1], static_cast<LONGLONG>(ny));
  EXPECT_EQ(naxes[2], static_cast<LONGLONG>(nz_total));
  if (naxis == 4) {
    EXPECT_EQ(naxes[3], 1);
  }
  for (const char* dropped : {"BSCALE", "BZERO", "BLANK", "BUNIT", "DATAMIN", "DATAMAX"})
    EXPECT_FALSE(f.keyword(dropped).has_value()) << dropped;
  if (wcs) {
    EXPECT_EQ(f.keyword_double("CRVAL3"), test::fixture_crval3);
    EXPECT_EQ(f.keyword("CTYPE3"), "FREQ");
    EXPECT_EQ(f.keyword("CTYPE1"), "RA---SIN");
  }
  std::vector<std::uint8_t> data(plane * nz_total);
  int any_null = 0;
  fits_read_img(f.get(), TBYTE, 1, static_cast<LONGLONG>(data.size()), nullptr, data.data(), &any_null, &status);
  ASSERT_EQ(status, 0);
  for (std::size_t z = 0; z < nz_total; ++z)
    for (std::size_t i = 0; i < plane; ++i)
      ASSERT_EQ(data[z * plane + i], expected_byte(z, i)) << "channel " << z << " voxel " << i;
  if (!compression.empty()) return;
  // The data unit padded with zeros to a whole number of 2880-byte blocks.
  LONGLONG header_start = 0, data_start = 0, data_end = 0;
  fits_get_hduaddrll(f.get(), &header_start, &data_start, &data_end, &status);
  EXPECT_EQ(data_start % 2880, 0);
  const auto size = std::filesystem::file_size(path);
  EXPECT_EQ(size, static_cast<std::uintmax_t>(data_end));
  EXPECT_EQ(size % 2880, 0u);
  std::ifstream in(path, std::ios::binary);
  in.seekg(static_cast<std::streamoff>(data_start) + static_cast<std::streamoff>(data.size()));
  for (char c; in.get(c);) ASSERT_EQ(c, '\0');
}

CubeInfo shared_fits_input(const SharedDir& dir, const std::string& name, const std::vector<long>& shape) {
  const auto path = dir.path(name);
  std::size_t n = 1;
  for (long a : shape) n *= static_cast<std::size_t>(a);
  if (world_rank() == 0)
    test::write_fits_cube(path, 16, shape, input_values(n), {0.5, 10.0, -32768LL});  // scaled, blanked, with BUNIT
  MPI_Barrier(MPI_COMM_WORLD);
  return read_cube_info(path);
}

TEST(FitsMaskWriter, RanksWriteInterleavedChannels) {
  SharedDir dir;
  const auto info = shared_fits_input(dir, "input.fits", {nx, ny, nz});
  const auto output = dir.path("mask.fits");
  {
    FitsMaskWriter writer(output, info, MPI_COMM_WORLD, false);
    EXPECT_EQ(writer.data_offset() % 2880, 0u);
    write_interleaved(writer, nz);
    writer.close();
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (world_rank() == 0) check_mask_file(output, 3, nz, true);
}

// Tile-compressed masks: rank 0 writes what every rank sends it, whatever order the channels come
// in (a rank streams its slabs from the top of the cube down), with the header of the plain mask;
// three axes for a cube with a degenerate fourth.
TEST(FitsMaskWriter, TileCompressedMasksHoldTheSameChannels) {
  SharedDir dir;
  const auto info = shared_fits_input(dir, "input.fits", {nx, ny, nz});
  const auto stokes = shared_fits_input(dir, "stokes.fits", {nx, ny, 3, 1});
  CubeInfo h5_like;
  h5_like.format = CubeFormat::hdf5;
  h5_like.nx = nx;
  h5_like.ny = ny;
  h5_like.nz = nz;
  for (const auto& [compression, name] :
       {std::pair{FitsCompression::rice, "RICE_1"}, std::pair{FitsCompression::gzip, "GZIP_1"}}) {
    const std::string tag = name;
    {
      FitsMaskWriter writer(dir.path(tag + ".fits"), info, MPI_COMM_WORLD, false, compression);
      for (std::size_t r = rounds(nz); r-- > 0;) {  // top down
        const auto [z0, z1] = interleaved(r, nz);
        writer.write_channels(z0, channels(z0, z1));
      }
      writer.close();
    }
    {
      FitsMaskWriter writer(dir.path(tag + "_stokes.fits"), stokes, MPI_COMM_WORLD, false, compression);
      write_interleaved(writer, 3);
      writer.close();
    }
    {
      FitsMaskWriter writer(dir.path(tag + "_h5.fits"), h5_like, MPI_COMM_WORLD, false, compression);
      write_interleaved(writer, nz);
      writer.close();
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (world_rank() == 0) {
      check_mask_file(dir.path(tag + ".fits"), 3, nz, true, tag);
      check_mask_file(dir.path(tag + "_stokes.fits"), 3, 3, true, tag);  // CFITSIO compresses up to 3-D
      check_mask_file(dir.path(tag + "_h5.fits"), 3, nz, false, tag);
      EXPECT_FALSE(std::filesystem::exists(dir.path(tag + ".fits.part")));
    }
  }
}

// Stopped before close(): no compressed mask under its own name, and no temporary file either.
TEST(FitsMaskWriter, UnfinishedTileCompressedMaskIsRemoved) {
  SharedDir dir;
  const auto info = shared_fits_input(dir, "input.fits", {nx, ny, nz});
  const auto output = dir.path("partial_rice.fits");
  {
    FitsMaskWriter writer(output, info, MPI_COMM_WORLD, false, FitsCompression::rice);
    write_interleaved(writer, nz);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (world_rank() == 0) {
    EXPECT_FALSE(std::filesystem::exists(output));
    EXPECT_FALSE(std::filesystem::exists(output + ".part"));
  }
}

TEST(FitsMaskWriter, DegenerateStokesAxisIsKept) {
  SharedDir dir;
  const auto info = shared_fits_input(dir, "stokes.fits", {nx, ny, 3, 1});
  const auto output = dir.path("mask4.fits");
  {
    FitsMaskWriter writer(output, info, MPI_COMM_WORLD, false);
    write_interleaved(writer, 3);
    writer.close();
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (world_rank() == 0) check_mask_file(output, 4, 3, true);
}

TEST(FitsMaskWriter, Hdf5InputGetsAMinimalHeader) {
  SharedDir dir;
  CubeInfo info;
  info.format = CubeFormat::hdf5;
  info.nx = nx;
  info.ny = ny;
  info.nz = nz;
  const auto output = dir.path("mask_h5.fits");
  {
    FitsMaskWriter writer(output, info, MPI_COMM_WORLD, false);
    EXPECT_EQ(writer.data_offset(), 2880u);
    write_interleaved(writer, nz);
    writer.close();
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (world_rank() == 0) check_mask_file(output, 3, nz, false);
}

// A mask under its own name is complete: while it is written it is NAME.part, and a writer that is
// never closed (an error) removes that.
TEST(FitsMaskWriter, OnlyACompleteMaskHasItsName) {
  SharedDir dir;
  const auto info = shared_fits_input(dir, "input.fits", {nx, ny, nz});
  const auto output = dir.path("partial.fits");
  {
    FitsMaskWriter writer(output, info, MPI_COMM_WORLD, false);
    write_interleaved(writer, nz);
    MPI_Barrier(MPI_COMM_WORLD);
    if (world_rank() == 0) {
      EXPECT_FALSE(std::filesystem::exists(output));
      EXPECT_TRUE(std::filesystem::exists(output + ".part"));
    }
    MPI_Barrier(MPI_COMM_WORLD);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (world_rank() == 0) {
    EXPECT_FALSE(std::filesystem::exists(output));
    EXPECT_FALSE(std::filesystem::exists(output + ".part"));
  }
}

void expect_output_error(const std::string& path, const CubeInfo& like, bool overwrite, const std::string& needle) {
  try {
    FitsMaskWriter writer(path, like, MPI_COMM_WORLD, overwrite);
    ADD_FAILURE() << "no error for " << path;
  } catch (const Error& e) {  // the same mpi::SharedError on every rank
    EXPECT_EQ(e.code(), ExitCode::output) << e.what();
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    EXPECT_FALSE(e.hint().empty());
  }
}

TEST(FitsMaskWriter, ExistingOutputMissingDirectoryAndOverwrite) {
  SharedDir dir;
  const auto info = shared_fits_input(dir, "input.fits", {nx, ny, nz});
  const auto output = dir.path("taken.fits");
  if (world_rank() == 0) {
    std::ofstream junk(output, std::ios::binary);
    junk << std::string(100000, 'x');  // longer than the mask: overwriting must shorten it
    std::filesystem::create_directory(dir.path("folder.fits"));
  }
  MPI_Barrier(MPI_COMM_WORLD);
  expect_output_error(output, info, false, "exists");
  expect_output_error(dir.path("nowhere/mask.fits"), info, true, "does not exist");
  expect_output_error(dir.path("folder.fits"), info, true, "is a directory");
  {
    FitsMaskWriter writer(output, info, MPI_COMM_WORLD, true);
    write_interleaved(writer, nz);
    writer.close();
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (world_rank() == 0) check_mask_file(output, 3, nz, true);
}

TEST(H5Hyperslab, CollectiveChannelWritesAndReads) {
  SharedDir dir;
  const auto path = dir.path("mask.h5");
  {
    h5::Id file = h5::open_file(path, h5::Access::create_truncate, MPI_COMM_WORLD);
    h5::Id ds = h5::create_chunked_dataset(file.get(), "mask", H5T_NATIVE_UINT8, {nz, ny, nx}, {width, ny, nx});
    for (std::size_t r = 0; r < rounds(nz); ++r) {
      const auto [z0, z1] = interleaved(r, nz);
      const auto values = channels(z0, z1);
      h5::write_hyperslab(ds.get(), H5T_NATIVE_UINT8, {z0, 0, 0}, {z1 - z0, ny, nx}, values.data(),
                          h5::Transfer::collective);
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
  h5::Id file = h5::open_file(path, h5::Access::read, MPI_COMM_WORLD);
  h5::Id ds = h5::open_dataset(file.get(), "mask");
  // Every rank reads the whole cube collectively, then its own channels independently.
  std::vector<std::uint8_t> whole(plane * nz);
  h5::read_hyperslab(ds.get(), H5T_NATIVE_UINT8, {0, 0, 0}, {nz, ny, nx}, whole.data(), h5::Transfer::collective);
  EXPECT_EQ(whole, channels(0, nz));
  const auto [z0, z1] = interleaved(0, nz);
  std::vector<std::uint8_t> own((z1 - z0) * plane);
  h5::read_hyperslab(ds.get(), H5T_NATIVE_UINT8, {z0, 0, 0}, {z1 - z0, ny, nx}, own.data());
  EXPECT_EQ(own, channels(z0, z1));
}

// A deflate-compressed dataset takes only collective writes in parallel HDF5: ranks writing
// interleaved channel ranges (one with nothing in the last round) give the same bytes as a plain
// dataset, in less space, and any rank reads them back on its own.
TEST(H5Hyperslab, CompressedChannelsWrittenCollectively) {
  ASSERT_TRUE(h5::deflate_available());
  SharedDir dir;
  const auto path = dir.path("compressed.h5");
  constexpr std::size_t big_nz = 40, big_plane = 64 * 48;
  auto sparse = [](std::size_t z0, std::size_t z1) {  // mostly zeros, as a mask is
    std::vector<std::uint8_t> v((z1 - z0) * big_plane, 0);
    for (std::size_t z = z0; z < z1; ++z)
      v[(z - z0) * big_plane + (z * 131) % big_plane] = static_cast<std::uint8_t>(z);
    return v;
  };
  std::uint64_t plain_size = 0, compressed_size = 0;
  {
    h5::Id file = h5::open_file(path, h5::Access::create_truncate, MPI_COMM_WORLD);
    h5::Id plain = h5::create_chunked_dataset(file.get(), "plain", H5T_NATIVE_UINT8, {big_nz, 48, 64}, {1, 48, 64});
    h5::Id packed =
        h5::create_chunked_dataset(file.get(), "packed", H5T_NATIVE_UINT8, {big_nz, 48, 64}, {1, 16, 64}, 1U);
    EXPECT_FALSE(h5::is_filtered(plain.get()));
    EXPECT_TRUE(h5::is_filtered(packed.get()));
    for (std::size_t r = 0; r < (big_nz + 2 * world_size() - 1) / (2 * world_size()); ++r) {
      const std::size_t z0 = std::min(big_nz, (r * world_size() + world_rank()) * 2);
      const std::size_t z1 = std::min(big_nz, z0 + 2);
      const auto values = sparse(z0, z1);
      for (hid_t ds : {plain.get(), packed.get()})
        h5::write_hyperslab(ds, H5T_NATIVE_UINT8, {z0, 0, 0}, {z1 - z0, 48, 64}, values.data(),
                            h5::Transfer::collective);
    }
    h5::flush(file.get());
    plain_size = h5::storage_size(plain.get());
    compressed_size = h5::storage_size(packed.get());
  }
  MPI_Barrier(MPI_COMM_WORLD);
  EXPECT_EQ(plain_size, big_nz * big_plane);
  EXPECT_LT(compressed_size * 10, plain_size) << "compressed " << compressed_size << " of " << plain_size;
  if (world_rank() == 0) {  // serial HDF5, as h5py reads it
    h5::Id file = h5::open_file(path, h5::Access::read);
    for (const char* name : {"plain", "packed"}) {
      h5::Id ds = h5::open_dataset(file.get(), name);
      std::vector<std::uint8_t> whole(big_nz * big_plane);
      h5::read_hyperslab(ds.get(), H5T_NATIVE_UINT8, {0, 0, 0}, {big_nz, 48, 64}, whole.data());
      EXPECT_EQ(whole, sparse(0, big_nz)) << name;
    }
  }
}

// write_deflated_channels: ranks compress their own chunks on their threads and every rank writes
// every chunk. Interleaved channel ranges (one rank with nothing in the last round), rows that do
// not divide the channel (a short last chunk, padded as HDF5 pads it), channels and chunks of zeros
// (skipped: they read as the fill value), uint8 and int32 with negative ids; read back serially as
// h5py reads them; and the same bytes through HDF5's own collective write above the share limit.
TEST(H5DeflatedChannels, ChunksCompressedOnEveryRankReadBackThroughTheFilter) {
  ASSERT_TRUE(h5::deflate_available());
  SharedDir dir;
  const auto path = dir.path("deflated.h5");
  constexpr std::size_t dz = 23, dy = 37, dx = 19, dplane = dy * dx, rows = 8;
  // Channel z has ones on row (z * 5) % dy and, every third channel, nothing at all.
  auto value = [](std::size_t z, std::size_t i) -> std::int32_t {
    if (z % 3 == 2) return 0;
    const std::size_t y = i / dx, x = i % dx;
    return y == (z * 5) % dy && x % 4 != 1 ? static_cast<std::int32_t>(z) - 11 : 0;
  };
  auto block8 = [&](std::size_t z0, std::size_t z1) {
    std::vector<std::uint8_t> v((z1 - z0) * dplane);
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = value(z0 + i / dplane, i % dplane) != 0 ? 1 : 0;
    return v;
  };
  auto block32 = [&](std::size_t z0, std::size_t z1) {
    std::vector<std::int32_t> v((z1 - z0) * dplane);
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = value(z0 + i / dplane, i % dplane);
    return v;
  };
  std::uint64_t written = 0, chunks = 0;
  bool hdf5_path = false;
  {
    h5::Id file = h5::open_file(path, h5::Access::create_truncate, MPI_COMM_WORLD);
    h5::Id mask = h5::create_chunked_dataset(file.get(), "mask", H5T_NATIVE_UINT8, {dz, dy, dx}, {1, rows, dx}, 1U);
    h5::Id ids = h5::create_chunked_dataset(file.get(), "ids", H5T_NATIVE_INT32, {dz, dy, dx}, {1, rows, dx}, 1U);
    h5::Id slow = h5::create_chunked_dataset(file.get(), "slow", H5T_NATIVE_INT32, {dz, dy, dx}, {1, rows, dx}, 1U);
    const std::size_t per_round = width * world_size();
    for (std::size_t r = 0; r < (dz + per_round - 1) / per_round; ++r) {
      const std::size_t z0 = std::min(dz, (r * world_size() + world_rank()) * width), z1 = std::min(dz, z0 + width);
      const auto m = block8(z0, z1);
      const auto d = block32(z0, z1);
      const auto done =
          h5::write_deflated_channels(mask.get(), H5T_NATIVE_UINT8, z0, std::as_bytes(std::span(m)), MPI_COMM_WORLD);
      written += done.written;
      chunks += done.chunks;
      EXPECT_FALSE(done.through_hdf5);
      h5::write_deflated_channels(ids.get(), H5T_NATIVE_INT32, z0, std::as_bytes(std::span(d)), MPI_COMM_WORLD);
      hdf5_path =
          h5::write_deflated_channels(slow.get(), H5T_NATIVE_INT32, z0, std::as_bytes(std::span(d)), MPI_COMM_WORLD, 0)
              .through_hdf5;
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
  EXPECT_TRUE(hdf5_path);
  // 23 channels of 5 chunks; 7 channels are empty and the others have one row set: 16 chunks written.
  EXPECT_EQ(chunks, dz * 5);
  EXPECT_EQ(written, 16U);
  if (world_rank() == 0) {
    h5::Id file = h5::open_file(path, h5::Access::read);
    std::vector<std::uint8_t> m(dz * dplane);
    h5::read_hyperslab(h5::open_dataset(file.get(), "mask").get(), H5T_NATIVE_UINT8, {0, 0, 0}, {dz, dy, dx}, m.data());
    EXPECT_EQ(m, block8(0, dz));
    for (const char* name : {"ids", "slow"}) {
      std::vector<std::int32_t> d(dz * dplane);
      h5::read_hyperslab(h5::open_dataset(file.get(), name).get(), H5T_NATIVE_INT32, {0, 0, 0}, {dz, dy, dx}, d.data());
      EXPECT_EQ(d, block32(0, dz)) << name;
    }
  }
}

}  // namespace
}  // namespace astrosweep::io
