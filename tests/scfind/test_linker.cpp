// The linker (SoFiA-2 2.5.1's DataCube_run_linker) on tiny hand-made masks: one voxel; voxels
// linked exactly at the merge radius and not beyond; SoFiA-2's box for a radius of 0; the size,
// pixel and fill limits; negative sources kept or dropped; positivity; blanks never linked; the
// numbering order (from the highest voxel index down, as SoFiA-2's backward scan meets them).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <map>
#include <vector>

#include "core/error.hpp"
#include "linker.hpp"

namespace astrosweep::scfind {
namespace {

struct Cube {
  CubeShape shape;
  std::vector<std::uint8_t> mask;
  std::vector<float> data;
  Cube(std::size_t nx, std::size_t ny, std::size_t nz)
      : shape{nx, ny, nz}, mask(nx * ny * nz, 0), data(nx * ny * nz, 1.0F) {}
  std::size_t at(std::size_t x, std::size_t y, std::size_t z) const { return (z * shape.ny + y) * shape.nx + x; }
  void set(std::size_t x, std::size_t y, std::size_t z, float value = 1.0F) {
    mask[at(x, y, z)] = 1;
    data[at(x, y, z)] = value;
  }
  LinkedSources link(const LinkerParameters& p) const { return link_sources(shape, mask, data, p); }
};

// No size limits: every component is a source.
LinkerParameters no_limits() {
  LinkerParameters p;
  p.min_size_xy = 0;
  p.min_size_z = 0;
  return p;
}

TEST(Linker, EmptyMaskHasNoSources) {
  const Cube c(4, 3, 2);
  const auto out = c.link(no_limits());
  EXPECT_TRUE(out.sources.empty());
  EXPECT_EQ(out.labels, std::vector<std::int32_t>(24, 0));
}

TEST(Linker, OneVoxel) {
  Cube c(5, 5, 5);
  c.set(2, 3, 4, 2.5F);
  const auto out = c.link(no_limits());
  ASSERT_EQ(out.sources.size(), 1u);
  EXPECT_EQ(out.labels[c.at(2, 3, 4)], 1);
  EXPECT_EQ(out.sources[0].voxels, 1u);
  EXPECT_EQ(out.sources[0].sum.value(), 2.5);
  EXPECT_EQ(out.sources[0].flags, flag_spectral_edge);  // z = 4 is the last channel
  // SoFiA-2's defaults (minimum 5 x 5 x 5) drop it.
  EXPECT_TRUE(c.link(LinkerParameters{}).sources.empty());
}

TEST(Linker, LinkedAtTheMergeRadiusNotBeyond) {
  LinkerParameters p = no_limits();
  p.radius_xy = 2;
  p.radius_z = 1;
  Cube c(12, 3, 3);
  c.set(0, 1, 1);
  c.set(2, 1, 1);  // dx = 2 = radiusXY: linked
  c.set(5, 1, 1);  // dx = 3: a source of its own
  auto out = c.link(p);
  ASSERT_EQ(out.sources.size(), 2u);
  EXPECT_EQ(out.labels[c.at(0, 1, 1)], out.labels[c.at(2, 1, 1)]);
  EXPECT_NE(out.labels[c.at(0, 1, 1)], out.labels[c.at(5, 1, 1)]);
  // The ellipsoid: (dx, dz) = (2, 1) lies outside 4/4 + 1/1 > 1 ...
  Cube d(6, 1, 3);
  d.set(0, 0, 0);
  d.set(2, 0, 1);
  EXPECT_EQ(d.link(p).sources.size(), 2u);
  // ... (1, 1) too: 1/4 + 1/1 > 1; (1, 0) and (0, 1) are inside.
  Cube e(6, 1, 3);
  e.set(0, 0, 0);
  e.set(1, 0, 1);
  EXPECT_EQ(e.link(p).sources.size(), 2u);
  e.set(1, 0, 0);
  EXPECT_EQ(e.link(p).sources.size(), 1u);
}

TEST(Linker, RadiusZeroIsSofiasBox) {
  // radiusZ = 0 zeroes every product of SoFiA-2's test: the whole xy box links, but no channel.
  LinkerParameters p = no_limits();
  p.radius_xy = 1;
  p.radius_z = 0;
  Cube c(3, 3, 2);
  c.set(0, 0, 0);
  c.set(1, 1, 0);  // a diagonal: inside the box, outside a circle of radius 1 it would not be
  c.set(1, 1, 1);  // the next channel: not linked
  const auto out = c.link(p);
  ASSERT_EQ(out.sources.size(), 2u);
  EXPECT_EQ(out.labels[c.at(0, 0, 0)], out.labels[c.at(1, 1, 0)]);
  EXPECT_NE(out.labels[c.at(1, 1, 0)], out.labels[c.at(1, 1, 1)]);
}

TEST(Linker, NumberedFromTheHighestIndexDown) {
  Cube c(10, 1, 1);
  c.set(1, 0, 0);
  c.set(4, 0, 0);
  c.set(5, 0, 0);
  c.set(8, 0, 0);
  const auto out = c.link(no_limits());
  ASSERT_EQ(out.sources.size(), 3u);
  EXPECT_EQ(out.labels[c.at(8, 0, 0)], 1);
  EXPECT_EQ(out.labels[c.at(5, 0, 0)], 2);
  EXPECT_EQ(out.labels[c.at(4, 0, 0)], 2);
  EXPECT_EQ(out.labels[c.at(1, 0, 0)], 3);
  // A dropped source takes no number: the ones below move up.
  LinkerParameters p = no_limits();
  p.min_pixels = 2;
  const auto kept = c.link(p);
  ASSERT_EQ(kept.sources.size(), 1u);
  EXPECT_EQ(kept.labels[c.at(5, 0, 0)], 1);
  EXPECT_EQ(kept.labels[c.at(8, 0, 0)], 0);
  EXPECT_EQ(kept.labels[c.at(1, 0, 0)], 0);
}

TEST(Linker, SizePixelAndFillLimits) {
  // A 3 x 2 x 1 bar (6 voxels, fill 1) and an L of 3 voxels in a 2 x 2 x 1 box (fill 0.75).
  Cube c(10, 4, 2);
  for (std::size_t x = 0; x < 3; ++x)
    for (std::size_t y = 0; y < 2; ++y) c.set(x, y, 0);
  c.set(6, 0, 1);
  c.set(7, 0, 1);
  c.set(6, 1, 1);
  auto count = [&](auto change) {
    LinkerParameters p = no_limits();
    change(p);
    return c.link(p).sources.size();
  };
  EXPECT_EQ(count([](LinkerParameters&) {}), 2u);
  EXPECT_EQ(count([](LinkerParameters& p) { p.min_size_xy = 3; }), 0u);  // the bar is 2 high
  EXPECT_EQ(count([](LinkerParameters& p) { p.min_size_xy = 2; }), 2u);
  EXPECT_EQ(count([](LinkerParameters& p) { p.max_size_xy = 2; }), 1u);
  EXPECT_EQ(count([](LinkerParameters& p) { p.min_size_z = 2; }), 0u);
  EXPECT_EQ(count([](LinkerParameters& p) { p.max_size_z = 1; }), 2u);
  EXPECT_EQ(count([](LinkerParameters& p) { p.min_pixels = 4; }), 1u);
  EXPECT_EQ(count([](LinkerParameters& p) { p.max_pixels = 4; }), 1u);
  EXPECT_EQ(count([](LinkerParameters& p) { p.min_fill = 0.8; }), 1u);
  EXPECT_EQ(count([](LinkerParameters& p) { p.min_fill = 0.75; }), 2u);  // at the limit: kept
  EXPECT_EQ(count([](LinkerParameters& p) { p.max_fill = 0.9; }), 1u);
  EXPECT_EQ(count([](LinkerParameters& p) { p.max_fill = 1.0; }), 2u);
}

TEST(Linker, NegativeSourcesDroppedOrKept) {
  Cube c(6, 1, 1);
  c.set(0, 0, 0, -3.0F);
  c.set(1, 0, 0, 1.0F);  // the source sums to -2
  c.set(4, 0, 0, 2.0F);
  c.set(5, 0, 0, -1.0F);  // sums to +1
  LinkerParameters p = no_limits();
  auto out = c.link(p);
  ASSERT_EQ(out.sources.size(), 1u);
  EXPECT_EQ(out.labels[c.at(4, 0, 0)], 1);
  EXPECT_EQ(out.labels[c.at(0, 0, 0)], 0);
  p.keep_negative = true;
  out = c.link(p);
  ASSERT_EQ(out.sources.size(), 2u);
  EXPECT_EQ(out.labels[c.at(0, 0, 0)], 2);
  EXPECT_EQ(out.sources[1].sum.value(), -2.0);
  // positivity: negative voxels are not linked (they leave the mask), which splits nothing here
  // but drops the negative voxels' flux.
  p.positivity = true;
  out = c.link(p);
  ASSERT_EQ(out.sources.size(), 2u);
  EXPECT_EQ(out.labels[c.at(0, 0, 0)], 0);
  EXPECT_EQ(out.labels[c.at(1, 0, 0)], 2);
  EXPECT_EQ(out.labels[c.at(5, 0, 0)], 0);
}

TEST(Linker, PositivitySplitsAtANegativeVoxel) {
  Cube c(5, 1, 1);
  c.set(0, 0, 0);
  c.set(1, 0, 0);
  c.set(2, 0, 0, -0.5F);
  c.set(3, 0, 0);
  LinkerParameters p = no_limits();
  EXPECT_EQ(c.link(p).sources.size(), 1u);
  p.positivity = true;
  EXPECT_EQ(c.link(p).sources.size(), 2u);
}

TEST(Linker, BlanksAreNotLinkedAndFlagTheirNeighbours) {
  Cube c(5, 1, 1);
  c.set(1, 0, 0);
  c.set(2, 0, 0, std::numeric_limits<float>::quiet_NaN());
  c.set(3, 0, 0);
  const auto out = c.link(no_limits());
  ASSERT_EQ(out.sources.size(), 2u);
  EXPECT_EQ(out.labels[c.at(2, 0, 0)], 0);
  EXPECT_TRUE(out.sources[0].flags & flag_blank_nearby);
  EXPECT_TRUE(out.sources[1].flags & flag_blank_nearby);
}

TEST(Linker, ComponentsMergeAsTheWholeWould) {
  // What the multi-rank join relies on: statistics of parts merge into those of the whole.
  Component a, b, whole;
  a.add(7, 1, 2, 0, 1.0F);
  a.add(9, 3, 2, 0, -4.0F);
  b.add(30, 0, 1, 1, 2.0F);
  for (auto [i, x, y, z, v] : {std::tuple{7, 1, 2, 0, 1.0F}, {9, 3, 2, 0, -4.0F}, {30, 0, 1, 1, 2.0F}})
    whole.add(static_cast<std::uint64_t>(i), static_cast<std::size_t>(x), static_cast<std::size_t>(y),
              static_cast<std::size_t>(z), v);
  a.merge(b);
  EXPECT_EQ(a.highest, whole.highest);
  EXPECT_EQ(a.voxels, 3u);
  EXPECT_EQ(a.sum, whole.sum);
  EXPECT_EQ(a.size_x(), 4u);
  EXPECT_EQ(a.size_y(), 2u);
  EXPECT_EQ(a.size_z(), 2u);
}

TEST(Linker, ParametersFromText) {
  const std::map<std::string, std::string> text{
      {"linker.radiusXY", "3"}, {"linker.minFill", "0.25"}, {"linker.positivity", "true"}};
  const LinkerParameters p = linker_parameters_from_text(text);
  EXPECT_EQ(p.radius_xy, 3u);
  EXPECT_EQ(p.radius_z, 1u);  // SoFiA-2's default
  EXPECT_EQ(p.min_fill, 0.25);
  EXPECT_TRUE(p.positivity);
  EXPECT_TRUE(p.enable);
  for (const auto& [key, bad] : std::vector<std::pair<std::string, std::string>>{{"linker.radiusXY", "-1"},
                                                                                 {"linker.radiusZ", "1.5"},
                                                                                 {"linker.minPixels", "many"},
                                                                                 {"linker.minFill", "-0.1"},
                                                                                 {"linker.keepNegative", "yes"},
                                                                                 {"linker.enable", "1"}}) {
    try {
      linker_parameters_from_text({{key, bad}});
      ADD_FAILURE() << key << " = " << bad << " accepted";
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find(key), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace astrosweep::scfind
