// SoFiA-2's catalogue pieces on hand-made inputs: header values read as SoFiA-2 reads them; the
// world coordinates of a cube with and without WCS keywords (wcslib); the local noise's median
// (SoFiA-2 skips the list's first value); the running moments merging across slabs; the
// parameter.* values; a whole catalogue of two small sources (one negative) whose columns are
// worked out by hand. The CLI tests compare whole catalogues with SoFiA-2's.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <map>
#include <random>
#include <vector>

#include "catalogue.hpp"
#include "catalogue_files.hpp"
#include "core/error.hpp"
#include "cube_header.hpp"
#include "linker.hpp"

namespace astrosweep::scfind {
namespace {

constexpr double nan = std::numeric_limits<double>::quiet_NaN();

std::vector<std::string> wcs_cards() {
  return {"BUNIT   = 'Jy/beam '",           "BMAJ    =  0.00833333333333333 / 30 arcsec",
          "BMIN    =  0.00833333333333333", "CTYPE1  = 'RA---SIN'",
          "CRVAL1  =                 180.", "CDELT1  = -0.00166666666666667",
          "CRPIX1  =                  33.", "CUNIT1  = 'deg     '",
          "CTYPE2  = 'DEC--SIN'",           "CRVAL2  =                 -30.",
          "CDELT2  =  0.00166666666666667", "CRPIX2  =                  25.",
          "CUNIT2  = 'deg     '",           "CTYPE3  = 'FREQ    '",
          "CRVAL3  =          1400000000.", "CDELT3  =     18518.5185185185 / Hz",
          "CRPIX3  =                   1.", "CUNIT3  = 'Hz      '",
          "EQUINOX =                2000.", "OBJECT  = 'it''s a cube'"};
}

TEST(CubeHeader, ReadsValuesAsSofia) {
  const CubeHeader h(wcs_cards(), {64, 48, 40});
  EXPECT_EQ(h.text("BUNIT"), "Jy/beam");
  EXPECT_EQ(h.text("OBJECT"), "it's a cube");
  EXPECT_DOUBLE_EQ(h.number("CDELT3"), 18518.5185185185);  // the comment after '/' is not read
  EXPECT_TRUE(std::isnan(h.number("RESTFRQ")));
  EXPECT_EQ(h.text("SPECSYS"), "");
  EXPECT_TRUE(h.starts_with("CTYPE1", "RA--"));
  EXPECT_FALSE(h.starts_with("CTYPE1", "GLON"));
}

TEST(WorldCoordinates, ReferencePixelGivesReferenceValue) {
  const auto wcs = WorldCoordinates::from(CubeHeader(wcs_cards(), {64, 48, 40}));
  ASSERT_TRUE(wcs.has_value());
  const auto w = wcs->to_world(32.0, 24.0, 0.0);  // CRPIX is 1-based
  ASSERT_TRUE(w.has_value());
  EXPECT_NEAR((*w)[0], 180.0, 1e-12);
  EXPECT_NEAR((*w)[1], -30.0, 1e-12);
  EXPECT_NEAR((*w)[2], 1.4e9, 1e-3);
  const auto w2 = wcs->to_world(32.0, 24.0, 2.0);
  EXPECT_NEAR((*w2)[2], 1.4e9 + 2 * 18518.5185185185, 1e-3);
}

TEST(WorldCoordinates, CubeWithoutWcsKeywordsIsWcslibsLinearDefault) {
  // What SoFiA-2 does with a FITS cube without WCS cards, and astrosweep with an HDF5 cube: world
  // coordinates are the 1-based pixel coordinates.
  const auto wcs = WorldCoordinates::from(CubeHeader({}, {8, 6, 4}));
  ASSERT_TRUE(wcs.has_value());
  const auto w = wcs->to_world(1.5, 2.0, 3.25);
  ASSERT_TRUE(w.has_value());
  EXPECT_DOUBLE_EQ((*w)[0], 2.5);
  EXPECT_DOUBLE_EQ((*w)[1], 3.0);
  EXPECT_DOUBLE_EQ((*w)[2], 4.25);
}

TEST(LocalNoise, MedianSkipsTheFirstValueAndBlanks) {
  EXPECT_DOUBLE_EQ(local_median_magnitude({100, 1, -3, nan, 2}), 2.0);  // |1|, |-3|, |2|
  EXPECT_DOUBLE_EQ(local_median_magnitude({100, 1, -4, 2, 3}), 2.5);    // even: the mean of the middle two
  EXPECT_TRUE(std::isnan(local_median_magnitude({5})));                 // SoFiA-2: the median of nothing
  EXPECT_TRUE(std::isnan(local_median_magnitude({5, nan})));
}

TEST(SourceMoments, SlabsMergeToTheWholeSource) {
  std::mt19937 rng(7);
  std::normal_distribution<double> value(0.3, 1.7);
  std::vector<double> v(1000);
  for (auto& x : v) x = value(rng);
  SourceMoments whole, a, b, c;
  for (std::size_t i = 0; i < v.size(); ++i) {
    whole.add(v[i]);
    (i < 123 ? a : i < 700 ? b : c).add(v[i]);
  }
  SourceMoments joined = c;  // in any order
  joined.merge(a);
  joined.merge(b);
  EXPECT_EQ(joined.n, whole.n);
  EXPECT_NEAR(joined.m1, whole.m1, 1e-13);
  EXPECT_NEAR(joined.m2 / whole.m2, 1.0, 1e-12);
  EXPECT_NEAR(joined.m3 / whole.m3, 1.0, 1e-10);
  EXPECT_NEAR(joined.m4 / whole.m4, 1.0, 1e-12);
  SourceMoments empty;
  empty.merge(whole);
  EXPECT_EQ(empty.m2, whole.m2);
}

TEST(CatalogueParameters, SofiaDefaultsAndBadValues) {
  const CatalogueParameters d = catalogue_parameters_from_text({});
  EXPECT_TRUE(d.enable);
  EXPECT_TRUE(d.wcs);
  EXPECT_FALSE(d.physical);
  EXPECT_EQ(d.prefix, "SoFiA");
  const CatalogueFiles f = catalogue_files_from_text({});
  EXPECT_TRUE(f.ascii);
  EXPECT_TRUE(f.xml);
  EXPECT_FALSE(f.sql);
  const auto p = catalogue_parameters_from_text({{"parameter.prefix", "WALLABY"}, {"parameter.wcs", "false"}});
  EXPECT_EQ(p.prefix, "WALLABY");
  EXPECT_FALSE(p.wcs);
  EXPECT_THROW(catalogue_parameters_from_text({{"parameter.physical", "1"}}), UsageError);
  EXPECT_THROW(catalogue_parameters_from_text({{"parameter.prefix", ""}}), UsageError);
  EXPECT_THROW(catalogue_parameters_from_text({{"parameter.prefix", "a\"b"}}), UsageError);
  EXPECT_THROW(catalogue_files_from_text({{"output.writeCatXML", "True"}}), UsageError);
}

// Two 2 x 2 x 3 sources in a 12 x 10 x 8 cube of noise-free zeros: a positive one of values
// 1..12 and a negative one (kept with keepNegative), far enough apart not to link.
struct TwoSources {
  CubeShape cube{12, 10, 8};
  std::vector<std::uint8_t> mask = std::vector<std::uint8_t>(cube.voxels(), 0);
  std::vector<float> data = std::vector<float>(cube.voxels(), 0.0F);
  LinkerParameters linker;
  LinkedSources linked;
  TwoSources() {
    linker.min_size_xy = linker.min_size_z = 0;
    linker.keep_negative = true;
    float v = 1;
    for (std::size_t z = 2; z < 5; ++z)
      for (std::size_t y = 3; y < 5; ++y)
        for (std::size_t x = 3; x < 5; ++x) {
          mask[(z * cube.ny + y) * cube.nx + x] = 1;
          data[(z * cube.ny + y) * cube.nx + x] = v;
          mask[(z * cube.ny + y) * cube.nx + x + 5] = 1;
          data[(z * cube.ny + y) * cube.nx + x + 5] = -v;
          v += 1;
        }
    // A little noise around them, for the local rms.
    for (std::size_t i = 0; i < cube.voxels(); ++i)
      if (mask[i] == 0) data[i] = (i % 7 == 0 ? 0.5F : 0.0F) * (i % 2 == 0 ? 1.0F : -1.0F);
    linked = link_sources(cube, mask, data, linker);
  }
};

TEST(Catalogue, HandMadeSourcesWithoutHeader) {
  const TwoSources s;
  ASSERT_EQ(s.linked.sources.size(), 2u);
  CatalogueParameters p;
  const Catalogue cat =
      make_catalogue(s.cube, s.linked.labels, s.data, s.linked, s.linker, 0.5, CubeHeader({}, {12, 10, 8}), p);
  ASSERT_EQ(cat.size(), 2u);
  auto real = [&](const char* name, std::size_t row) {
    const CatalogueColumn* c = cat.find(name);
    EXPECT_NE(c, nullptr) << name;
    return c == nullptr ? nan : c->integer ? static_cast<double>(c->whole[row]) : c->real[row];
  };
  // SoFiA-2's numbering: the source holding the highest index first (the negative one, at x + 5).
  EXPECT_EQ(real("id", 0), 1.0);
  EXPECT_EQ(real("x_min", 0), 8.0);
  EXPECT_EQ(real("x_min", 1), 3.0);
  for (std::size_t row : {0u, 1u}) {
    EXPECT_EQ(real("n_pix", row), 12.0);
    EXPECT_EQ(real("fill", row), 1.0);
    EXPECT_DOUBLE_EQ(real("w20", row), 2.0);  // three channels of rising flux: 0.2 of the peak below the first
    EXPECT_EQ(real("rel", row), 0.0);
  }
  // The positive source: values 1..12; centroid weighted by them.
  double sx = 0, sy = 0, sz = 0, sum = 0;
  double v = 1;
  for (std::size_t z = 2; z < 5; ++z)
    for (std::size_t y = 3; y < 5; ++y)
      for (std::size_t x = 3; x < 5; ++x, v += 1) {
        sx += v * static_cast<double>(x);
        sy += v * static_cast<double>(y);
        sz += v * static_cast<double>(z);
        sum += v;
      }
  EXPECT_DOUBLE_EQ(real("f_sum", 1), 78.0);
  EXPECT_DOUBLE_EQ(real("f_min", 1), 1.0);
  EXPECT_DOUBLE_EQ(real("f_max", 1), 12.0);
  EXPECT_DOUBLE_EQ(real("x", 1), sx / sum);
  EXPECT_DOUBLE_EQ(real("y", 1), sy / sum);
  EXPECT_DOUBLE_EQ(real("z", 1), sz / sum);
  EXPECT_DOUBLE_EQ(real("mean", 1), 6.5 / 0.5);  // in units of the global rms
  EXPECT_EQ(real("z_peak", 1), 4.0);             // the brightest channel
  // The negative source: fluxes stay negative, its positions come from the inverted values.
  EXPECT_DOUBLE_EQ(real("f_sum", 0), -78.0);
  EXPECT_DOUBLE_EQ(real("f_min", 0), -12.0);
  EXPECT_DOUBLE_EQ(real("f_max", 0), -1.0);
  EXPECT_DOUBLE_EQ(real("x", 0), sx / sum + 5.0);
  EXPECT_DOUBLE_EQ(real("mean", 0), -6.5 / 0.5);
  // No header: units ???, wcslib's linear default as SoFiA-2 has it (lon = x + 1), generic names.
  EXPECT_EQ(cat.find("f_sum")->unit, "???");
  EXPECT_DOUBLE_EQ(real("lon", 1), sx / sum + 1.0);
  EXPECT_DOUBLE_EQ(real("spec_peak", 1), 5.0);
  char name[64];
  std::snprintf(name, sizeof name, "SoFiA %08.4f+%07.4f", sx / sum + 1.0, sy / sum + 1.0);
  EXPECT_EQ(cat.names[1], name);
  // Without WCS: prefix-id names, no coordinate columns.
  p.wcs = false;
  p.prefix = "Test";
  const Catalogue plain =
      make_catalogue(s.cube, s.linked.labels, s.data, s.linked, s.linker, 0.5, CubeHeader({}, {12, 10, 8}), p);
  EXPECT_EQ(plain.names[0], "Test-0001");
  EXPECT_EQ(plain.find("lon"), nullptr);
  EXPECT_EQ(plain.columns.size() + 6, cat.columns.size());
  // The ASCII table: a row per source, SoFiA-2's widths.
  const std::string text = catalogue_ascii(plain, "now");
  EXPECT_NE(text.find("\n                  \"Test-0001\"             1"), std::string::npos) << text;
}

TEST(Catalogue, WithoutParameterisationIsTheLinkersCatalogue) {
  const TwoSources s;
  CatalogueParameters p;
  p.enable = false;
  const Catalogue cat =
      make_catalogue(s.cube, s.linked.labels, s.data, s.linked, s.linker, 2.0, CubeHeader({}, {12, 10, 8}), p);
  ASSERT_EQ(cat.size(), 2u);
  EXPECT_EQ(cat.names[0], "1");
  EXPECT_EQ(cat.columns.back().name, "kurt");
  EXPECT_EQ(cat.find("x")->real[1], 0.0);           // SoFiA-2's placeholder
  EXPECT_EQ(cat.find("f_sum")->real[1], 78.0 / 2);  // in units of the global rms
}

}  // namespace
}  // namespace astrosweep::scfind
