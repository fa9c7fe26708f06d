// The CSV reader: the bundled format, comments and blanks, and every malformed input with a
// message that names the file and line.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>

#include "core/error.hpp"
#include "io/csv_light_curves.hpp"
#include "test_data.hpp"

namespace astrosweep::io {
namespace {

std::string write(const test::TempDir& dir, const std::string& name, const std::string& text) {
  const auto path = dir.path(name);
  std::ofstream(path) << text;
  return path;
}

void expect_input_error(const std::string& path, const std::string& needle) {
  try {
    read_csv_light_curves(path);
    FAIL() << "no error for " << path;
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

TEST(CsvLightCurves, ReadsBundledSdssCatalog) {
  const auto r = read_csv_light_curves(test::data_path("lightcurves/sdss_stripe82_z.csv"));
  EXPECT_EQ(r.block.n_objects(), 136u);
  EXPECT_EQ(r.block.t.size(), 7064u);
  EXPECT_TRUE(r.block.has_errors());
  EXPECT_EQ(r.identity.format, "csv");
  EXPECT_EQ(r.identity.digest.size(), 16u);
}

TEST(CsvLightCurves, ThreeColumnsCommentsBlanksAndWhitespace) {
  test::TempDir dir;
  const auto path = write(dir, "a.csv",
                          "# id t y\n\n1, 10.0, 1.5\n1,11.0,2.5  # trailing comment\n2\t12.0\t-3e-1\n"
                          "2 13 nan\n");
  const auto r = read_csv_light_curves(path);
  ASSERT_EQ(r.block.n_objects(), 2u);
  EXPECT_EQ(r.block.counts[0], 2u);
  EXPECT_EQ(r.block.counts[1], 2u);
  EXPECT_FALSE(r.block.has_errors());
  EXPECT_DOUBLE_EQ(r.block.y[2], -0.3);
  EXPECT_TRUE(std::isnan(r.block.y[3]));  // kept: counted and dropped per object later
}

TEST(CsvLightCurves, MalformedLineNamesFileAndLine) {
  test::TempDir dir;
  expect_input_error(write(dir, "bad.csv", "1, 1.0, 2.0\n1, 2.0, abc\n"), "bad.csv:2");
  expect_input_error(write(dir, "id.csv", "x1, 1.0, 2.0\n"), "id.csv:1");
  expect_input_error(write(dir, "cols.csv", "1, 1.0\n"), "cols.csv:1");
  expect_input_error(write(dir, "change.csv", "1, 1.0, 2.0, 0.1\n1, 2.0, 3.0\n"), "change.csv:2");
  expect_input_error(write(dir, "many.csv", "1, 1.0, 2.0, 0.1, 5, 6\n"), "many.csv:1");
}

TEST(CsvLightCurves, NonContiguousDuplicateIdIsAnError) {
  test::TempDir dir;
  expect_input_error(write(dir, "dup.csv", "1, 1, 1\n2, 1, 1\n1, 2, 2\n"), "dup.csv:3");
}

TEST(CsvLightCurves, MissingEmptyAndDirectoryInputs) {
  test::TempDir dir;
  expect_input_error(dir.path("nope.csv"), "does not exist");
  expect_input_error(write(dir, "empty.csv", ""), "no data lines");
  expect_input_error(write(dir, "comments.csv", "# only\n\n"), "no data lines");
  expect_input_error(dir.path(""), "directory");
}

}  // namespace
}  // namespace astrosweep::io
