// FITS cubes for scfind: every BITPIX, SoFiA-2's scaling and blanking, channel ranges, and every
// kind of bad input, on fixtures written here with CFITSIO.
#include <fitsio.h>
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>

#include "core/error.hpp"
#include "io/cube.hpp"
#include "io/cube_fixtures.hpp"
#include "test_data.hpp"

namespace astrosweep::io {
namespace {

using test::FitsCubeKeys;
using test::write_fits_cube;

constexpr double inf = std::numeric_limits<double>::infinity();
const double nan = std::nan("");

// SoFiA-2 v2.5's DataCube_load, written out per voxel: the oracle.
float sofia_value(int bitpix, double raw, const FitsCubeKeys& keys) {
  const double bscale = keys.bscale.value_or(1.0), bzero = keys.bzero.value_or(0.0);
  float x = 0;
  if (bitpix > 0) {
    if (keys.blank && raw == static_cast<double>(*keys.blank)) return std::nanf("");
    x = static_cast<float>(bzero + bscale * raw);
  } else if (bitpix == -32) {
    x = static_cast<float>(raw);
    if (bscale != 1.0) x = static_cast<float>(static_cast<double>(x) * bscale);
    if (bzero != 0.0) x = static_cast<float>(static_cast<double>(x) + bzero);
  } else {
    double d = raw;
    if (bscale != 1.0) d *= bscale;
    if (bzero != 0.0) d += bzero;
    x = static_cast<float>(d);
  }
  return std::isinf(x) ? std::nanf("") : x;
}

// Stored values that exercise each type: the full unsigned byte range, negative shorts, int32
// beyond float's 24-bit mantissa, floats and doubles with digits float32 cannot hold.
std::vector<double> raw_values(int bitpix, std::size_t n) {
  std::vector<double> v(n);
  for (std::size_t i = 0; i < n; ++i) {
    const double k = static_cast<double>(i);
    switch (bitpix) {
      case 8: v[i] = static_cast<double>((i * 37) % 256); break;
      case 16: v[i] = std::fmod(k * 997.0, 65536.0) - 32768.0; break;
      case 32: v[i] = k * 16777259.0 - 1.0e9; break;
      case -32: v[i] = static_cast<double>(static_cast<float>(std::sin(k) * 3.7)); break;
      default: v[i] = std::sin(k) * 3.7 + 1.0e-9 * k; break;
    }
  }
  return v;
}

void expect_same(const std::vector<float>& got, const std::vector<float>& want, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(want[i]))
      EXPECT_TRUE(std::isnan(got[i])) << what << " voxel " << i << " = " << got[i];
    else
      EXPECT_EQ(got[i], want[i]) << what << " voxel " << i;
  }
}

std::vector<float> read_all(const CubeInfo& info, ChannelReadCounts* counts = nullptr) {
  std::vector<float> out(info.nx * info.ny * info.nz);
  const auto c = read_cube_channels(info, 0, info.nz, out);
  if (counts != nullptr) *counts = c;
  return out;
}

std::vector<float> oracle(int bitpix, const std::vector<double>& raw, const FitsCubeKeys& keys) {
  std::vector<float> want(raw.size());
  for (std::size_t i = 0; i < raw.size(); ++i) want[i] = sofia_value(bitpix, raw[i], keys);
  return want;
}

const std::vector<long> shape{5, 4, 7};  // nx, ny, nz
constexpr std::size_t n_voxels = 5 * 4 * 7;

TEST(FitsCube, EveryBitpixWithoutScaling) {
  test::TempDir dir;
  for (int bitpix : {8, 16, 32, -32, -64}) {
    const auto path = dir.path("plain" + std::to_string(bitpix) + ".fits");
    const auto raw = raw_values(bitpix, n_voxels);
    write_fits_cube(path, bitpix, shape, raw);
    const auto info = read_cube_info(path);
    EXPECT_EQ(info.format, CubeFormat::fits);
    EXPECT_EQ(info.bitpix, bitpix);
    EXPECT_EQ(info.naxis, 3);
    EXPECT_EQ(info.nx, 5u);
    EXPECT_EQ(info.ny, 4u);
    EXPECT_EQ(info.nz, 7u);
    EXPECT_TRUE(info.dataset.empty());
    ChannelReadCounts counts;
    const auto got = read_all(info, &counts);
    expect_same(got, oracle(bitpix, raw, {}), "BITPIX " + std::to_string(bitpix));
    EXPECT_EQ(counts.blanks, 0u);
    EXPECT_EQ(counts.infinities, 0u);
  }
}

