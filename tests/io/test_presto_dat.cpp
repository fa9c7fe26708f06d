// The PRESTO time-series reader: .dat/.inf round trips found from either path, the labels read,
// and malformed .inf lines (FILE:LINE), missing halves and sizes that disagree.
#include <gtest/gtest.h>

#include "core/error.hpp"
#include "io/presto_dat.hpp"
#include "io/time_series_fixtures.hpp"
#include "test_data.hpp"

namespace astrosweep::io {
namespace {

template <class Read>
std::string input_error(Read&& read) {
  try {
    read();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(PrestoDat, RoundTripFromEitherPath) {
  test::TempDir dir;
  const auto samples = test::noise_series(777, 3, 10.0f);
  test::write_presto(dir.path("obs_DM12.50"), {}, samples);
  for (const char* name : {"obs_DM12.50.dat", "obs_DM12.50.inf"}) {
    const auto series = read_presto_dat(dir.path(name));
    EXPECT_EQ(series.samples, samples);
    EXPECT_EQ(series.paths.dat, dir.path("obs_DM12.50.dat"));
    EXPECT_EQ(series.paths.inf, dir.path("obs_DM12.50.inf"));
    EXPECT_EQ(series.inf.n_samples, 777u);
    EXPECT_DOUBLE_EQ(series.inf.tsamp, 64e-6);
    EXPECT_DOUBLE_EQ(series.inf.epoch_mjd, 60123.456789);
    EXPECT_DOUBLE_EQ(series.inf.dm, 12.5);
    EXPECT_TRUE(series.inf.has_dm);
    EXPECT_EQ(series.inf.object, "J1234+5678");
    EXPECT_EQ(series.inf.notes, "Input filterbank samples have 8 bits.\n\n");
  }
  // Every line is kept for provenance, labels trimmed.
  const auto inf = read_presto_inf(dir.path("obs_DM12.50.inf"));
  ASSERT_FALSE(inf.fields.empty());
  EXPECT_EQ(inf.fields.front(), (std::pair<std::string, std::string>{"Data file name without suffix", "obs_DM12.50"}));
}

TEST(PrestoDat, XrayDataHasNoDm) {
  test::TempDir dir;
  test::PrestoSpec spec;
  spec.dm.reset();
  test::write_presto(dir.path("xray"), spec, {1, 2, 3});
  const auto series = read_presto_dat(dir.path("xray.dat"));
  EXPECT_FALSE(series.inf.has_dm);
  EXPECT_EQ(series.inf.dm, 0);
}

TEST(PrestoDat, MissingHalfOfThePair) {
  test::TempDir dir;
  test::write_file(dir.path("alone.dat"), test::tim_samples({1, 2}, 32));
  auto what = input_error([&] { read_presto_dat(dir.path("alone.dat")); });
  // (built in steps: GCC 12 warns of a false -Wrestrict on "'" + std::string)
  std::string expected = dir.path("alone.dat");
  expected += "' has no header '" + dir.path("alone.inf") + "' beside it";
  EXPECT_NE(what.find(expected), std::string::npos) << what;
  test::write_file(dir.path("only.inf"), test::presto_inf({.n_samples = 2}, "only"));
  what = input_error([&] { read_presto_dat(dir.path("only.inf")); });
  EXPECT_NE(what.find("has no samples '" + dir.path("only.dat") + "'"), std::string::npos) << what;
  what = input_error([&] { read_presto_dat(dir.path("series.fil")); });
  EXPECT_NE(what.find("ends neither in .dat nor in .inf"), std::string::npos) << what;
}

TEST(PrestoDat, BadInfLinesNameFileAndLine) {
  test::TempDir dir;
  const auto good = test::presto_inf({.n_samples = 4}, "b");
  auto error_of = [&](const std::string& inf) {
    test::write_file(dir.path("b.inf"), inf);
    test::write_file(dir.path("b.dat"), test::tim_samples({1, 2, 3, 4}, 32));
    return input_error([&] { read_presto_dat(dir.path("b.dat")); });
  };
  // A line without '=' before the notes (line 3).
  auto lines = good;
  lines.insert(lines.find(" Object"), "garbage without an equals sign\n");
  auto what = error_of(lines);
  EXPECT_NE(what.find("b.inf:4: expected 'label = value', found 'garbage without an equals sign'"), std::string::npos)
      << what;
  // A value that is not a number.
  auto bad_tsamp = good;
  bad_tsamp.replace(bad_tsamp.find("6.4e-05"), 7, "fast");
  what = error_of(bad_tsamp);
  EXPECT_NE(what.find("b.inf:11: 'Width of each time series bin (sec)' = 'fast' is not a number"), std::string::npos)
      << what;
  auto bad_count = good;
  bad_count.replace(bad_count.find("=  4\n"), 5, "=  -4\n");
  what = error_of(bad_count);
  EXPECT_NE(what.find("b.inf:10: 'Number of bins in the time series' = '-4' is not a whole number"), std::string::npos)
      << what;
  // A label missing altogether.
  auto no_epoch = good;
  const auto at = no_epoch.find(" Epoch");
  no_epoch.erase(at, no_epoch.find('\n', at) - at + 1);
  what = error_of(no_epoch);
  EXPECT_NE(what.find("has no line 'Epoch of observation (MJD) = ...'"), std::string::npos) << what;
  // CRLF line ends and extra blank lines are fine.
  std::string crlf;
  for (char c : good) crlf += c == '\n' ? std::string("\r\n") : std::string(1, c);
  EXPECT_EQ(error_of("\n" + crlf), "");
}

TEST(PrestoDat, SizeMustAgreeWithTheCount) {
  test::TempDir dir;
  test::write_presto(dir.path("s"), {.n_samples = 256}, std::vector<float>(250, 1.0f));
  auto what = input_error([&] { read_presto_dat(dir.path("s.inf")); });
  EXPECT_NE(what.find("holds 1000 bytes (250 float32 samples), but '" + dir.path("s.inf") +
                      "' says 256 samples (1024 bytes)"),
            std::string::npos)
      << what;
  test::write_file(dir.path("s.dat"), std::string(1026, '\0'));
  what = input_error([&] { read_presto_dat(dir.path("s.inf")); });
  EXPECT_NE(what.find("holds 1026 bytes, but"), std::string::npos) << what;
  // A count beyond any file: compared, never multiplied into an allocation.
  test::write_file(dir.path("s.inf"), test::presto_inf({.n_samples = 4611686018427387904ULL}, "s"));
  what = input_error([&] { read_presto_dat(dir.path("s.dat")); });
  EXPECT_NE(what.find("says 4611686018427387904 samples (more than 2^64 bytes)"), std::string::npos) << what;
}

}  // namespace
}  // namespace astrosweep::io
