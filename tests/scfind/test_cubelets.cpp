// SoFiA-2's cubelets (cubelets.hpp) and PV diagrams (pv_diagram.hpp) on a hand-made cube against
// plain computations of their definitions: the cut-out and its margin clipped at the cube's edges,
// the mask of the source alone (another source in the box left out), the shifted CRPIX, the
// spectrum as a double sum, the SNR map only with a local rms, and the PV diagram's bilinear
// samples and blanks. The CLI tests compare whole files with SoFiA-2's to the bit.

#include <fitsio.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <numbers>
#include <sstream>
#include <string>
#include <vector>

#include "catalogue.hpp"
#include "core/error.hpp"
#include "cube_header.hpp"
#include "cubelets.hpp"
#include "pv_diagram.hpp"

namespace astrosweep::scfind {
namespace {

constexpr CubeShape shape{12, 10, 8};

std::size_t at(std::size_t x, std::size_t y, std::size_t z) { return (z * shape.ny + y) * shape.nx + x; }

std::vector<std::string> cards() {
  return {"BUNIT   = 'Jy/beam '", "CTYPE1  = 'RA---SIN'", "CRVAL1  = 180.",  "CDELT1  = -0.002", "CRPIX1  = 6.",
          "CTYPE2  = 'DEC--SIN'", "CRVAL2  = -30.",       "CDELT2  = 0.002", "CRPIX2  = 5.",     "CTYPE3  = 'FREQ'",
          "CRVAL3  = 1.4E9",      "CDELT3  = -2.0E4",     "CRPIX3  = 1.",    "BMAJ    = 0.006",  "BMIN    = 0.004"};
}

struct Fixture {
  std::vector<float> data;
  std::vector<std::int32_t> labels;
  Catalogue catalogue;
};

CatalogueColumn whole(const std::string& name, std::vector<std::int64_t> v) {
  CatalogueColumn c;
  c.name = name;
  c.integer = true;
  c.whole = std::move(v);
  return c;
}

CatalogueColumn real(const std::string& name, std::vector<double> v) {
  CatalogueColumn c;
  c.name = name;
  c.real = std::move(v);
  return c;
}

// Source 1 fills x 1..3, y 2..4, z 3..5; source 2 (x 4..5, y 3, z 4) lies in source 1's box once
// widened by a margin of 2. Source 1's box reaches the cube's x = 0 edge with that margin.
Fixture fixture() {
  Fixture f;
  f.data.resize(shape.voxels());
  f.labels.assign(shape.voxels(), 0);
  for (std::size_t i = 0; i < f.data.size(); ++i) f.data[i] = 0.01F * static_cast<float>((i * 37) % 23) - 0.1F;
  for (std::size_t z = 3; z <= 5; ++z)
    for (std::size_t y = 2; y <= 4; ++y)
      for (std::size_t x = 1; x <= 3; ++x) f.labels[at(x, y, z)] = 1;
  f.labels[at(4, 3, 4)] = f.labels[at(5, 3, 4)] = 2;
  f.data[at(0, 0, 3)] = std::numeric_limits<float>::infinity();  // SoFiA-2 flags it: NaN in the cubelet
  f.catalogue.names = {"SoFiA J1", "SoFiA J2"};
  f.catalogue.columns = {whole("id", {1, 2}),      whole("x_min", {1, 4}),      whole("x_max", {3, 5}),
                         whole("y_min", {2, 3}),   whole("y_max", {4, 3}),      whole("z_min", {3, 4}),
                         whole("z_max", {5, 4}),   real("x", {2.2, 4.5}),       real("y", {3.1, 3.0}),
                         real("rms", {0.05, 0.0}), real("kin_pa", {30.0, -1.0})};
  return f;
}

std::vector<double> read_image(const std::string& path, std::vector<long>& dims, std::string* crpix1 = nullptr) {
  fitsfile* file = nullptr;
  int status = 0, naxis = 0;
  fits_open_image(&file, path.c_str(), READONLY, &status);
  fits_get_img_dim(file, &naxis, &status);
  dims.assign(static_cast<std::size_t>(naxis), 0);
  fits_get_img_size(file, naxis, dims.data(), &status);
  long n = 1;
  for (long d : dims) n *= d;
  std::vector<double> v(static_cast<std::size_t>(n));
  int anynul = 0;
  fits_read_img(file, TDOUBLE, 1, n, nullptr, v.data(), &anynul, &status);
  if (crpix1 != nullptr) {
    char value[FLEN_VALUE] = {};
    fits_read_key(file, TSTRING, "CRPIX1", value, nullptr, &status);
    *crpix1 = value;
  }
  fits_close_file(file, &status);
  EXPECT_EQ(status, 0) << path;
  return v;
}

class Cubelets : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = (std::filesystem::temp_directory_path() / ("test_cubelets_" + std::to_string(::getpid()))).string();
    std::filesystem::remove_all(dir_);
    prepare_cubelet_directory(dir_, false);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string dir_;
};

TEST_F(Cubelets, CutOutMaskSpectrumAndMaps) {
  const Fixture f = fixture();
  CubeletSettings settings;
  settings.margin = 2;
  std::vector<std::string> warnings;
  const auto files = write_cubelets(dir_, "t", shape, f.labels, f.data, CubeHeader(cards(), {12, 10, 8}), f.catalogue,
                                    settings, warnings);
  // Source 1: every file, the SNR map included (rms > 0); source 2 (rms 0): no SNR map.
  EXPECT_EQ(files.size(), 9U + 8U);
  EXPECT_TRUE(std::filesystem::exists(dir_ + "/t_1_snr.fits"));
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/t_2_snr.fits"));

  // Source 1 widened by 2: x 0..5 (clipped at 0), y 0..6, z 1..7 (clipped at the last channel).
  std::vector<long> dims;
  std::string crpix1;
  const auto cube = read_image(dir_ + "/t_1_cube.fits", dims, &crpix1);
  ASSERT_EQ(dims, (std::vector<long>{6, 7, 7}));
  EXPECT_DOUBLE_EQ(std::stod(crpix1), 6.0 - 0.0);
  std::size_t i = 0;
  for (std::size_t z = 1; z <= 7; ++z)
    for (std::size_t y = 0; y <= 6; ++y)
      for (std::size_t x = 0; x <= 5; ++x, ++i) {
        const float want = f.data[at(x, y, z)];
        if (std::isinf(want))
          EXPECT_TRUE(std::isnan(cube[i]));
        else
          EXPECT_EQ(cube[i], static_cast<double>(want)) << x << " " << y << " " << z;
      }
  const auto mask = read_image(dir_ + "/t_1_mask.fits", dims);
  i = 0;
  for (std::size_t z = 1; z <= 7; ++z)
    for (std::size_t y = 0; y <= 6; ++y)
      for (std::size_t x = 0; x <= 5; ++x, ++i)
        EXPECT_EQ(mask[i], f.labels[at(x, y, z)] == 1 ? 1.0 : 0.0) << x << " " << y << " " << z;  // not source 2

  // Source 2's CRPIX3: the cube's 1 less its first channel 2 (margin 2 below z = 4).
  const auto chan = read_image(dir_ + "/t_2_chan.fits", dims);
  EXPECT_EQ(dims, (std::vector<long>{6, 5}));  // x 2..7, y 1..5

  // The spectrum: per channel the double sum of source 1's voxels, the frequency of the channel.
  std::ifstream in(dir_ + "/t_1_spec.txt");
  std::string line;
  std::size_t rows = 0;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    std::size_t z = 0, pixels = 0;
    double frequency = 0, sum = 0;
    fields >> z >> frequency >> sum >> pixels;
    double want = 0;
    std::size_t count = 0;
    for (std::size_t y = 0; y < shape.ny; ++y)
      for (std::size_t x = 0; x < shape.nx; ++x)
        if (f.labels[at(x, y, z)] == 1) {
          want += static_cast<double>(f.data[at(x, y, z)]);
          ++count;
        }
    EXPECT_NEAR(sum, want, 1e-7 * std::fabs(want) + 1e-12) << z;  // printed to 8 digits
    EXPECT_EQ(pixels, count) << z;
    EXPECT_NEAR(frequency, 1.4e9 - 2e4 * static_cast<double>(z), 1.0) << z;
    ++rows;
  }
  EXPECT_EQ(rows, 7U);
}