TEST(FitsCube, EveryBitpixWithBscaleAndBzero) {
  test::TempDir dir;
  for (int bitpix : {8, 16, 32, -32, -64}) {
    const FitsCubeKeys keys{bitpix == 16 ? 1.0 / 3.0 : 1.1, bitpix == 16 ? 32768.0 : 1.0 / 3.0, std::nullopt};
    const auto path = dir.path("scaled" + std::to_string(bitpix) + ".fits");
    const auto raw = raw_values(bitpix, n_voxels);
    write_fits_cube(path, bitpix, shape, raw, keys);
    const auto got = read_all(read_cube_info(path));
    expect_same(got, oracle(bitpix, raw, keys), "scaled BITPIX " + std::to_string(bitpix));
  }
}

TEST(FitsCube, FloatScalingRoundsLikeSofia) {
  // -32: SoFiA-2 multiplies, rounds to float, adds, rounds again; -64: both in double, one
  // rounding at the end. Check that the fixture tells these apart from the other order.
  test::TempDir dir;
  const FitsCubeKeys keys{1.1, 1.0 / 3.0, std::nullopt};
  std::size_t differs_32 = 0, differs_64 = 0;
  for (int bitpix : {-32, -64}) {
    const auto path = dir.path("rounding" + std::to_string(bitpix) + ".fits");
    const auto raw = raw_values(bitpix, n_voxels);
    write_fits_cube(path, bitpix, shape, raw, keys);
    const auto got = read_all(read_cube_info(path));
    for (std::size_t i = 0; i < raw.size(); ++i) {
      const auto once = static_cast<float>(raw[i] * 1.1 + 1.0 / 3.0);
      const auto twice = static_cast<float>(static_cast<double>(static_cast<float>(raw[i] * 1.1)) + 1.0 / 3.0);
      if (bitpix == -32) {
        EXPECT_EQ(got[i], twice) << i;
        differs_32 += once != twice;
      } else {
        EXPECT_EQ(got[i], once) << i;
        differs_64 += once != twice;
      }
    }
  }
  EXPECT_GT(differs_32, 0u);
  EXPECT_GT(differs_64, 0u);
}

TEST(FitsCube, BlankIntegersBecomeNaN) {
  test::TempDir dir;
  for (int bitpix : {8, 16, 32}) {
    for (bool scaled : {false, true}) {
      const long long blank = bitpix == 8 ? 255 : bitpix == 16 ? -32768 : -2147483647LL - 1;
      const FitsCubeKeys keys{scaled ? std::optional(0.5) : std::nullopt, scaled ? std::optional(-2.0) : std::nullopt,
                              blank};
      auto raw = raw_values(bitpix, n_voxels);
      for (auto& v : raw)
        if (v == static_cast<double>(blank)) v = 0;
      for (std::size_t i : {0u, 17u, 41u, 139u}) raw[i] = static_cast<double>(blank);
      const auto path = dir.path("blank" + std::to_string(bitpix) + (scaled ? "s" : "") + ".fits");
      write_fits_cube(path, bitpix, shape, raw, keys);
      ChannelReadCounts counts;
      const auto got = read_all(read_cube_info(path), &counts);
      expect_same(got, oracle(bitpix, raw, keys), path);
      EXPECT_TRUE(std::isnan(got[17]));
      EXPECT_EQ(counts.blanks, 4u);
      EXPECT_EQ(counts.infinities, 0u);
    }
  }
}

