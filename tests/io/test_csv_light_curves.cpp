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

// Ids in increasing order are kept in a sorted list, the others in a hash map: an id that comes
// back is found in either, with the line where its rows began; new ids are not mistaken for old.
TEST(CsvLightCurves, IdsThatComeBackAreFoundSortedOrNot) {
  test::TempDir dir;
  expect_input_error(write(dir, "a.csv", "5,1,1\n7,1,1\n3,1,1\n7,2,2\n"),
                     "a.csv:4: object id 7 appears again; its rows began at line 2");
  expect_input_error(write(dir, "b.csv", "5,1,1\n7,1,1\n3,1,1\n9,1,1\n3,2,2\n"),
                     "b.csv:5: object id 3 appears again; its rows began at line 3");
  expect_input_error(write(dir, "c.csv", "9,1,1\n3,1,1\n9,2,2\n"),
                     "c.csv:3: object id 9 appears again; its rows began at line 1");
  expect_input_error(write(dir, "d.csv", "5,1,1\n3,1,1\n4,1,1\n8,1,1\n4,2,2\n"),
                     "d.csv:5: object id 4 appears again; its rows began at line 3");
  const auto r = read_csv_light_curves(write(dir, "e.csv", "5,1,1\n7,1,1\n3,1,1\n6,1,1\n8,1,1\n-2,1,1\n9,1,1\n"));
  EXPECT_EQ(r.block.ids, (std::vector<std::int64_t>{5, 7, 3, 6, 8, -2, 9}));
}

// The file is read 4 MiB at a time and passed on in blocks of whole objects: lines cut by the end
// of a read, CRLF endings, comments and a last line without a newline read as in one piece, and
// the identity (bytes, digest) is that of the whole file.
TEST(CsvLightCurves, StreamedInBlocksOfWholeObjects) {
  test::TempDir dir;
  LightCurveBlock expected;
  std::string text = "# id, t, y, dy\r\n";
  for (int object = 0; object < 8000; ++object) {
    const int rows = 1 + object % 40;
    std::vector<double> t, y, dy;
    for (int r = 0; r < rows; ++r) {
      t.push_back(58000 + object + 0.25 * r);
      y.push_back(15 + 0.125 * ((object * 7 + r) % 13));
      dy.push_back(0.0625 * (1 + r % 3));
      // Lines of different lengths, so the 4 MiB reads end anywhere in a line.
      text += std::to_string(1000 + object) + "," + std::string(static_cast<std::size_t>(r % 7), ' ') +
              std::to_string(t.back()) + ", " + std::to_string(y.back()) + ",\t" + std::to_string(dy.back()) +
              (r % 5 == 0 ? "  # a comment\r\n" : "\n");
    }
    expected.append(1000 + object, t, y, dy);
  }
  text.pop_back();  // the last line without its newline
  ASSERT_GT(text.size(), std::size_t{5} << 20) << "the file must take more than one read";
  const auto path = write(dir, "big.csv", text);

  for (const std::uint64_t block_rows : {std::uint64_t{1}, std::uint64_t{100}, default_block_rows}) {
    test::RecordingSink sink;
    const auto streamed = stream_csv_light_curves(path, sink, block_rows);
    test::expect_same_light_curves(sink.all, expected);
    EXPECT_TRUE(sink.truncations.empty());
    for (std::size_t b = 0; b + 1 < sink.block_rows.size(); ++b) {
      EXPECT_GE(sink.block_rows[b], block_rows) << "block " << b;       // full, except the last
      EXPECT_LT(sink.block_rows[b], block_rows + 40) << "block " << b;  // by at most one object
    }
    if (block_rows == 1) {
      EXPECT_EQ(sink.block_objects.size(), 8000u);  // one object a block
    }
    EXPECT_EQ(streamed.identity.bytes, text.size());
    Fnv1a64 digest;
    digest.update(text.data(), text.size());
    EXPECT_EQ(streamed.identity.digest, digest.hex());
  }
  test::expect_same_light_curves(read_csv_light_curves(path).block, expected);
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
