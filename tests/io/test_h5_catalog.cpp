// The HDF5 catalog: CSV -> catalog -> per-range reads give back the same light curves.
#include <gtest/gtest.h>
#include <hdf5.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>

#include "core/error.hpp"
#include "io/catalog.hpp"
#include "io/csv_light_curves.hpp"
#include "io/fits_light_curve_fixtures.hpp"
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

// Everything a reader sees in an HDF5 file, by path: each dataset's type, dimensions and bytes,
// each attribute's type and bytes (the storage layout, chunked or not, left out).
std::map<std::string, std::string> file_contents(const std::string& path) {
  std::map<std::string, std::string> out;
  auto encoded = [](hid_t type) {
    std::size_t n = 0;
    H5Tencode(type, nullptr, &n);
    std::string bytes(n, '\0');
    H5Tencode(type, bytes.data(), &n);
    return bytes;
  };
  struct Visit {
    std::map<std::string, std::string>* out;
    decltype(encoded)* encode;
    std::string object;
  };
  auto attributes = [&](hid_t object, const std::string& name) {
    Visit v{&out, &encoded, name};
    hsize_t at = 0;
    H5Aiterate2(
        object, H5_INDEX_NAME, H5_ITER_INC, &at,
        [](hid_t loc, const char* attr_name, const H5A_info_t*, void* data) -> herr_t {
          auto& visit = *static_cast<Visit*>(data);
          h5::Id attr(H5Aopen(loc, attr_name, H5P_DEFAULT));
          h5::Id type(H5Aget_type(attr.get()));
          h5::Id space(H5Aget_space(attr.get()));
          std::string value(
              H5Tget_size(type.get()) * static_cast<std::size_t>(H5Sget_simple_extent_npoints(space.get())), '\0');
          if (H5Aread(attr.get(), type.get(), value.data()) < 0) return -1;
          (*visit.out)["attribute " + visit.object + "@" + attr_name] = (*visit.encode)(type.get()) + value;
          return 0;
        },
        &v);
  };
  h5::Id file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
  attributes(file.get(), "/");
  std::vector<std::string> names;
  H5Lvisit(
      file.get(), H5_INDEX_NAME, H5_ITER_INC,
      [](hid_t, const char* name, const auto*, void* data) -> herr_t {
        static_cast<std::vector<std::string>*>(data)->push_back(name);
        return 0;
      },
      &names);
  for (const auto& name : names) {
    h5::Id object(H5Oopen(file.get(), name.c_str(), H5P_DEFAULT));
    attributes(object.get(), name);
    if (H5Iget_type(object.get()) != H5I_DATASET) {
      out["group " + name] = "";
      continue;
    }
    h5::Id type(H5Dget_type(object.get()));
    std::string dims;
    std::size_t n = 1;
    for (const auto d : h5::dims(object.get())) {
      dims += std::to_string(d) + " ";
      n *= d;
    }
    std::string data(n * H5Tget_size(type.get()), '\0');
    if (n > 0) {
      EXPECT_GE(H5Dread(object.get(), type.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, data.data()), 0) << name;
    }
    out["dataset " + name] = encoded(type.get()) + "|" + dims + "|" + data;
  }
  return out;
}

void expect_same_contents(const std::string& a, const std::string& b) {
  const auto ca = file_contents(a), cb = file_contents(b);
  std::vector<std::string> names_a, names_b;
  for (const auto& [name, value] : ca) names_a.push_back(name);
  for (const auto& [name, value] : cb) names_b.push_back(name);
  ASSERT_EQ(names_a, names_b) << a << " and " << b;
  for (const auto& [name, value] : ca) EXPECT_TRUE(value == cb.at(name)) << name << " differs in " << b;
}

