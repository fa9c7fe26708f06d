// The TESS/Kepler FITS reader on files written here with CFITSIO in the SPOC layout.
#include <fitsio.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>

#include "core/error.hpp"
#include "io/fits_light_curve_fixtures.hpp"
#include "io/fits_light_curves.hpp"
#include "io/light_curve_sink.hpp"
#include "test_data.hpp"

namespace astrosweep::io {
namespace {

using test::Cadence;
using test::kepler;
using test::Mission;
using test::tess;
using test::write_light_curve;

TEST(FitsLightCurves, DropsFlaggedCadencesAndKeepsNaNsForCounting) {
  test::TempDir dir;
  const auto path = dir.path("tess_s1_lc.fits");
  write_light_curve(path, 12345,
                    {{1000.0, 10, 1, 0}, {1000.1, 11, 1, 128}, {1000.2, std::nan(""), 1, 0}, {1000.3, 12, 1, 0}});
  const auto r = read_fits_light_curves({path}, {});
  ASSERT_EQ(r.block.n_objects(), 1u);
  EXPECT_EQ(r.block.ids[0], 12345);
  EXPECT_EQ(r.block.counts[0], 3u);
  EXPECT_EQ(r.block.n_flagged[0], 1u);
  EXPECT_TRUE(std::isnan(r.block.y[1]));
  EXPECT_NE(r.time_reference.find("2457000"), std::string::npos);
}

TEST(FitsLightCurves, SectorsOfOneTargetMergeInTimeOrder) {
  test::TempDir dir;
  write_light_curve(dir.path("b_s2.fits"), 7, {{2000.0, 1, 1, 0}, {2000.5, 2, 1, 0}});
  write_light_curve(dir.path("a_s1.fits"), 7, {{1000.0, 3, 1, 0}});
  write_light_curve(dir.path("c_other.fits"), 8, {{1500.0, 4, 1, 0}});
  const auto files = expand_fits_inputs({dir.path("")});
  ASSERT_EQ(files.size(), 3u);
  const auto r = read_fits_light_curves(files, {});
  ASSERT_EQ(r.block.n_objects(), 2u);
  EXPECT_EQ(r.block.ids[0], 7);
  EXPECT_EQ(r.block.counts[0], 3u);
  EXPECT_DOUBLE_EQ(r.block.t[0], 1000.0);
  EXPECT_DOUBLE_EQ(r.block.t[2], 2000.5);
}

// Streamed: while each target's files follow one another, an object is passed on when the next
// begins (one object a block here); files of a target scattered over the list (TESS sectors
// listed sector by sector) make the reader take back what it passed on from that target on and
// pass it on again whole, read a second time. Either way the objects are those of one block.
TEST(FitsLightCurves, StreamedObjectsAreWholeWhateverTheFilesOrder) {
  test::TempDir dir;
  write_light_curve(dir.path("s1_a.fits"), 7, {{1001.0, 1, 1, 0}, {1000.0, 2, 1, 0}});
  write_light_curve(dir.path("s1_b.fits"), 8, {{1000.5, 3, 1, 0}, {1000.6, 3, 1, 128}});
  write_light_curve(dir.path("s1_c.fits"), 9, {{1000.2, 4, 1, 0}});
  write_light_curve(dir.path("s2_b.fits"), 8, {{2000.0, 5, 1, 0}});
  write_light_curve(dir.path("s2_a.fits"), 7, {{2000.3, 6, 1, 0}, {2000.1, 7, 1, 0}});
  write_light_curve(dir.path("s2_d.fits"), 10, {{2000.2, 8, 1, 0}});
  const std::vector<std::string> scattered{dir.path("s1_a.fits"), dir.path("s1_b.fits"), dir.path("s1_c.fits"),
                                           dir.path("s2_b.fits"), dir.path("s2_a.fits"), dir.path("s2_d.fits")};
  const auto whole = read_fits_light_curves(scattered, {});
  ASSERT_EQ(whole.block.ids, (std::vector<std::int64_t>{7, 8, 9, 10}));
  EXPECT_EQ(whole.block.counts, (std::vector<std::uint64_t>{4, 2, 1, 1}));
  EXPECT_EQ(whole.block.n_flagged, (std::vector<std::uint32_t>{0, 1, 0, 0}));
  EXPECT_EQ(whole.block.t, (std::vector<double>{1000.0, 1001.0, 2000.1, 2000.3, 1000.5, 2000.0, 1000.2, 2000.2}));
  for (const std::uint64_t block_rows : {std::uint64_t{1}, std::uint64_t{3}, default_block_rows}) {
    test::RecordingSink sink;
    const auto streamed = stream_fits_light_curves(scattered, {}, sink, block_rows);
    test::expect_same_light_curves(sink.all, whole.block);
    EXPECT_EQ(streamed.identity.digest, whole.identity.digest);
    EXPECT_EQ(streamed.time_reference, whole.time_reference);
    // s2_b takes back object 8 and those after it; s2_a then object 7 too. Passed on, or still
    // waiting in the reader's block: only what reached the sink is taken back from it.
    if (block_rows == 1) {
      EXPECT_EQ(sink.truncations, (std::vector<std::uint64_t>{1, 0}));
    }
    if (block_rows == default_block_rows) {
      EXPECT_TRUE(sink.truncations.empty());
    }
  }

  // The same targets, each one's files together: nothing is taken back.
  const std::vector<std::string> together{dir.path("s1_a.fits"), dir.path("s2_a.fits"), dir.path("s1_b.fits"),
                                          dir.path("s2_b.fits"), dir.path("s1_c.fits"), dir.path("s2_d.fits")};
  test::RecordingSink sink;
  stream_fits_light_curves(together, {}, sink, 1);
  EXPECT_TRUE(sink.truncations.empty());
  EXPECT_EQ(sink.block_objects, (std::vector<std::size_t>{1, 1, 1, 1}));
  test::expect_same_light_curves(sink.all, whole.block);
}

// Kepler and TESS files in one input: each object keeps the day its times count from (they are
// 2,167 days apart), exactly, and the common label says the references are per object.
TEST(FitsLightCurves, MixedMissionsKeepEachObjectsTimeReference) {
  test::TempDir dir;
  constexpr Mission k2_odd{"KEPLERID", 2454833, 0.25};  // a fractional BJDREFF is kept exactly
  write_light_curve(dir.path("kplr_a.fits"), 8462852, {{120.0, 1, 1, 0}, {121.0, 2, 1, 0}}, true, true, kepler);
  write_light_curve(dir.path("tess_b.fits"), 8462852 + 1, {{1400.0, 3, 1, 0}}, true, true, tess);
  write_light_curve(dir.path("k2_c.fits"), 7, {{2000.0, 3, 1, 0}}, true, true, k2_odd);
  const auto r = read_fits_light_curves(expand_fits_inputs({dir.path("")}), {});
  ASSERT_EQ(r.block.n_objects(), 3u);
  ASSERT_TRUE(r.block.has_time_references());
  // Files in name order: k2_c, kplr_a, tess_b.
  EXPECT_EQ(r.block.bjdrefi, (std::vector<std::int64_t>{2454833, 2454833, 2457000}));
  EXPECT_EQ(r.block.bjdreff, (std::vector<double>{0.25, 0.0, 0.0}));
  EXPECT_DOUBLE_EQ(r.block.t[1], 120.0);  // times as the files give them: relative to their own day
  EXPECT_NE(r.time_reference.find("of each object"), std::string::npos) << r.time_reference;
  const auto index = index_of(r.block, r.time_reference);
  EXPECT_TRUE(index.has_time_references);

  // One mission: the label names the day, as before; the columns are there all the same.
  const auto one = read_fits_light_curves({dir.path("kplr_a.fits")}, {});
  EXPECT_NE(one.time_reference.find("BJD - 2454833.000000 (TDB)"), std::string::npos) << one.time_reference;
  EXPECT_EQ(one.block.bjdrefi, (std::vector<std::int64_t>{2454833}));
}

// A KEPLERID and a TICID that coincide are two stars; merging their cadences would put times of
// two references in one light curve.
TEST(FitsLightCurves, OneIdWithTwoTimeReferencesIsAnError) {
  test::TempDir dir;
  write_light_curve(dir.path("a.fits"), 42, {{120.0, 1, 1, 0}}, true, true, kepler);
  write_light_curve(dir.path("b.fits"), 42, {{1400.0, 3, 1, 0}}, true, true, tess);
  try {
    read_fits_light_curves({dir.path("a.fits"), dir.path("b.fits")}, {});
    FAIL() << "cadences of two time references were merged";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("different references"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("2454833"), std::string::npos) << e.what();
  }
}

TEST(FitsLightCurves, FallsBackToSapFluxAndHonoursFluxColumn) {
  test::TempDir dir;
  const auto path = dir.path("sap.fits");
  write_light_curve(path, 1, {{1.0, 5, 1, 0}}, /*with_pdcsap=*/false);
  FitsReadOptions options;
  EXPECT_THROW(read_fits_light_curves({path}, options), InputError);  // SAP_FLUX has no _ERR here
  options.flux_column = "PDCSAP_FLUX";
  try {
    read_fits_light_curves({path}, options);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("PDCSAP_FLUX"), std::string::npos);
  }
}

TEST(FitsLightCurves, MissingErrorColumnIsAnError) {
  test::TempDir dir;
  const auto path = dir.path("noerr.fits");
  write_light_curve(path, 1, {{1.0, 5, 1, 0}}, true, /*with_err=*/false);
  try {
    read_fits_light_curves({path}, {});
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("PDCSAP_FLUX_ERR"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("noerr.fits"), std::string::npos);
  }
}

// A TICID beyond the int64 range was converted to the object id anyway (undefined behaviour that
// UBSan reports on tests/fuzz/regressions/fits_light_curves/ticid_1e300.fits), and a fractional
// one was truncated.
TEST(FitsLightCurves, TargetIdThatIsNotAnIntegerIsAnError) {
  test::TempDir dir;
  for (const double id : {1e300, 12.5}) {
    const auto path = dir.path("bad_id.fits");
    write_light_curve(path, 1, {{1.0, 5, 1, 0}});
    int status = 0;
    fitsfile* f = nullptr;
    fits_open_file(&f, path.c_str(), READWRITE, &status);
    double value = id;
    fits_update_key(f, TDOUBLE, "TICID", &value, nullptr, &status);
    fits_close_file(f, &status);
    ASSERT_EQ(status, 0);
    try {
      read_fits_light_curves({path}, {});
      FAIL() << "TICID = " << id << " was accepted";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("TICID"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("not an integer"), std::string::npos) << e.what();
    }
  }
}

// Replaces `length` bytes of the first header card of `path` that begins with `card` (searched from
// the first occurrence of `after`), from the card's column `column` (0-based), by `text`.
void patch_card(const std::string& path, const std::string& card, std::size_t column, std::size_t length,
                const std::string& text, const std::string& after = "") {
  std::string bytes = test::file_bytes(path);
  const auto at = bytes.find(card, after.empty() ? 0 : bytes.find(after));
  ASSERT_NE(at, std::string::npos) << card;
  bytes.replace(at + column, length, text);
  std::ofstream(path, std::ios::binary) << bytes;
}

// Reading `path` is an InputError naming TTYPE1 of HDU 2 as not a quoted string.
void expect_unquoted_ttype_refused(const std::string& path) {
  try {
    read_fits_light_curves({path}, {});
    FAIL() << "an unquoted TTYPE1 was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("HDU 2, header card TTYPE1"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("not a quoted string"), std::string::npos) << e.what();
  }
}

// A header promising more rows than the file holds had the reader allocate for all of them before
// reading (10^13 rows: an out-of-memory abort; tests/fuzz/regressions/fits_light_curves).
TEST(FitsLightCurves, RowsBeyondTheFileAreAnErrorNotAnAllocation) {
  test::TempDir dir;
  const auto path = dir.path("naxis2.fits");
  write_light_curve(path, 1, {{1.0, 5, 1, 0}, {2.0, 6, 1, 0}});
  char naxis2[81];
  std::snprintf(naxis2, sizeof naxis2, "NAXIS2  = %20lld", 10000000000000LL);
  patch_card(path, "NAXIS2  =", 0, 30, naxis2, "XTENSION");
  try {
    read_fits_light_curves({path}, {});
    FAIL() << "10^13 rows were accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("reading column TIME"), std::string::npos) << e.what();
  }
}

// CFITSIO 4.2 copies an unquoted 70-character TTYPEn value into a 70-byte field: glibc's
// buffer-overflow check aborted the process (tests/fuzz/regressions/fits_light_curves).
TEST(FitsLightCurves, UnquotedColumnNameIsAnErrorBeforeCfitsioSeesIt) {
  test::TempDir dir;
  const auto path = dir.path("ttype.fits");
  write_light_curve(path, 1, {{1.0, 5, 1, 0}});
  patch_card(path, "TTYPE1  =", 9, 71, " " + std::string(70, 'A'));
  expect_unquoted_ttype_refused(path);
}

// CFITSIO also reads `TTYPE1 =` with '=' in column 8 (its long-keyword form) into the same 70-byte
// field: the check must split the card as CFITSIO does, not look for '=' in column 9 alone.
TEST(FitsLightCurves, UnquotedColumnNameInTheLongKeywordFormIsAnError) {
  test::TempDir dir;
  const auto path = dir.path("ttype_long.fits");
  write_light_curve(path, 1, {{1.0, 5, 1, 0}});
  patch_card(path, "TTYPE1  =", 0, 80, "TTYPE1 = " + std::string(71, 'A'));
  expect_unquoted_ttype_refused(path);
}

// CFITSIO allocates a column structure per TFIELDS before reading further: 2^31 fields asked it
// for 343 GB (the fits_light_curves fuzz target; its leading integer counts, as CFITSIO reads it).
TEST(FitsLightCurves, MoreColumnsThanTheStandardAllowsIsAnError) {
  test::TempDir dir;
  const auto path = dir.path("tfields.fits");
  write_light_curve(path, 1, {{1.0, 5, 1, 0}});
  patch_card(path, "TFIELDS =", 0, 80, "TFIELDS =           2147483648ber of fields" + std::string(36, ' '));
  try {
    read_fits_light_curves({path}, {});
    FAIL() << "TFIELDS = 2^31 was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("HDU 2, header card TFIELDS: more than the 999 columns"), std::string::npos)
        << e.what();
  }
}

TEST(FitsLightCurves, VectorColumnsAreAnError) {
  test::TempDir dir;
  const auto path = dir.path("vector.fits");
  int status = 0;
  fitsfile* f = nullptr;
  fits_create_file(&f, ("!" + path).c_str(), &status);
  fits_create_img(f, 8, 0, nullptr, &status);
  char time[] = "TIME", flux[] = "PDCSAP_FLUX", err[] = "PDCSAP_FLUX_ERR", f2d[] = "2D", f1e[] = "1E";
  char* ttype[] = {time, flux, err};
  char* tform[] = {f2d, f1e, f1e};
  fits_create_tbl(f, BINARY_TBL, 0, 3, ttype, tform, nullptr, nullptr, &status);
  fits_close_file(f, &status);
  ASSERT_EQ(status, 0);
  try {
    read_fits_light_curves({path}, {});
    FAIL() << "a TIME column of two values per row was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("column TIME holds 2 values per row"), std::string::npos) << e.what();
  }
}

TEST(FitsLightCurves, TruncatedNotFitsAndEmptyDirectory) {
  test::TempDir dir;
  const auto good = dir.path("good.fits");
  write_light_curve(good, 1, std::vector<Cadence>(500, {1.0, 2, 1, 0}));
  const std::string bytes = test::file_bytes(good);
  const auto cut = dir.path("cut.fits");
  std::ofstream(cut, std::ios::binary) << bytes.substr(0, bytes.size() / 2);
  EXPECT_THROW(read_fits_light_curves({cut}, {}), InputError);
  const auto text = dir.path("text.fits");
  std::ofstream(text) << "not a fits file\n";
  EXPECT_THROW(read_fits_light_curves({text}, {}), InputError);
  test::TempDir empty;
  EXPECT_THROW(expand_fits_inputs({empty.path("")}), InputError);
}

}  // namespace
}  // namespace astrosweep::io