TEST_F(Cubelets, ExistingDirectoryNeedsOverwrite) {
  EXPECT_THROW(prepare_cubelet_directory(dir_, false), OutputError);
  EXPECT_NO_THROW(prepare_cubelet_directory(dir_, true));
  const std::string blocked = dir_ + "/file";
  std::ofstream(blocked) << "x";
  EXPECT_THROW(prepare_cubelet_directory(blocked, true), OutputError);
}

TEST(PvDiagram, BilinearSamplesAndBlanks) {
  // A 5 x 4 x 2 cube with value 10 x + y + 100 z: bilinear interpolation is exact on it.
  const CubeShape small{5, 4, 2};
  std::vector<float> data(small.voxels());
  for (std::size_t z = 0; z < 2; ++z)
    for (std::size_t y = 0; y < 4; ++y)
      for (std::size_t x = 0; x < 5; ++x) data[(z * 4 + y) * 5 + x] = static_cast<float>(10 * x + y + 100 * z);
  // Angle 90°: the line runs along -x through (2.5, 1.5): x = 2.5 + dr, y = 1.5.
  const PvDiagram pv =
      make_pv_diagram(small, data, CubeHeader({}, {5, 4, 2}), 2.5, 1.5, std::numbers::pi / 2, "SoFiA J1");
  ASSERT_EQ(pv.width, 5U);  // steps = 5 / 2 = 2
  ASSERT_EQ(pv.height, 2U);
  for (std::size_t k = 0; k < 5; ++k)
    for (std::size_t z = 0; z < 2; ++z) {
      const double dr = static_cast<double>(k) - 2.0;
      const double x = 2.5 - dr * std::sin(std::numbers::pi / 2), y = 1.5 + dr * std::cos(std::numbers::pi / 2);
      const float got = pv.map.real[z * 5 + k];
      if (x < 0 || x > 4 || std::floor(x) == std::ceil(x))  // outside, or on a pixel column: SoFiA-2 blanks it
        EXPECT_TRUE(std::isnan(got)) << k;
      else
        EXPECT_NEAR(got, 10 * x + y + 100 * static_cast<double>(z), 1e-4) << k << " " << z;
    }
  // Through a pixel centre (integer x0 at angle 0): every position is blank, as SoFiA-2's.
  const PvDiagram on_column = make_pv_diagram(small, data, CubeHeader({}, {5, 4, 2}), 2.0, 1.5, 0.0, "");
  for (float v : on_column.map.real) EXPECT_TRUE(std::isnan(v));
}

}  // namespace
}  // namespace astrosweep::scfind
