// The HDF5 catalog: CSV -> catalog -> per-range reads give back the same light curves.
#include <gtest/gtest.h>

#include "core/error.hpp"
#include "io/catalog.hpp"
#include "io/csv_light_curves.hpp"
#include "io/h5.hpp"
#include "io/h5_catalog.hpp"
#include "test_data.hpp"

namespace astrosweep::io {
namespace {

TEST(H5Catalog, RoundTripOfTheSdssCatalog) {
  test::TempDir dir;
  const auto csv = read_csv_light_curves(test::data_path("lightcurves/sdss_stripe82_z.csv"));
  const auto path = dir.path("sdss.h5");
  write_h5_catalog(path, csv.block, "MJD", csv.identity);

  H5Catalog catalog(path, MPI_COMM_WORLD);
  const auto index = catalog.read_index();
  EXPECT_EQ(index.ids, csv.block.ids);
  EXPECT_EQ(index.counts, csv.block.counts);
  EXPECT_EQ(index.time_reference, "MJD");
  EXPECT_TRUE(index.has_errors);
  // Objects 10..19 only.
  std::uint64_t row = 0;
  for (int i = 0; i < 10; ++i) row += csv.block.counts[i];
  std::uint64_t rows = 0;
  for (int i = 10; i < 20; ++i) rows += csv.block.counts[i];
  const auto block = catalog.read(10, 10, row, rows);
  EXPECT_EQ(block.ids, std::vector<std::int64_t>(csv.block.ids.begin() + 10, csv.block.ids.begin() + 20));
  EXPECT_EQ(block.t, std::vector<double>(csv.block.t.begin() + row, csv.block.t.begin() + row + rows));
  EXPECT_EQ(block.dy, std::vector<double>(csv.block.dy.begin() + row, csv.block.dy.begin() + row + rows));
}

TEST(H5Catalog, CatalogOpensAllFormatsTheSameWay) {
  test::TempDir dir;
  const auto csv_path = test::data_path("lightcurves/ztf_243ida_r.csv");
  const auto csv = read_csv_light_curves(csv_path);
  write_h5_catalog(dir.path("ida.h5"), csv.block, "JD", csv.identity);
  CatalogOptions from_csv, from_h5;
  from_csv.inputs = {csv_path};
  from_h5.inputs = {dir.path("ida.h5")};
  Catalog a(from_csv, MPI_COMM_WORLD), b(from_h5, MPI_COMM_WORLD);
  EXPECT_EQ(a.format(), InputFormat::csv);
  EXPECT_EQ(b.format(), InputFormat::hdf5);
  EXPECT_EQ(a.index().counts, b.index().counts);
  const auto ra = a.read(0, 1, 0, 29), rb = b.read(0, 1, 0, 29);
  EXPECT_EQ(ra.t, rb.t);
  EXPECT_EQ(ra.y, rb.y);
}

TEST(H5Catalog, ForeignHdf5FileIsRefused) {
  test::TempDir dir;
  { h5::Id f = h5::open_file(dir.path("other.h5"), h5::Access::create_truncate); }
  EXPECT_THROW(H5Catalog(dir.path("other.h5"), MPI_COMM_WORLD), InputError);
  EXPECT_THROW(H5Catalog(dir.path("missing.h5"), MPI_COMM_WORLD), InputError);
}

}  // namespace
}  // namespace astrosweep::io