// `astrosweep convert` holds one block of rows at a time. Forced into blocks of 1, 2, 7 and 1000
// rows it writes what it writes in one block (and what the in-memory path writes) for CSV inputs
// with and without dy, FITS files of one mission whose target's files are scattered over the list
// (objects taken back from the writer and given again, one object without rows first) and FITS
// files of two missions (per-object references). No PATH.part is left.
TEST(H5CatalogWriter, BlocksOfAnySizeWriteTheSameCatalog) {
  test::TempDir dir;
  using test::Cadence;
  test::write_light_curve(dir.path("s0_e.fits"), 6, {{1000.9, 1, 1, 1}});  // every cadence flagged
  test::write_light_curve(dir.path("s1_a.fits"), 7, {{1001.0, 1, 1, 0}, {1000.0, 2, 1, 0}});
  test::write_light_curve(dir.path("s1_b.fits"), 8, {{1000.5, 3, 1, 0}, {1000.6, std::nan(""), 1, 0}});
  test::write_light_curve(dir.path("s2_b.fits"), 8, {{2000.0, 5, 1, 0}});
  test::write_light_curve(dir.path("s2_a.fits"), 7, {{2000.3, 6, 1, 0}, {2000.1, 7, 1, 128}});
  test::write_light_curve(dir.path("kplr.fits"), 757076, {{120.0, 1, 1, 0}, {121.0, 2, 1, 0}}, true, true,
                          test::kepler);
  const std::string scattered = dir.path("scattered.txt"), mixed = dir.path("mixed.txt");
  std::ofstream(scattered) << "s0_e.fits\ns1_a.fits\ns1_b.fits\ns2_b.fits\ns2_a.fits\n";
  std::ofstream(mixed) << "s1_a.fits\nkplr.fits\ns2_a.fits\n";

  struct Case {
    std::string input, time_reference;
  };
  for (const auto& [input, time_reference] :
       {Case{test::data_path("lightcurves/sdss_stripe82_z.csv"), "MJD"},
        Case{test::data_path("lightcurves/ztf_243ida_r.csv"), ""}, Case{"@" + scattered, ""}, Case{"@" + mixed, ""}}) {
    SCOPED_TRACE(input);
    CatalogOptions options;
    options.inputs = {input};
    options.time_reference = time_reference;
    const auto inputs = resolve_inputs(options);
    const auto one = dir.path("one.h5");
    const auto written = convert_to_catalog(inputs, options, one, std::uint64_t{1} << 40);
    const auto read = read_serial(inputs, options);
    EXPECT_EQ(written.n_objects, read.block.n_objects());
    EXPECT_EQ(written.n_rows, read.block.t.size());
    EXPECT_EQ(written.has_errors, read.block.has_errors());
    const auto in_memory = dir.path("in_memory.h5");
    write_h5_catalog(in_memory, read.block, read.time_reference, read.identity);
    expect_same_contents(one, in_memory);
    for (const std::uint64_t block_rows : {std::uint64_t{1}, std::uint64_t{2}, std::uint64_t{7}, std::uint64_t{1000}}) {
      const auto blocks = dir.path("blocks.h5");
      convert_to_catalog(inputs, options, blocks, block_rows);
      expect_same_contents(one, blocks);
      EXPECT_FALSE(std::filesystem::exists(blocks + ".part"));
    }
  }
}

// A conversion that fails after blocks were written leaves no catalog, and an older catalog of
// that name (replaced with --overwrite) as it was.
TEST(H5CatalogWriter, AFailedConversionKeepsTheOldCatalog) {
  test::TempDir dir;
  const auto out = dir.path("out.h5");
  CatalogOptions good;
  good.inputs = {test::data_path("lightcurves/ztf_243ida_r.csv")};
  convert_to_catalog(resolve_inputs(good), good, out);
  const auto before = file_contents(out);
  const auto bad = dir.path("bad.csv");
  std::ofstream(bad) << "1, 1, 1\n2, 1, 1\n3, 1, 1\n4, 1, x\n";
  CatalogOptions options;
  options.inputs = {bad};
  EXPECT_THROW(convert_to_catalog(resolve_inputs(options), options, out, 1), InputError);
  EXPECT_FALSE(std::filesystem::exists(out + ".part"));
  EXPECT_TRUE(file_contents(out) == before);
  EXPECT_THROW(convert_to_catalog(resolve_inputs(options), options, dir.path("new.h5"), 1), InputError);
  EXPECT_FALSE(std::filesystem::exists(dir.path("new.h5")));
  EXPECT_FALSE(std::filesystem::exists(dir.path("new.h5.part")));
}

TEST(H5Catalog, ForeignHdf5FileIsRefused) {
  test::TempDir dir;
  { h5::Id f = h5::open_file(dir.path("other.h5"), h5::Access::create_truncate); }
  EXPECT_THROW(H5Catalog(dir.path("other.h5"), MPI_COMM_WORLD), InputError);
  EXPECT_THROW(H5Catalog(dir.path("missing.h5"), MPI_COMM_WORLD), InputError);
}

