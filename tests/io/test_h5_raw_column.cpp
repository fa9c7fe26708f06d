// Raw reads of float64 columns (io/h5_raw_column.hpp): the bytes HDF5 would return, for every
// storage layout that allows them; the others left to HDF5; several threads at once.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <hdf5.h>
#include <mpi.h>

#include <filesystem>
#include <mutex>
#include <thread>

#include "core/error.hpp"
#include "io/h5.hpp"
#include "io/h5_catalog.hpp"
#include "io/h5_raw_column.hpp"
#include "test_data.hpp"

namespace astrosweep::io {
namespace {

std::vector<double> ramp(std::uint64_t n, double scale) {
  std::vector<double> v(n);
  for (std::uint64_t i = 0; i < n; ++i) v[i] = scale * static_cast<double>(i) + 0.25;
  return v;
}

// A column `name` of n values 0.25, 1.25, ... stored as `type`, with the creation list `dcpl`;
// only the first `written` rows are written (all when unset).
void write_column(hid_t file, const char* name, std::uint64_t n, hid_t type, hid_t dcpl,
                  std::uint64_t written = ~std::uint64_t{0}) {
  const hsize_t dims = n;
  h5::Id space(H5Screate_simple(1, &dims, nullptr));
  h5::Id ds(H5Dcreate2(file, name, type, space.get(), H5P_DEFAULT, dcpl, H5P_DEFAULT));
  ASSERT_TRUE(ds.valid());
  const auto values = ramp(n, 1.0);
  h5::write_rows(ds.get(), H5T_NATIVE_DOUBLE, 0, std::min(n, written), values.data());
}

struct Layouts {
  std::string path;
  static constexpr std::uint64_t rows = 1000;
};

// One file with a column per layout.
Layouts layouts(const test::TempDir& dir) {
  Layouts l{dir.path("layouts.h5")};
  h5::Id file(H5Fcreate(l.path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT));
  write_column(file.get(), "contiguous", l.rows, H5T_IEEE_F64LE, H5P_DEFAULT);
  write_column(file.get(), "big_endian", l.rows, H5T_IEEE_F64BE, H5P_DEFAULT);
  write_column(file.get(), "float32", l.rows, H5T_IEEE_F32LE, H5P_DEFAULT);
  const hsize_t chunk = 64;
  h5::Id chunked(H5Pcreate(H5P_DATASET_CREATE));
  H5Pset_chunk(chunked.get(), 1, &chunk);
  write_column(file.get(), "chunked", l.rows, H5T_IEEE_F64LE, chunked.get());
  write_column(file.get(), "partly_written", l.rows, H5T_IEEE_F64LE, chunked.get(), 300);
  h5::Id deflated(H5Pcreate(H5P_DATASET_CREATE));
  H5Pset_chunk(deflated.get(), 1, &chunk);
  H5Pset_deflate(deflated.get(), 4);
  write_column(file.get(), "deflated", l.rows, H5T_IEEE_F64LE, deflated.get());
  return l;
}

TEST(RawColumn, EveryUsableLayoutReadsWhatHdf5Reads) {
  test::TempDir dir;
  const auto l = layouts(dir);
  h5::Id file(H5Fopen(l.path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
  const PosixFile raw_file(l.path, O_RDONLY);
  const std::pair<const char*, bool> cases[] = {
      {"contiguous", true}, {"chunked", true}, {"big_endian", false}, {"float32", false}, {"deflated", false}};
  for (const auto& [name, usable] : cases) {
    h5::Id ds(H5Dopen2(file.get(), name, H5P_DEFAULT));
    RawColumn column(ds.get());
    EXPECT_EQ(column.usable(), usable) << name;
    if (!usable) {
      EXPECT_FALSE(column.locate(ds.get(), 0, 10)) << name;
      continue;
    }
    // Ranges around the chunks (64 rows): one row, whole chunks, across several, the end, none.
    for (const auto& [first, n] : std::vector<std::pair<std::uint64_t, std::uint64_t>>{
             {0, 1}, {0, 64}, {63, 2}, {10, 500}, {999, 1}, {0, 1000}, {500, 0}}) {
      ASSERT_TRUE(column.locate(ds.get(), first, n)) << name;
      std::vector<double> raw(n, -1), hdf5(n, -2);
      column.read(raw_file, first, n, raw.data());
      h5::read_rows(ds.get(), H5T_NATIVE_DOUBLE, first, n, hdf5.data());
      EXPECT_EQ(raw, hdf5) << name << " rows " << first << " + " << n;
    }
  }
}

TEST(RawColumn, UnwrittenChunksAreLeftToHdf5) {
  // Rows past 300 were never written: their chunks hold no storage (HDF5 returns the fill value).
  test::TempDir dir;
  const auto l = layouts(dir);
  h5::Id file(H5Fopen(l.path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
  h5::Id ds(H5Dopen2(file.get(), "partly_written", H5P_DEFAULT));
  RawColumn column(ds.get());
  EXPECT_TRUE(column.usable());
  EXPECT_TRUE(column.locate(ds.get(), 0, 300));
  EXPECT_FALSE(column.locate(ds.get(), 250, 200));
}

TEST(RawColumn, AFileShorterThanItsMetadataIsAnInputErrorNamingIt) {
  test::TempDir dir;
  const auto l = layouts(dir);
  RawColumn column;
  {
    h5::Id file(H5Fopen(l.path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
    h5::Id ds(H5Dopen2(file.get(), "chunked", H5P_DEFAULT));
    column = RawColumn(ds.get());
    ASSERT_TRUE(column.locate(ds.get(), 0, l.rows));
  }
  std::filesystem::resize_file(l.path, 1000);
  const PosixFile raw_file(l.path, O_RDONLY);
  std::vector<double> out(l.rows);
  try {
    column.read(raw_file, 0, l.rows, out.data());
    FAIL() << "a short file was read";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(l.path), std::string::npos) << e.what();
  }
}

TEST(RawColumn, CatalogReadsFromSeveralThreadsEqualSerialReads) {
  // A catalog of 600,000 rows (3 chunks of 2^18 per column) read in 12 units by 4 threads that
  // share one HDF5 lock, against one thread without it.
  test::TempDir dir;
  LightCurveBlock block;
  const std::uint64_t objects = 60, per_object = 10000;
  for (std::uint64_t i = 0; i < objects; ++i) {
    const auto t = ramp(per_object, 0.001), y = ramp(per_object, static_cast<double>(i)), dy = ramp(per_object, 1e-6);
    block.append(static_cast<std::int64_t>(i), t, y, dy);
  }
  const auto path = dir.path("catalog.h5");
  write_h5_catalog(path, block, "MJD", {"csv", "x.csv", 0, "0"});
  const H5Catalog catalog(path, MPI_COMM_NULL);
  const std::uint64_t unit = 5;
  std::vector<LightCurveBlock> serial(objects / unit), parallel(objects / unit);
  for (std::uint64_t u = 0; u < objects / unit; ++u)
    catalog.read(u * unit, unit, u * unit * per_object, unit * per_object, serial[u]);
  std::mutex lock;
  std::vector<std::thread> threads;
  for (std::uint64_t k = 0; k < 4; ++k)
    threads.emplace_back([&, k] {
      for (std::uint64_t u = k; u < objects / unit; u += 4)
        catalog.read(u * unit, unit, u * unit * per_object, unit * per_object, parallel[u], &lock);
    });
  for (auto& t : threads) t.join();
  for (std::uint64_t u = 0; u < objects / unit; ++u) {
    EXPECT_EQ(parallel[u].ids, serial[u].ids);
    EXPECT_EQ(parallel[u].t, serial[u].t);
    EXPECT_EQ(parallel[u].y, serial[u].y);
    EXPECT_EQ(parallel[u].dy, serial[u].dy);
  }
  const auto whole = catalog.read(0, objects, 0, objects * per_object);
  EXPECT_EQ(whole.y, block.y);
  EXPECT_EQ(whole.t, block.t);
}

}  // namespace
}  // namespace astrosweep::io