TEST(FitsCube, NaNStaysBlankAndInfinitiesBecomeBlanks) {
  test::TempDir dir;
  for (int bitpix : {-32, -64}) {
    for (bool scaled : {false, true}) {
      const FitsCubeKeys keys{scaled ? std::optional(2.0) : std::nullopt, scaled ? std::optional(1.0) : std::nullopt,
                              std::nullopt};
      auto raw = raw_values(bitpix, n_voxels);
      raw[3] = nan;
      raw[50] = nan;
      raw[7] = inf;
      raw[8] = -inf;
      if (bitpix == -64) raw[9] = 1e300;  // finite in the file, beyond float32
      const auto path = dir.path("nonfinite" + std::to_string(bitpix) + (scaled ? "s" : "") + ".fits");
      write_fits_cube(path, bitpix, shape, raw, keys);
      ChannelReadCounts counts;
      const auto got = read_all(read_cube_info(path), &counts);
      expect_same(got, oracle(bitpix, raw, keys), path);
      for (std::size_t i : {3u, 7u, 8u, 50u}) EXPECT_TRUE(std::isnan(got[i])) << i;
      EXPECT_EQ(counts.blanks, 2u);
      EXPECT_EQ(counts.infinities, bitpix == -64 ? 3u : 2u);
    }
  }
}

TEST(FitsCube, DegenerateFourthAxis) {
  test::TempDir dir;
  const auto path = dir.path("stokes.fits");
  const auto raw = raw_values(-32, n_voxels);
  write_fits_cube(path, -32, {5, 4, 7, 1}, raw);
  const auto info = read_cube_info(path);
  EXPECT_EQ(info.naxis, 4);
  EXPECT_EQ(info.nz, 7u);
  expect_same(read_all(info), oracle(-32, raw, {}), "NAXIS 4");
}

TEST(FitsCube, ChannelRangesMatchTheWholeCube) {
  test::TempDir dir;
  for (int bitpix : {8, 16, 32, -32, -64}) {
    const FitsCubeKeys keys{1.5, -0.25, bitpix > 0 ? std::optional(7LL) : std::nullopt};
    const auto path = dir.path("ranges" + std::to_string(bitpix) + ".fits");
    write_fits_cube(path, bitpix, shape, raw_values(bitpix, n_voxels), keys);
    const auto info = read_cube_info(path);
    const auto whole = read_all(info);
    const std::size_t plane = info.nx * info.ny;
    // first, last, middle, one channel, the whole cube, none
    for (auto [z0, z1] :
         std::vector<std::pair<std::size_t, std::size_t>>{{0, 1}, {6, 7}, {2, 5}, {3, 4}, {0, 7}, {4, 4}}) {
      std::vector<float> part((z1 - z0) * plane);
      read_cube_channels(info, z0, z1, part);
      const std::vector<float> want(whole.begin() + static_cast<std::ptrdiff_t>(z0 * plane),
                                    whole.begin() + static_cast<std::ptrdiff_t>(z1 * plane));
      expect_same(part, want, path + " channels " + std::to_string(z0) + ".." + std::to_string(z1));
    }
  }
}

TEST(FitsCube, HeaderCardsAreKept) {
  test::TempDir dir;
  const auto path = dir.path("cards.fits");
  write_fits_cube(path, -32, shape, raw_values(-32, n_voxels));
  const auto info = read_cube_info(path);
  ASSERT_FALSE(info.header_cards.empty());
  EXPECT_EQ(info.header_cards.front().substr(0, 6), "SIMPLE");
  bool crval3 = false, history = false;
  for (const auto& card : info.header_cards) {
    EXPECT_EQ(card.size(), 80u) << card;
    EXPECT_NE(card.substr(0, 8), "END     ");
    crval3 |= card.starts_with("CRVAL3  =");
    history |= card.starts_with("HISTORY written by the astrosweep tests");
  }
  EXPECT_TRUE(crval3);
  EXPECT_TRUE(history);
}

