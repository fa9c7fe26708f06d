// The sources' cut-outs (source_cutouts.hpp) gathered on rank 0 from channels spread over the
// ranks, against the boxes read straight out of the whole cube (a plain loop here, the
// reference): every value's bits and every label, for overlapping boxes, boxes grown by a margin
// and clipped at the cube's edges, batches of one plane to all of them, channels dealt so that
// some ranks own no voxel of a box, and an empty catalogue. Then what is measured from them
// against the whole-cube code: the moment maps and 2-D mask (whose per-pixel order across sources
// must stay), the catalogue and the global noise, to the bit. Run on 1, 2 and 3 ranks (ctest).
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <span>
#include <vector>

#include "catalogue.hpp"
#include "cube_header.hpp"
#include "global_noise_slabs.hpp"
#include "linker.hpp"
#include "moment_maps.hpp"
#include "source_cutouts.hpp"
#include "test_data.hpp"

namespace astrosweep::scfind {
namespace {

/// A cube with sources linked on it (the whole-cube linker): values with blanks and infinities,
/// the labels of the sources found.
struct LinkedCube {
  CubeShape shape;
  std::vector<float> data;
  std::vector<std::int32_t> labels;
  std::vector<Component> sources;

  LinkedCube(CubeShape s, double density, unsigned seed) : shape(s), data(s.voxels()) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    std::vector<std::uint8_t> mask(s.voxels(), 0);
    for (std::size_t i = 0; i < s.voxels(); ++i) {
      data[i] = static_cast<float>(u(rng) * 2.0 - 0.7);
      if (u(rng) < 0.01) data[i] = std::numeric_limits<float>::quiet_NaN();
      if (u(rng) < 0.002) data[i] = std::numeric_limits<float>::infinity();
      if (u(rng) < density) mask[i] = 1;
    }
    LinkerParameters p;
    p.radius_xy = 1;
    p.radius_z = 1;
    p.min_size_xy = p.min_size_z = 1;
    p.min_pixels = 1;
    p.keep_negative = true;
    LinkedSources linked = link_sources(s, mask, data, p);
    labels = std::move(linked.labels);
    sources = std::move(linked.sources);
  }
};

/// This rank's channels of `cube` when its channels are cut at `bounds` and slab j dealt to rank
/// j mod ranks.
std::vector<OwnedChannels> owned_channels(const LinkedCube& cube, const std::vector<std::size_t>& bounds) {
  const std::size_t plane = cube.shape.plane();
  std::vector<OwnedChannels> mine;
  for (std::size_t j = 0; j + 1 < bounds.size(); ++j) {
    if (static_cast<int>(j % static_cast<std::size_t>(test::world_size())) != test::world_rank()) continue;
    const std::size_t z0 = bounds[j], z1 = bounds[j + 1], n = (z1 - z0) * plane;
    mine.push_back(
        {z0, z1, std::span(cube.data).subspan(z0 * plane, n), std::span(cube.labels).subspan(z0 * plane, n)});
  }
  return mine;
}

/// The reference: source s's box grown by `margin` and clipped, read voxel by voxel.
void expect_cutout(const LinkedCube& cube, const SourceCutout& cut, std::size_t s, std::size_t margin) {
  const Component& c = cube.sources[s];
  const std::size_t x0 = c.x_min > margin ? c.x_min - margin : 0, y0 = c.y_min > margin ? c.y_min - margin : 0,
                    z0 = c.z_min > margin ? c.z_min - margin : 0;
  const std::size_t x1 = std::min(c.x_max + margin, cube.shape.nx - 1),
                    y1 = std::min(c.y_max + margin, cube.shape.ny - 1),
                    z1 = std::min(c.z_max + margin, cube.shape.nz - 1);
  ASSERT_EQ(cut.id, static_cast<std::int32_t>(s + 1));
  ASSERT_EQ(cut.box.x0, x0);
  ASSERT_EQ(cut.box.x1, x1);
  ASSERT_EQ(cut.box.y0, y0);
  ASSERT_EQ(cut.box.y1, y1);
  ASSERT_EQ(cut.box.z0, z0);
  ASSERT_EQ(cut.box.z1, z1);
  ASSERT_EQ(cut.data.size(), (x1 - x0 + 1) * (y1 - y0 + 1) * (z1 - z0 + 1));
  std::size_t wrong = 0, i = 0;
  for (std::size_t z = z0; z <= z1; ++z)
    for (std::size_t y = y0; y <= y1; ++y)
      for (std::size_t x = x0; x <= x1; ++x, ++i) {
        const std::size_t v = (z * cube.shape.ny + y) * cube.shape.nx + x;
        if (std::bit_cast<std::uint32_t>(cut.data[i]) != std::bit_cast<std::uint32_t>(cube.data[v])) ++wrong;
        if (cut.labels[i] != cube.labels[v]) ++wrong;
        if (cut.label(x, y, z) != cube.labels[v] ||
            std::bit_cast<std::uint32_t>(cut.value(x, y, z)) != std::bit_cast<std::uint32_t>(cube.data[v]))
          ++wrong;
      }
  EXPECT_EQ(wrong, 0U) << "source " << s + 1 << " margin " << margin;
  // Outside the box a label reads 0.
  if (x1 + 1 < cube.shape.nx) {
    EXPECT_EQ(cut.label(x1 + 1, y0, z0), 0);
  }
  if (z0 > 0) {
    EXPECT_EQ(cut.label(x0, y0, z0 - 1), 0);
  }
}

bool overlap(const Box& a, const Box& b) {
  return a.x0 <= b.x1 && b.x0 <= a.x1 && a.y0 <= b.y1 && b.y0 <= a.y1 && a.z0 <= b.z1 && b.z0 <= a.z1;
}

const std::vector<std::vector<std::size_t>> channel_cuts = {
    {0, 24},                          // one slab
    {0, 7, 8, 9, 17, 24},             // slabs of one channel: a box spans three or more of them
    {0, 3, 5, 6, 11, 13, 19, 22, 24}  // several slabs per rank, uneven
};

TEST(SourceCutouts, GatheredBoxesEqualTheWholeCubes) {
  const LinkedCube cube(CubeShape{13, 11, 24}, 0.03, 5);
  ASSERT_GT(cube.sources.size(), 10U);
  for (const auto& bounds : channel_cuts)
    for (const std::size_t margin : {std::size_t{0}, std::size_t{2}, std::size_t{40}})
      for (const std::size_t batch : {std::size_t{1}, std::size_t{150}, std::size_t{1} << 22}) {
        const std::vector<OwnedChannels> mine = owned_channels(cube, bounds);
        const SourceCutouts cutouts =
            gather_source_cutouts(cube.shape, cube.sources, margin, mine, MPI_COMM_WORLD, batch);
        if (test::world_rank() != 0) {
          EXPECT_TRUE(cutouts.sources.empty());
          continue;
        }
        ASSERT_EQ(cutouts.sources.size(), cube.sources.size());
        for (std::size_t s = 0; s < cube.sources.size(); ++s) expect_cutout(cube, cutouts.sources[s], s, margin);
        // The same through the one-process path.
        const SourceCutouts here = cut_sources(cube.shape, cube.sources, margin, cube.labels, cube.data);
        for (std::size_t s = 0; s < cube.sources.size(); ++s) expect_cutout(cube, here.sources[s], s, margin);
        std::uint64_t bytes = 0;
        for (const auto& c : cutouts.sources) bytes += 8 * c.box.voxels();
        EXPECT_EQ(cutouts.bytes(), bytes);
      }
  // The case is what it claims: boxes overlap, and a margin of 2 clips some at the cube's edges.
  const SourceCutouts here = cut_sources(cube.shape, cube.sources, 2, cube.labels, cube.data);
  std::size_t overlapping = 0, clipped = 0;
  for (std::size_t a = 0; a < here.sources.size(); ++a) {
    const Component& c = cube.sources[a];
    if (c.x_min < 2 || c.y_min < 2 || c.z_min < 2 || c.x_max + 2 >= cube.shape.nx || c.z_max + 2 >= cube.shape.nz)
      ++clipped;
    for (std::size_t b = a + 1; b < here.sources.size(); ++b)
      if (overlap(here.sources[a].box, here.sources[b].box)) ++overlapping;
  }
  EXPECT_GT(overlapping, 0U);
  EXPECT_GT(clipped, 0U);
}

TEST(SourceCutouts, EmptyCatalogue) {
  const LinkedCube cube(CubeShape{6, 5, 8}, 0.0, 1);
  ASSERT_TRUE(cube.sources.empty());
  const std::vector<OwnedChannels> mine = owned_channels(cube, {0, 3, 8});
  const SourceCutouts cutouts = gather_source_cutouts(cube.shape, cube.sources, 3, mine, MPI_COMM_WORLD);
  EXPECT_TRUE(cutouts.sources.empty());
  EXPECT_EQ(cutouts.bytes(), 0U);
  if (test::world_rank() == 0) {
    const CubeHeader header({}, {6, 5, 8});
    const MomentMaps maps = make_moment_maps(cutouts, header, false);
    EXPECT_TRUE(std::all_of(maps.mom0.real.begin(), maps.mom0.real.end(), [](float v) { return v == 0.0F; }));
    const ImageMap mask = make_mask_2d(cutouts, header);
    EXPECT_TRUE(std::all_of(mask.integer.begin(), mask.integer.end(), [](std::int32_t v) { return v == 0; }));
  }
}

std::vector<std::string> freq_cards() {
  return {"BUNIT   = 'JY/BEAM '",           "CTYPE1  = 'RA---SIN'",           "CRVAL1  =                 180.",
          "CDELT1  = -0.00166666666666667", "CRPIX1  =                   3.", "CTYPE2  = 'DEC--SIN'",
          "CRVAL2  =                 -30.", "CDELT2  =  0.00166666666666667", "CRPIX2  =                   2.",
          "CTYPE3  = 'FREQ    '",           "CRVAL3  =          1400000000.", "CDELT3  =               -20000.",
          "CRPIX3  =                   1.", "BMAJ    =  0.00833333333333333", "BMIN    =  0.00833333333333333"};
}

template <class T>
std::size_t differing_bits(const std::vector<T>& a, const std::vector<T>& b) {
  if (a.size() != b.size()) return std::max(a.size(), b.size()) + 1;
  std::size_t n = 0;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (std::memcmp(&a[i], &b[i], sizeof(T)) != 0) ++n;
  return n;
}

// Moment maps and 2-D mask from gathered cut-outs against the whole-cube code (a pixel's sum over
// channels in SoFiA-2's order, several sources' boxes over the same pixels), and the catalogue.
TEST(SourceCutouts, MeasurementsEqualTheWholeCubes) {
  const LinkedCube cube(CubeShape{13, 11, 24}, 0.03, 5);
  const CubeHeader header(freq_cards(), {13, 11, 24});
  std::vector<std::int32_t> labels = cube.labels;
  std::vector<float> data = cube.data;
  for (const auto& bounds : channel_cuts) {
    const std::vector<OwnedChannels> mine = owned_channels(cube, bounds);
    const SourceCutouts cutouts = gather_source_cutouts(cube.shape, cube.sources, 0, mine, MPI_COMM_WORLD, 97);
    if (test::world_rank() != 0) continue;
    for (const bool wcs : {false, true}) {
      const MomentMaps whole = make_moment_maps(cube.shape, labels, data, header, wcs);
      const MomentMaps cut = make_moment_maps(cutouts, header, wcs);
      EXPECT_EQ(differing_bits(cut.mom0.real, whole.mom0.real), 0U);
      EXPECT_EQ(differing_bits(cut.mom1.real, whole.mom1.real), 0U);
      EXPECT_EQ(differing_bits(cut.mom2.real, whole.mom2.real), 0U);
      EXPECT_EQ(differing_bits(cut.chan.integer, whole.chan.integer), 0U);
    }
    EXPECT_EQ(differing_bits(make_mask_2d(cutouts, header).integer, make_mask_2d(cube.shape, labels, header).integer),
              0U);
    LinkedSources linked;
    linked.labels = labels;
    linked.sources = cube.sources;
    LinkerParameters p;
    p.radius_xy = p.radius_z = 1;
    const Catalogue a = make_catalogue(cutouts, cube.sources, {}, p, 0.5, header, CatalogueParameters{});
    const Catalogue b = make_catalogue(cube.shape, labels, data, linked, p, 0.5, header, CatalogueParameters{});
    ASSERT_EQ(a.names, b.names);
    ASSERT_EQ(a.columns.size(), b.columns.size());
    for (std::size_t k = 0; k < a.columns.size(); ++k) {
      EXPECT_EQ(differing_bits(a.columns[k].real, b.columns[k].real), 0U) << a.columns[k].name;
      EXPECT_EQ(a.columns[k].whole, b.columns[k].whole) << a.columns[k].name;
    }
  }
}

// The global noise from each rank's channels against global_noise on the whole cube: a cube big
// enough for a sample cadence above 1 (SoFiA-2's 999983 samples), and a small one (cadence 1,
// global index 0 left out).
TEST(GlobalNoiseInSlabs, EqualsTheWholeCubes) {
  for (const CubeShape shape : {CubeShape{13, 11, 24}, CubeShape{61, 53, 700}}) {
    std::vector<float> data(shape.voxels());
    std::mt19937 rng(3);
    std::normal_distribution<float> noise(0.0F, 1.0F);
    for (float& v : data) v = noise(rng);
    data[shape.voxels() - 1 - noise_cadence(shape)] = -std::numeric_limits<float>::infinity();  // a sample: blank
    const double whole = global_noise(shape, data);
    ASSERT_TRUE(std::isfinite(whole));
    const std::size_t nz = shape.nz, plane = shape.plane();
    for (const std::vector<std::size_t>& bounds :
         {std::vector<std::size_t>{0, nz}, std::vector<std::size_t>{0, 1, nz / 3, nz / 3 + 1, nz - 2, nz}}) {
      std::vector<OwnedChannels> mine;
      for (std::size_t j = 0; j + 1 < bounds.size(); ++j)
        if (static_cast<int>(j % static_cast<std::size_t>(test::world_size())) == test::world_rank())
          mine.push_back({bounds[j],
                          bounds[j + 1],
                          std::span(data).subspan(bounds[j] * plane, (bounds[j + 1] - bounds[j]) * plane),
                          {}});
      const double slabs = global_noise_in_slabs(shape, mine, MPI_COMM_WORLD);
      EXPECT_EQ(std::bit_cast<std::uint64_t>(slabs), std::bit_cast<std::uint64_t>(whole))
          << slabs << " vs " << whole << " on " << shape.nz << " channels";
    }
  }
}

}  // namespace
}  // namespace astrosweep::scfind
