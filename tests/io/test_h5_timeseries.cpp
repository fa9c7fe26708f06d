// The HDF5 time-series batch (write series by series, read the index and ranges of series), and
// the listing of fdas inputs (files, directories, @LIST, one batch; tsamp, lengths, NaN).
#include <gtest/gtest.h>
#include <hdf5.h>

#include <filesystem>
#include <limits>
#include <numeric>

#include "core/error.hpp"
#include "io/h5.hpp"
#include "io/h5_timeseries.hpp"
#include "io/time_series_fixtures.hpp"
#include "io/time_series_inputs.hpp"
#include "test_data.hpp"

namespace astrosweep::io {
namespace {

template <class Read>
std::string error_of(Read&& read) {
  try {
    read();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

// Three series of different lengths (the middle one spans several 64 Ki-row chunks).
struct Batch {
  std::vector<std::vector<float>> samples{test::noise_series(1000, 1), test::noise_series(150000, 2),
                                          test::noise_series(33, 3)};
  std::vector<SeriesInfo> info{{0.0, 64e-6, 60000.5}, {12.5, 64e-6, 60000.5}, {25.0, 64e-6, 60000.5}};

  void write(const std::string& path) const {
    H5TimeSeriesWriter writer(path, "tim", "a.tim\nb.tim\nc.tim");
    for (std::size_t i = 0; i < samples.size(); ++i) EXPECT_EQ(writer.append(info[i], samples[i]), i);
    EXPECT_EQ(writer.n_series(), 3u);
    EXPECT_EQ(writer.n_rows(), 151033u);
    writer.finish();
  }
};

TEST(H5TimeSeries, RoundTripOfTheIndexAndOfRanges) {
  test::TempDir dir;
  const Batch batch;
  const auto path = dir.path("b.h5");
  batch.write(path);

  H5TimeSeries file(path, MPI_COMM_WORLD);
  file.check_layout();
  const auto index = file.read_index();
  ASSERT_EQ(index.n_series(), 3u);
  EXPECT_EQ(index.dm, (std::vector<double>{0.0, 12.5, 25.0}));
  EXPECT_EQ(index.tsamp, std::vector<double>(3, 64e-6));
  EXPECT_EQ(index.offset, (std::vector<std::uint64_t>{0, 1000, 151000}));
  EXPECT_EQ(index.count, (std::vector<std::uint64_t>{1000, 150000, 33}));
  EXPECT_EQ(index.source_format, "tim");
  EXPECT_EQ(index.source_paths, "a.tim\nb.tim\nc.tim");

  // Each range reads only its rows.
  for (std::uint64_t first = 0; first < 3; ++first)
    for (std::uint64_t n = 0; first + n <= 3; ++n) {
      const auto block = file.read(first, n);
      EXPECT_EQ(block.first_series, first);
      ASSERT_EQ(block.n_series(), n);
      std::vector<float> expected;
      for (std::uint64_t i = first; i < first + n; ++i) {
        expected.insert(expected.end(), batch.samples[i].begin(), batch.samples[i].end());
        EXPECT_EQ(block.dm[i - first], batch.info[i].dm);
        EXPECT_EQ(block.counts[i - first], batch.samples[i].size());
      }
      EXPECT_EQ(block.samples, expected) << first << "+" << n;
    }
  EXPECT_NE(error_of([&] { (void)file.read(2, 2); }).find("the batch has 3"), std::string::npos);
}

TEST(H5TimeSeries, EveryDatasetHasUnitsAndADescription) {
  test::TempDir dir;
  Batch().write(dir.path("b.h5"));
  h5::Id file = h5::open_file(dir.path("b.h5"), h5::Access::read);
  EXPECT_EQ(h5::string_attribute(file.get(), "format"), "astrosweep.timeseries");
  EXPECT_EQ(h5::int_attribute(file.get(), "format_version"), 1);
  for (const char* name :
       {"series/dm", "series/tsamp", "series/tstart_mjd", "series/offset", "series/count", "samples/x"}) {
    h5::Id ds = h5::open_dataset(file.get(), name);
    EXPECT_TRUE(h5::string_attribute(ds.get(), "units").has_value()) << name;
    EXPECT_TRUE(h5::string_attribute(ds.get(), "description").has_value()) << name;
  }
  h5::Id x = h5::open_dataset(file.get(), "samples/x");
  h5::Id type(H5Dget_type(x.get()));
  EXPECT_TRUE(H5Tequal(type.get(), H5T_NATIVE_FLOAT) > 0);
  EXPECT_EQ(h5::string_attribute(h5::open_dataset(file.get(), "series/tsamp").get(), "units"), "s");
}

TEST(H5TimeSeries, AnUnfinishedWriterLeavesNoFile) {
  test::TempDir dir;
  {
    H5TimeSeriesWriter writer(dir.path("partial.h5"), "tim", "a.tim");
    writer.append({1, 1e-3, 59000}, test::noise_series(10, 1));
  }
  EXPECT_FALSE(std::filesystem::exists(dir.path("partial.h5")));
}

// Rewrites one dataset of a finished batch.
void rewrite(const std::string& path, const std::string& name, const std::vector<std::uint64_t>& values) {
  h5::Id file(H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT));
  h5::check(H5Ldelete(file.get(), name.c_str(), H5P_DEFAULT), "H5Ldelete");
  const hsize_t n = values.size();
  h5::Id space(H5Screate_simple(1, &n, nullptr));
  h5::Id ds(
      H5Dcreate2(file.get(), name.c_str(), H5T_NATIVE_UINT64, space.get(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
  h5::check(H5Dwrite(ds.get(), H5T_NATIVE_UINT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()), "H5Dwrite");
}

TEST(H5TimeSeries, InconsistentBatchesNameTheFileAndWhatIsWrong) {
  test::TempDir dir;
  const auto good = dir.path("good.h5");
  Batch().write(good);
  auto variant = [&](const std::string& name, const std::string& dataset, const std::vector<std::uint64_t>& values) {
    const auto path = dir.path(name);
    std::filesystem::copy_file(good, path);
    rewrite(path, dataset, values);
    return error_of([&] { (void)H5TimeSeries(path, MPI_COMM_WORLD).read_index(); });
  };
  EXPECT_NE(variant("gap.h5", "series/offset", {0, 1001, 151001}).find("gap.h5': series 1 starts at row 1001"),
            std::string::npos);
  EXPECT_NE(variant("long.h5", "series/count", {1000, 150000, 34}).find("series 2 counts 34 samples"),
            std::string::npos);
  EXPECT_NE(variant("short.h5", "series/count", {1000, 150000, 32}).find("has 151033 rows but the series count 151032"),
            std::string::npos);
  EXPECT_NE(
      variant("wrap.h5", "series/count", {1000, std::numeric_limits<std::uint64_t>::max(), 34}).find("series 1 counts"),
      std::string::npos);
  EXPECT_NE(variant("index.h5", "series/count", {1000, 150000}).find("/series/count and /series/dm have different"),
            std::string::npos);
  // A range read checks its own rows too (a rank never reads the whole index).
  const auto gap = dir.path("gap.h5");
  EXPECT_NE(error_of([&] { (void)H5TimeSeries(gap, MPI_COMM_WORLD).read(0, 2); }).find("series 1 (offset 1001"),
            std::string::npos);

  // Not this format at all.
  { h5::Id f = h5::open_file(dir.path("other.h5"), h5::Access::create_truncate); }
  EXPECT_NE(error_of([&] {
              H5TimeSeries(dir.path("other.h5"), MPI_COMM_WORLD);
            }).find("other.h5' is an HDF5 file but not an astrosweep time-series batch"),
            std::string::npos);
  EXPECT_THROW(H5TimeSeries(dir.path("missing.h5"), MPI_COMM_WORLD), InputError);
}

// --- the listing of fdas inputs ---

TEST(TimeSeriesInputs, DirectoriesAreSortedByName) {
  test::TempDir dir;
  std::filesystem::create_directories(dir.path("tims"));
  for (const char* name : {"c_DM20.tim", "a_DM0.tim", "b_DM10.tim"}) {
    test::TimSpec spec;
    spec.refdm = name[0] == 'a' ? 0 : name[0] == 'b' ? 10 : 20;
    test::write_file(dir.path(std::string("tims/") + name), test::tim_file(spec, test::noise_series(64, 1)));
  }
  test::write_file(dir.path("tims/notes.txt"), "not a series\n");
  const auto listed = list_time_series_inputs({dir.path("tims")});
  EXPECT_EQ(listed.format, TimeSeriesFormat::tim);
  ASSERT_EQ(listed.series.size(), 3u);
  EXPECT_EQ(listed.series[0].path, dir.path("tims/a_DM0.tim"));
  EXPECT_EQ(listed.series[2].path, dir.path("tims/c_DM20.tim"));
  EXPECT_EQ(listed.series[1].info.dm, 10);
  EXPECT_FALSE(listed.lengths_differ());
  EXPECT_EQ(listed.length_note(), "");
  EXPECT_EQ(read_time_series_samples(listed.series[1]), test::noise_series(64, 1));
}

TEST(TimeSeriesInputs, PrestoPairsFilesAndLists) {
  test::TempDir dir;
  std::filesystem::create_directories(dir.path("dats"));
  test::write_presto(dir.path("dats/s_DM1"), {.dm = 1.0}, test::noise_series(100, 1));
  test::write_presto(dir.path("dats/s_DM2"), {.dm = 2.0}, test::noise_series(90, 2));
  // A directory lists the .dat of each pair once; an @LIST names .inf or .dat.
  auto listed = list_time_series_inputs({dir.path("dats")});
  EXPECT_EQ(listed.format, TimeSeriesFormat::presto);
  ASSERT_EQ(listed.series.size(), 2u);
  EXPECT_TRUE(listed.lengths_differ());
  EXPECT_NE(listed.length_note().find("series lengths differ: 90 to 100 samples"), std::string::npos);
  test::write_file(dir.path("list.txt"), "# two DM trials\ndats/s_DM2.inf\n\ndats/s_DM1.dat\n");
  listed = list_time_series_inputs({"@" + dir.path("list.txt")});
  ASSERT_EQ(listed.series.size(), 2u);
  EXPECT_EQ(listed.series[0].path, dir.path("dats/s_DM2.dat"));
  EXPECT_EQ(listed.series[0].info.dm, 2.0);
  EXPECT_EQ(listed.source_paths(), dir.path("dats/s_DM2.dat") + "\n" + dir.path("dats/s_DM1.dat"));
}

TEST(TimeSeriesInputs, TheRulesOfOneRun) {
  test::TempDir dir;
  test::write_file(dir.path("a.tim"), test::tim_file({}, test::noise_series(16, 1)));
  test::TimSpec slow;
  slow.tsamp = 128e-6;
  test::write_file(dir.path("b.tim"), test::tim_file(slow, test::noise_series(16, 1)));
  auto what = error_of([&] { list_time_series_inputs({dir.path("a.tim"), dir.path("b.tim")}); });
  EXPECT_NE(what.find("'" + dir.path("b.tim") + "' has tsamp = 0.000128 s, but '" + dir.path("a.tim") +
                      "' has tsamp = 6.4e-05 s"),
            std::string::npos)
      << what;

  std::filesystem::create_directories(dir.path("empty"));
  what = error_of([&] { list_time_series_inputs({dir.path("empty")}); });
  EXPECT_NE(what.find("directory '" + dir.path("empty") + "' contains no time series (*.tim, *.dat)"),
            std::string::npos)
      << what;

  test::write_presto(dir.path("p"), {}, test::noise_series(16, 1));
  what = error_of([&] { list_time_series_inputs({dir.path("a.tim"), dir.path("p.dat")}); });
  EXPECT_NE(what.find("the inputs mix time-series formats (tim and presto"), std::string::npos) << what;

  // A NaN sample names the file and its index; so does an infinity.
  auto samples = test::noise_series(16, 1);
  samples[11] = std::numeric_limits<float>::quiet_NaN();
  test::write_file(dir.path("nan.tim"), test::tim_file({}, samples));
  const auto listed = list_time_series_inputs({dir.path("nan.tim")});
  what = error_of([&] { read_time_series_samples(listed.series[0]); });
  EXPECT_NE(what.find("'" + dir.path("nan.tim") + "': sample 11 is NaN"), std::string::npos) << what;
  samples[11] = 1;
  samples[15] = -std::numeric_limits<float>::infinity();
  what = error_of([&] { require_finite_samples(samples, "x", 100); });
  EXPECT_EQ(what, "x: sample 115 is infinite: fdas needs finite samples (a single NaN makes the whole spectrum NaN)");
}

TEST(TimeSeriesInputs, FiniteCheckFindsTheFirstBadSampleAroundItsChunks) {
  // The check tests chunks of 4096 samples without a branch, then looks for the sample: a bad
  // sample at either edge of a chunk, in the last (short) chunk, and the first of two, are found.
  std::vector<float> samples(3 * 4096 + 7, 1.0F);
  EXPECT_NO_THROW(require_finite_samples(samples, "x"));
  EXPECT_NO_THROW(require_finite_samples(std::span<const float>(), "x"));
  for (const std::size_t at : {std::size_t{0}, std::size_t{4095}, std::size_t{4096}, std::size_t{8191},
                               std::size_t{3 * 4096}, samples.size() - 1}) {
    std::vector<float> bad = samples;
    bad[at] = std::numeric_limits<float>::quiet_NaN();
    if (at + 5000 < bad.size()) bad[at + 5000] = std::numeric_limits<float>::infinity();  // a later one
    const std::string what = error_of([&] { require_finite_samples(bad, "x"); });
    EXPECT_NE(what.find("x: sample " + std::to_string(at) + " is NaN"), std::string::npos) << what;
  }
  // The largest finite float and a denormal pass; -inf fails.
  samples[5] = std::numeric_limits<float>::max();
  samples[6] = std::numeric_limits<float>::denorm_min();
  EXPECT_NO_THROW(require_finite_samples(samples, "x"));
  samples[9000] = -std::numeric_limits<float>::infinity();
  EXPECT_NE(error_of([&] { require_finite_samples(samples, "x"); }).find("sample 9000 is infinite"), std::string::npos);
}

TEST(TimeSeriesInputs, OneBatchAlone) {
  test::TempDir dir;
  Batch().write(dir.path("b.h5"));
  const auto listed = list_time_series_inputs({dir.path("b.h5")});
  EXPECT_EQ(listed.format, TimeSeriesFormat::hdf5);
  ASSERT_EQ(listed.series.size(), 3u);
  EXPECT_EQ(listed.series[2].batch_index, 2u);
  EXPECT_EQ(listed.series[2].n_samples, 33u);
  EXPECT_EQ(read_time_series_samples(listed.series[2]), test::noise_series(33, 3));
  test::write_file(dir.path("a.tim"), test::tim_file({}, test::noise_series(16, 1)));
  EXPECT_NE(error_of([&] {
              list_time_series_inputs({dir.path("b.h5"), dir.path("b.h5")});
            }).find("an HDF5 time-series batch is the only input of a run"),
            std::string::npos);
  EXPECT_TRUE(looks_like_time_series({dir.path("a.tim")}));
  EXPECT_FALSE(looks_like_time_series({test::data_path("lightcurves/ztf_243ida_r.csv")}));
}

}  // namespace
}  // namespace astrosweep::io