// Malformed catalogs: well-formed HDF5 files whose contents do not follow the layout (the same
// cases as the h5_catalog fuzz target's inputs in tests/fuzz/regressions/h5_catalog).

// Objects 7 (3 rows) and 8 (2 rows), with uncertainties, as `astrosweep convert` writes them.
std::string small_catalog(const test::TempDir& dir) {
  LightCurveBlock block;
  block.append(7, {1, 2, 3}, {1, 1, 1}, {0.1, 0.1, 0.1});
  block.append(8, {4, 5}, {1, 1}, {0.1, 0.1});
  const auto path = dir.path("small.h5");
  write_h5_catalog(path, block, "MJD", {"csv", "small.csv", 0, "0"});
  return path;
}

// Replaces the dataset `name` by one of shape `dims` (empty: a scalar) holding `values` as `type`.
void replace_dataset(const std::string& path, const std::string& name, const std::vector<hsize_t>& dims,
                     const std::vector<std::uint64_t>& values, hid_t type = H5T_NATIVE_UINT64) {
  h5::Id file(H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT));
  ASSERT_GE(H5Ldelete(file.get(), name.c_str(), H5P_DEFAULT), 0);
  h5::Id space(dims.empty() ? H5Screate(H5S_SCALAR)
                            : H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr));
  h5::Id ds(H5Dcreate2(file.get(), name.c_str(), type, space.get(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
  if (!values.empty() && H5Tget_class(type) != H5T_STRING) {
    ASSERT_GE(H5Dwrite(ds.get(), H5T_NATIVE_UINT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()), 0);
  }
}

void expect_catalog_error(const std::string& path, const std::vector<std::string>& needles) {
  try {
    H5Catalog catalog(path, MPI_COMM_WORLD);
    (void)catalog.read_index();
    FAIL() << "the catalog was accepted";
  } catch (const InputError& e) {
    for (const auto& needle : needles) EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

// Writes `value` as the scalar string attribute `name` of `loc` (replacing one there): by default
// as h5py writes a Python str, one variable-length UTF-8 string (H5T_VARIABLE, NULLTERM).
void set_string_attribute(hid_t loc, const char* name, const std::string& value, bool variable = true,
                          H5T_cset_t cset = H5T_CSET_UTF8) {
  if (H5Aexists(loc, name) > 0) {
    ASSERT_GE(H5Adelete(loc, name), 0);
  }
  h5::Id type(H5Tcopy(H5T_C_S1));
  ASSERT_GE(H5Tset_size(type.get(), variable ? H5T_VARIABLE : std::max<std::size_t>(value.size(), 1)), 0);
  ASSERT_GE(H5Tset_cset(type.get(), cset), 0);
  h5::Id space(H5Screate(H5S_SCALAR));
  h5::Id attr(H5Acreate2(loc, name, type.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT));
  const char* text = value.c_str();
  ASSERT_GE(H5Awrite(attr.get(), type.get(), variable ? static_cast<const void*>(&text) : text), 0);
}

// docs/formats.md accepts catalogs written by other tools; h5py writes str attributes as
// variable-length UTF-8 strings, which were taken for missing (the catalog "not an astrosweep
// light-curve catalog"). Both kinds, in either character set, are read, the bytes as stored.
TEST(H5Catalog, VariableLengthStringAttributesAsH5pyWritesThem) {
  test::TempDir dir;
  const auto path = small_catalog(dir);
  const std::string minus_label = "BJD \xe2\x88\x92 2457000";  // U+2212 MINUS SIGN, as UTF-8
  {
    h5::Id file(H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT));
    set_string_attribute(file.get(), "format", "astrosweep.lightcurves");
    set_string_attribute(file.get(), "time_unit", "d");
    set_string_attribute(file.get(), "time_reference", minus_label);
    set_string_attribute(file.get(), "source_format", "csv");
    set_string_attribute(file.get(), "source_paths", "");
    set_string_attribute(file.get(), "source_digest", "0");
  }
  {
    H5Catalog catalog(path, MPI_COMM_WORLD);
    const auto index = catalog.read_index();
    EXPECT_EQ(index.time_reference, minus_label);
    EXPECT_EQ(index.ids, (std::vector<std::int64_t>{7, 8}));
    CatalogOptions options;
    options.inputs = {path};
    Catalog opened(options, MPI_COMM_WORLD);
    EXPECT_EQ(opened.format(), InputFormat::hdf5);
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {  // the index is complete on rank 0 only
      EXPECT_EQ(opened.index().time_reference, minus_label);
    }
  }  // closed: HDF5 opens a file read-write only when no one in the process has it open

  h5::Id file(H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT));
  EXPECT_EQ(h5::string_attribute(file.get(), "source_paths"), "");  // an empty variable-length string
  set_string_attribute(file.get(), "vlen_ascii", "MJD", true, H5T_CSET_ASCII);
  set_string_attribute(file.get(), "fixed_utf8", minus_label, false, H5T_CSET_UTF8);
  set_string_attribute(file.get(), "fixed_ascii", "MJD", false, H5T_CSET_ASCII);
  EXPECT_EQ(h5::string_attribute(file.get(), "vlen_ascii"), "MJD");
  EXPECT_EQ(h5::string_attribute(file.get(), "fixed_utf8"), minus_label);
  EXPECT_EQ(h5::string_attribute(file.get(), "fixed_ascii"), "MJD");
  // Not a string, or not one: still no value of that kind.
  EXPECT_EQ(h5::string_attribute(file.get(), "format_version"), std::nullopt);
  EXPECT_EQ(h5::int_attribute(file.get(), "format"), std::nullopt);
  EXPECT_EQ(h5::string_attribute(file.get(), "absent"), std::nullopt);
}

// A two-dimensional column was read into a vector of its first dimension's length (a heap
// overflow), a scalar one indexed an empty vector.
TEST(H5Catalog, ColumnsAreOneDimensionalNumbers) {
  test::TempDir dir;
  const auto path = small_catalog(dir);
  replace_dataset(path, "objects/id", {2, 2}, {7, 7, 8, 8});
  expect_catalog_error(path, {"/objects/id", "has 2 dimensions, not 1"});
  replace_dataset(path, "objects/id", {}, {7});
  expect_catalog_error(path, {"/objects/id", "has 0 dimensions"});
  replace_dataset(path, "objects/id", {2}, {}, H5T_C_S1);
  expect_catalog_error(path, {"/objects/id", "does not hold numbers"});
  const auto other = small_catalog(dir);
  replace_dataset(other, "objects/t_min", {1, 2}, {1, 4});
  expect_catalog_error(other, {"/objects/t_min", "has 2 dimensions"});
}

// An array attribute was read into one value (a stack overflow).
TEST(H5Catalog, AttributeArraysAreNotValues) {
  test::TempDir dir;
  const auto path = small_catalog(dir);
  {
    h5::Id file(H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT));
    ASSERT_GE(H5Adelete(file.get(), "format_version"), 0);
    const hsize_t two = 2;
    h5::Id space(H5Screate_simple(1, &two, nullptr));
    h5::Id attr(H5Acreate2(file.get(), "format_version", H5T_NATIVE_INT64, space.get(), H5P_DEFAULT, H5P_DEFAULT));
    const std::int64_t versions[2] = {1, 1};
    ASSERT_GE(H5Awrite(attr.get(), H5T_NATIVE_INT64, versions), 0);
  }
  expect_catalog_error(path, {"format_version"});
}

// The counts were summed without a bound: 3 + (2^64 - 1) wrapped around to the 2 rows of a
// shortened /points/t, and the index promised 2^64 - 1 rows for object 8.
TEST(H5Catalog, CountsCannotPromiseRowsThatAreNotThere) {
  test::TempDir dir;
  const auto path = small_catalog(dir);
  replace_dataset(path, "objects/count", {2}, {3, std::numeric_limits<std::uint64_t>::max()});
  for (const char* column : {"points/t", "points/y", "points/dy"}) replace_dataset(path, column, {2}, {1, 2});
  expect_catalog_error(path, {"object 0 (id 7) counts 3 rows", "2 left"});
  const auto other = small_catalog(dir);
  replace_dataset(other, "points/y", {4}, {1, 1, 1, 1});
  expect_catalog_error(other, {"/points/y and /points/t have different lengths"});
  const auto third = small_catalog(dir);
  replace_dataset(third, "objects/n_flagged", {3}, {0, 0, 0}, H5T_NATIVE_UINT32);
  expect_catalog_error(third, {"/objects/n_flagged and /objects/id have different lengths"});
}

// Objects of two missions keep their own BJD references through the catalog, read by ranges;
// a catalog without them (written before they existed, or from CSV) has one root label.
// Two objects of two missions (Kepler's and TESS's BJD references) with errors.
std::string two_mission_catalog(const test::TempDir& dir) {
  LightCurveBlock block;
  block.append(7, {120.0, 121.0}, {1, 2}, {0.1, 0.1});
  block.append(8, {1400.0, 1401.0, 1402.0}, {1, 2, 3}, {0.1, 0.1, 0.1});
  block.bjdrefi = {2454833, 2457000};
  block.bjdreff = {0.25, 0.0};
  const auto path = dir.path("mixed.h5");
  write_h5_catalog(path, block, "BJD - (bjdrefi + bjdreff) of each object (TDB)", {"fits", "a\nb", 0, "0"});
  return path;
}

TEST(H5Catalog, PerObjectTimeReferencesRoundTrip) {
  test::TempDir dir;
  H5Catalog catalog(two_mission_catalog(dir), MPI_COMM_WORLD);
  const auto index = catalog.read_index();
  EXPECT_TRUE(index.has_time_references);
  const auto second = catalog.read(1, 1, 2, 3);
  EXPECT_EQ(second.bjdrefi, (std::vector<std::int64_t>{2457000}));
  EXPECT_EQ(second.bjdreff, (std::vector<double>{0.0}));
  const auto both = catalog.read(0, 2, 0, 5);
  EXPECT_EQ(both.bjdreff, (std::vector<double>{0.25, 0.0}));

  const auto plain = small_catalog(dir);
  EXPECT_FALSE(H5Catalog(plain, MPI_COMM_WORLD).read_index().has_time_references);
  EXPECT_FALSE(H5Catalog(plain, MPI_COMM_WORLD).read(0, 1, 0, 3).has_time_references());
}

// A rank reads unit after unit into one block: what a read leaves must be exactly the unit, whatever
// the block held before (more rows, errors and time references of another catalog).
TEST(H5Catalog, ReadIntoAReusedBlockGivesTheFreshRead) {
  test::TempDir dir;
  const auto mixed = two_mission_catalog(dir);
  const auto plain = small_catalog(dir);
  H5Catalog with_refs(mixed, MPI_COMM_NULL), without(plain, MPI_COMM_NULL);
  LightCurveBlock reused;
  with_refs.read(0, 2, 0, 5, reused);
  with_refs.read(1, 1, 2, 3, reused);
  const auto fresh = with_refs.read(1, 1, 2, 3);
  EXPECT_EQ(reused.ids, fresh.ids);
  EXPECT_EQ(reused.t, fresh.t);
  EXPECT_EQ(reused.dy, fresh.dy);
  EXPECT_EQ(reused.bjdrefi, fresh.bjdrefi);
  without.read(0, 1, 0, 3, reused);
  const auto plain_fresh = without.read(0, 1, 0, 3);
  EXPECT_EQ(reused.ids, plain_fresh.ids);
  EXPECT_EQ(reused.counts, plain_fresh.counts);
  EXPECT_EQ(reused.t, plain_fresh.t);
  EXPECT_EQ(reused.y, plain_fresh.y);
  EXPECT_EQ(reused.dy, plain_fresh.dy);
  EXPECT_EQ(reused.n_flagged, plain_fresh.n_flagged);
  EXPECT_FALSE(reused.has_time_references());
}

TEST(H5Catalog, HalfATimeReferenceIsAnError) {
  test::TempDir dir;
  const auto path = small_catalog(dir);
  {
    h5::Id file(H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT));
    const hsize_t two = 2;
    h5::Id space(H5Screate_simple(1, &two, nullptr));
    h5::Id ds(H5Dcreate2(file.get(), "objects/bjdrefi", H5T_NATIVE_INT64, space.get(), H5P_DEFAULT, H5P_DEFAULT,
                         H5P_DEFAULT));
    ASSERT_TRUE(ds.valid());
  }
  try {
    H5Catalog catalog(path, MPI_COMM_WORLD);
    FAIL() << "bjdrefi without bjdreff was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("/objects/bjdrefi and /objects/bjdreff"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace astrosweep::io
