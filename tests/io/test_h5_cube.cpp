// HDF5 cubes for scfind (every element type, dataset paths, channel ranges, bad inputs) and the
// general hyperslab helpers of io/h5 on one rank; test_cube_parallel runs them on several.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <type_traits>

#include "core/error.hpp"
#include "io/cube.hpp"
#include "io/cube_fixtures.hpp"
#include "io/h5.hpp"
#include "test_data.hpp"

namespace astrosweep::io {
namespace {

constexpr std::size_t nx = 6, ny = 5, nz = 9;

template <class T>
std::vector<T> values(std::size_t n) {
  std::vector<T> v(n);
  for (std::size_t i = 0; i < n; ++i) {
    const double k = static_cast<double>(i);
    if constexpr (std::is_floating_point_v<T>)
      v[i] = static_cast<T>(std::sin(k) * 2.5 + 1e-9 * k);
    else
      v[i] = static_cast<T>(static_cast<long long>(i * 7919) % static_cast<long long>(std::numeric_limits<T>::max()) -
                            (std::is_signed_v<T> ? std::numeric_limits<T>::max() / 2 : 0));
  }
  return v;
}

// Writes `data` as a (d0, d1, d2) dataset at `name` (groups created on the way) of file `path`.
template <class T>
void write_cube(const std::string& path, const std::string& name, const std::vector<std::uint64_t>& dims,
                const std::vector<T>& data) {
  h5::Id file = h5::is_hdf5(path) ? h5::Id(H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT))
                                  : h5::open_file(path, h5::Access::create_truncate);
  h5::Id lcpl(H5Pcreate(H5P_LINK_CREATE));
  H5Pset_create_intermediate_group(lcpl.get(), 1);
  std::vector<hsize_t> hd(dims.begin(), dims.end());
  h5::Id space(H5Screate_simple(static_cast<int>(hd.size()), hd.data(), nullptr));
  h5::Id ds(
      H5Dcreate2(file.get(), name.c_str(), h5::native_type<T>(), space.get(), lcpl.get(), H5P_DEFAULT, H5P_DEFAULT));
  if (!data.empty())
    h5::check(H5Dwrite(ds.get(), h5::native_type<T>(), H5S_ALL, H5S_ALL, H5P_DEFAULT, data.data()), "H5Dwrite");
}

std::vector<float> read_all(const CubeInfo& info, ChannelReadCounts* counts = nullptr) {
  std::vector<float> out(info.nx * info.ny * info.nz);
  const auto c = read_cube_channels(info, 0, info.nz, out);
  if (counts != nullptr) *counts = c;
  return out;
}

template <class T>
void check_type(int bitpix) {
  test::TempDir dir;
  const auto path = dir.path("cube.h5");
  const auto data = values<T>(nx * ny * nz);
  write_cube(path, "/cube", {nz, ny, nx}, data);
  const auto info = read_cube_info(path);
  EXPECT_EQ(info.format, CubeFormat::hdf5);
  EXPECT_EQ(info.path, path);
  EXPECT_EQ(info.dataset, "/cube");
  EXPECT_EQ(info.bitpix, bitpix);
  EXPECT_EQ(info.nx, nx);
  EXPECT_EQ(info.ny, ny);
  EXPECT_EQ(info.nz, nz);
  EXPECT_TRUE(info.header_cards.empty());
  const auto got = read_all(info);
  for (std::size_t i = 0; i < data.size(); ++i)
    EXPECT_EQ(got[i], static_cast<float>(static_cast<double>(data[i]))) << "bitpix " << bitpix << " voxel " << i;
}

TEST(H5Cube, EveryElementType) {
  check_type<float>(-32);
  check_type<double>(-64);
  check_type<std::int8_t>(8);
  check_type<std::uint8_t>(8);
  check_type<std::int16_t>(16);
  check_type<std::int32_t>(32);
}

TEST(H5Cube, DatasetPathChannelRangesAndNonFiniteValues) {
  test::TempDir dir;
  const auto path = dir.path("survey.h5");
  auto data = values<double>(nx * ny * nz);
  data[4] = std::nan("");
  data[77] = std::numeric_limits<double>::infinity();
  data[78] = -std::numeric_limits<double>::infinity();
  data[200] = 1e300;  // beyond float32
  write_cube(path, "/data/cube", {nz, ny, nx}, data);
  const auto info = read_cube_info(path + ":/data/cube");
  EXPECT_EQ(info.path, path);
  EXPECT_EQ(info.dataset, "/data/cube");
  ChannelReadCounts counts;
  const auto whole = read_all(info, &counts);
  EXPECT_EQ(counts.blanks, 1u);
  EXPECT_EQ(counts.infinities, 3u);
  for (std::size_t i : {4u, 77u, 78u, 200u}) EXPECT_TRUE(std::isnan(whole[i])) << i;
  EXPECT_EQ(whole[5], static_cast<float>(data[5]));
  const std::size_t plane = nx * ny;
  for (auto [z0, z1] :
       std::vector<std::pair<std::size_t, std::size_t>>{{0, 1}, {8, 9}, {2, 6}, {4, 5}, {0, 9}, {3, 3}}) {
    std::vector<float> part((z1 - z0) * plane);
    read_cube_channels(info, z0, z1, part);
    for (std::size_t i = 0; i < part.size(); ++i) {
      const float want = whole[z0 * plane + i];
      if (std::isnan(want))
        EXPECT_TRUE(std::isnan(part[i]));
      else
        EXPECT_EQ(part[i], want) << z0 << ".." << z1 << " voxel " << i;
    }
  }
}

TEST(H5Cube, BadDatasets) {
  test::TempDir dir;
  const auto path = dir.path("bad.h5");
  write_cube(path, "/image", {ny, nx}, values<float>(nx * ny));
  write_cube(path, "/group/wide", {nz, ny, nx}, values<std::int64_t>(nx * ny * nz));
  write_cube(path, "/group/unsigned", {nz, ny, nx}, values<std::uint32_t>(nx * ny * nz));
  write_cube(path, "/empty", {0, ny, nx}, std::vector<float>{});
  test::expect_cube_input_error(path, {"bad.h5", "no dataset '/cube'"});
  test::expect_cube_input_error(path + ":/missing/cube", {"bad.h5", "no dataset '/missing/cube'"});
  test::expect_cube_input_error(path + ":/group", {"bad.h5", "not a dataset"});
  test::expect_cube_input_error(path + ":/image", {"bad.h5", "rank 2"});
  test::expect_cube_input_error(path + ":/group/wide", {"bad.h5", "element type not supported"});
  test::expect_cube_input_error(path + ":/group/unsigned", {"bad.h5", "element type not supported"});
  test::expect_cube_input_error(path + ":/empty", {"bad.h5", "empty"});
  test::expect_cube_input_error(dir.path("missing.h5") + ":/cube", {"missing.h5", "does not exist"});
}

TEST(H5Hyperslab, ChunkedDatasetBlocksRoundTrip) {
  test::TempDir dir;
  h5::Id file = h5::open_file(dir.path("slabs.h5"), h5::Access::create_truncate);
  // Chunks larger than the dataset along z are clamped to it.
  h5::Id ds = h5::create_chunked_dataset(file.get(), "mask", H5T_NATIVE_UINT8, {nz, ny, nx}, {64, 2, nx});
  std::vector<std::uint8_t> zero(nx * ny * nz, 0);
  h5::write_hyperslab(ds.get(), H5T_NATIVE_UINT8, {0, 0, 0}, {nz, ny, nx}, zero.data());
  // An interior block, offset along every axis.
  const std::vector<std::uint64_t> offset{2, 1, 3}, count{4, 3, 2};
  std::vector<std::uint8_t> block(4 * 3 * 2);
  for (std::size_t i = 0; i < block.size(); ++i) block[i] = static_cast<std::uint8_t>(i + 1);
  // A collective transfer on a file opened without MPI-IO is an ordinary one.
  h5::write_hyperslab(ds.get(), H5T_NATIVE_UINT8, offset, count, block.data(), h5::Transfer::collective);
  h5::write_hyperslab(ds.get(), H5T_NATIVE_UINT8, {5, 0, 0}, {0, ny, nx}, nullptr);  // nothing
  std::vector<std::uint8_t> back(block.size());
  h5::read_hyperslab(ds.get(), H5T_NATIVE_UINT8, offset, count, back.data());
  EXPECT_EQ(back, block);
  std::vector<std::uint8_t> whole(nx * ny * nz);
  h5::read_hyperslab(ds.get(), H5T_NATIVE_UINT8, {0, 0, 0}, {nz, ny, nx}, whole.data());
  std::size_t k = 0;
  for (std::size_t z = 0; z < nz; ++z)
    for (std::size_t y = 0; y < ny; ++y)
      for (std::size_t x = 0; x < nx; ++x) {
        const bool inside = z >= 2 && z < 6 && y >= 1 && y < 4 && x >= 3 && x < 5;
        EXPECT_EQ(whole[(z * ny + y) * nx + x], inside ? block[k++] : 0) << z << " " << y << " " << x;
      }
  EXPECT_EQ(k, block.size());
  EXPECT_EQ(h5::dims(ds.get()), (std::vector<std::uint64_t>{nz, ny, nx}));
}

}  // namespace
}  // namespace astrosweep::io