TEST(FitsCube, TruncatedFiles) {
  test::TempDir dir;
  const auto path = dir.path("short.fits");
  write_fits_cube(path, -32, shape, raw_values(-32, n_voxels));
  const auto size = std::filesystem::file_size(path);
  // CFITSIO reads whole 2880-byte blocks: a data unit without its padding is truncated too.
  std::filesystem::resize_file(path, size - 2880 + 4 * n_voxels);
  test::expect_cube_input_error(path, {"short.fits", "truncated", std::to_string(size)});
  std::filesystem::resize_file(path, size - 2880 + 4 * n_voxels - 1);  // one byte of data missing
  test::expect_cube_input_error(path, {"short.fits", "truncated"});
  std::filesystem::resize_file(path, size - 2880);  // no data unit at all
  test::expect_cube_input_error(path, {"short.fits", "truncated"});
  std::filesystem::resize_file(path, 1000);  // the header cut short
  test::expect_cube_input_error(path, {"short.fits"});
}

TEST(FitsCube, UnsupportedShapesAndTypes) {
  test::TempDir dir;
  write_fits_cube(dir.path("image.fits"), -32, {5, 4}, std::vector<double>(20, 1.0));
  test::expect_cube_input_error(dir.path("image.fits"), {"image.fits", "NAXIS = 2", "not a data cube"});
  write_fits_cube(dir.path("stokes2.fits"), -32, {5, 4, 7, 2}, std::vector<double>(280, 1.0));
  test::expect_cube_input_error(dir.path("stokes2.fits"), {"stokes2.fits", "NAXIS = 4 with NAXIS4 = 2"});
  write_fits_cube(dir.path("long.fits"), 64, shape, std::vector<double>(n_voxels, 1.0));
  test::expect_cube_input_error(dir.path("long.fits"), {"long.fits", "BITPIX = 64", "not supported"});
  write_fits_cube(dir.path("empty_axis.fits"), -32, {5, 0, 7}, {});
  test::expect_cube_input_error(dir.path("empty_axis.fits"), {"empty_axis.fits", "NAXIS2 = 0"});
  write_fits_cube(dir.path("dataset.fits"), -32, shape, raw_values(-32, n_voxels));
  test::expect_cube_input_error(dir.path("dataset.fits") + ":/cube", {"dataset.fits", "HDF5 files only"});
}

// A BLANK outside the int64 range was converted to an integer anyway (undefined behaviour that
// UBSan reports on tests/fuzz/regressions/fits_cube/blank_1e300.fits), and a fractional one
// matched the truncated value.
TEST(FitsCube, BlankThatIsNotAnIntegerIsRefused) {
  test::TempDir dir;
  for (const double blank : {1e300, -1e19, 2.5}) {
    const auto path = dir.path("blank.fits");
    write_fits_cube(path, 16, shape, std::vector<double>(n_voxels, 1.0));
    int status = 0;
    fitsfile* f = nullptr;
    fits_open_file(&f, path.c_str(), READWRITE, &status);
    double value = blank;
    fits_update_key(f, TDOUBLE, "BLANK", &value, nullptr, &status);
    fits_close_file(f, &status);
    ASSERT_EQ(status, 0);
    test::expect_cube_input_error(path, {"blank.fits", "BLANK", "not an integer"});
  }
}

TEST(FitsCube, NotACube) {
  test::TempDir dir;
  std::ofstream(dir.path("notes.txt")) << "SIMPLY not a FITS file\n";
  test::expect_cube_input_error(dir.path("notes.txt"), {"notes.txt", "neither a FITS file"});
  std::ofstream(dir.path("empty.fits")).flush();
  test::expect_cube_input_error(dir.path("empty.fits"), {"empty.fits", "is empty"});
  test::expect_cube_input_error(dir.path("missing.fits"), {"missing.fits", "does not exist"});
  std::filesystem::create_directory(dir.path("cube.fits"));
  test::expect_cube_input_error(dir.path("cube.fits"), {"cube.fits", "is a directory"});
  std::ofstream(dir.path("cube.fits.gz"), std::ios::binary) << "\x1f\x8b\x08 compressed";
  test::expect_cube_input_error(dir.path("cube.fits.gz"), {"cube.fits.gz", "gzip"});
  test::expect_cube_input_error("", {"no input cube"});
}

}  // namespace
}  // namespace astrosweep::io
