// The smoothing filters of the scfind job: the boxcar plan, the lane-vectorised running sum
// against a scalar transcription of SoFiA-2's filter (bit for bit) and the double reference
// (within float rounding), and the OpenMP backend on whole cubes and on slabs chained by the
// spectral carry (bit for bit the same as one slab).

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include "boxcar_lanes.hpp"
#include "random_cube.hpp"
#include "scfind_backend_cpu.hpp"
#include "smooth_and_clip.hpp"
#include "smooth_and_clip_reference.hpp"

namespace astrosweep::scfind {
namespace {

TEST(BoxcarPlan, MatchesSofiaForTheDefaultKernels) {
  EXPECT_EQ(gaussian_boxcar_plan(0).passes, 0U);
  const BoxcarPlan p3 = gaussian_boxcar_plan(3);
  EXPECT_EQ(p3.passes, 3U);
  EXPECT_EQ(p3.radius, 1U);
  const BoxcarPlan p6 = gaussian_boxcar_plan(6);
  EXPECT_EQ(p6.passes, 3U);
  EXPECT_EQ(p6.radius, 2U);
  const BoxcarPlan p9 = gaussian_boxcar_plan(9);
  EXPECT_EQ(p9.passes, 4U);
  EXPECT_EQ(p9.radius, 3U);
  EXPECT_EQ(spectral_radius(0), 0U);
  EXPECT_EQ(spectral_radius(1), 0U);
  EXPECT_EQ(spectral_radius(2), 1U);
  EXPECT_EQ(spectral_radius(15), 7U);
}

TEST(KernelPairs, SpatialOuterSpectralInner) {
  ScfindParameters p;
  const auto pairs = kernel_pairs(p);
  ASSERT_EQ(pairs.size(), 12U);
  EXPECT_FALSE(pairs[0].smooths());
  EXPECT_EQ(pairs[1].width_z, 3U);
  EXPECT_EQ(pairs[4].fwhm_xy, 3.0);
  EXPECT_EQ(pairs[4].width_z, 0U);
  EXPECT_EQ(pairs[11].radius_z, 7U);
}

TEST(NoiseSample, CadenceFollowsSofia) {
  EXPECT_EQ(noise_cadence({64, 48, 40}), 1U);
  EXPECT_EQ(noise_cadence({160, 150, 90}), 2U);
  EXPECT_EQ(noise_cadence({2, 1000, 1000}), 1U);  // 2 is a multiple of NAXIS1 = 2
  EXPECT_EQ(noise_cadence({1500, 1500, 1400}), 3150U);
  EXPECT_EQ(noise_cadence({1, 1, 1}), 1U);
}

TEST(NoiseSample, RangesPartitionTheSample) {
  for (std::uint64_t n : {1ULL, 2ULL, 17ULL, 1000ULL}) {
    for (std::size_t c : {1U, 2U, 3U, 7U, 64U}) {
      for (std::uint64_t cut = 0; cut <= n; cut += std::max<std::uint64_t>(1, n / 7)) {
        std::uint64_t total = 0;
        for (auto [a, b] : {std::pair{std::uint64_t{0}, cut}, std::pair{cut, n}}) {
          const SampleRange r = samples_in(n, c, a, b);
          std::uint64_t brute = 0, highest = 0;
          for (std::uint64_t k = 1; k * c <= n; ++k) {
            const std::uint64_t i = n - k * c;
            if (i >= a && i < b && brute++ == 0) highest = i;
          }
          EXPECT_EQ(r.count, brute) << n << " " << c << " " << a << " " << b;
          if (brute > 0) {
            EXPECT_EQ(r.highest, highest);
          }
          total += r.count;
        }
        EXPECT_EQ(total, n / c);
      }
    }
  }
}

// SoFiA-2's filter_boxcar_1d_flt transcribed literally (a copy with NaN as 0 and zero padding,
// the sum from the top, then the recursion down): the bit-exact oracle for the running sum.
void sofia_boxcar(std::vector<float>& data, std::size_t r) {
  const std::size_t n = data.size();
  const std::size_t width = 2 * r + 1;
  const auto inv = static_cast<float>(1.0 / static_cast<double>(width));
  std::vector<float> copy(n + 2 * r, 0.0F);
  for (std::size_t i = n; i-- > 0;) copy[r + i] = data[i] == data[i] ? data[i] : 0.0F;
  data[n - 1] = 0.0F;
  for (std::size_t i = width; i-- > 0;) data[n - 1] += copy[n + i - 1];
  data[n - 1] *= inv;
  for (std::size_t i = n - 1; i-- > 0;) data[i] = data[i + 1] + (copy[i] - copy[width + i]) * inv;
}

TEST(BoxcarLanes, BitIdenticalToSofiaAndCloseToTheReference) {
  std::mt19937 rng(7);
  std::normal_distribution<float> noise(0.0F, 1.0F);
  constexpr std::size_t W = 4;
  for (std::size_t n : {1U, 2U, 3U, 5U, 31U, 32U, 33U, 100U}) {
    for (std::size_t r : {0U, 1U, 2U, 7U, 40U}) {
      std::vector<std::vector<float>> lines(W, std::vector<float>(n));
      for (auto& line : lines)
        for (auto& v : line) v = noise(rng);
      std::vector<float> in(lane_rows(n, r) * W, 0.0F), out(in.size(), 0.0F);
      for (std::size_t w = 0; w < W; ++w)
        for (std::size_t i = 0; i < n; ++i) in[(i + r) * W + w] = lines[w][i];
      boxcar_lanes<W>(in.data(), out.data(), n, r, boxcar_inverse_width(r));
      for (std::size_t w = 0; w < W; ++w) {
        std::vector<float> expected = lines[w];
        sofia_boxcar(expected, r);
        std::vector<double> line_d(lines[w].begin(), lines[w].end());
        const auto reference = reference::boxcar(line_d, r);
        for (std::size_t i = 0; i < n; ++i) {
          const float got = out[(i + r) * W + w];
          EXPECT_EQ(std::memcmp(&got, &expected[i], sizeof got), 0) << "n=" << n << " r=" << r << " i=" << i;
          EXPECT_NEAR(got, reference[i], 1e-5 * (1 + static_cast<double>(n))) << "n=" << n << " r=" << r;
        }
      }
    }
  }
}

// Passes a slab's carried rows to the slab below in the same process (slabs run top first).
class LocalCarry final : public SpectralCarry {
 public:
  LocalCarry(std::size_t ny, std::size_t nx, std::vector<float>* from_above, std::vector<float>* to_below)
      : ny_(ny), nx_(nx), from_above_(from_above), to_below_(to_below) {}
  [[nodiscard]] std::vector<std::pair<std::size_t, std::size_t>> row_blocks() const override {
    std::vector<std::pair<std::size_t, std::size_t>> blocks;
    for (std::size_t y = 0; y < ny_; y += 3) blocks.emplace_back(y, std::min(ny_, y + 3));
    return blocks;
  }
  void receive(std::size_t y0, std::size_t y1, std::span<float> values) override {
    ASSERT_EQ(values.size(), (y1 - y0) * nx_);
    std::copy_n(from_above_->begin() + static_cast<std::ptrdiff_t>(y0 * nx_), values.size(), values.begin());
  }
  void send(std::size_t y0, std::size_t y1, std::span<const float> values) override {
    ASSERT_EQ(values.size(), (y1 - y0) * nx_);
    to_below_->resize(ny_ * nx_);
    std::copy(values.begin(), values.end(), to_below_->begin() + static_cast<std::ptrdiff_t>(y0 * nx_));
  }

 private:
  std::size_t ny_, nx_;
  std::vector<float>* from_above_;
  std::vector<float>* to_below_;
};

struct Smoothed {
  std::vector<float> values;       // owned voxels of all slabs, in cube order
  std::vector<std::uint8_t> mask;  // after clip(threshold)
};

// Runs one kernel pair on the cube split into `slabs` slabs, top slab first.
Smoothed run_slabs(const std::vector<float>& cube, const CubeShape& shape, const KernelPair& pair, std::size_t slabs,
                   double threshold) {
  const std::size_t plane = shape.plane();
  std::vector<std::vector<float>> carries(slabs + 1);
  Smoothed result{std::vector<float>(shape.voxels()), std::vector<std::uint8_t>(shape.voxels())};
  for (std::size_t s = slabs; s-- > 0;) {
    const std::size_t z0 = shape.nz * s / slabs;
    const std::size_t z1 = shape.nz * (s + 1) / slabs;
    const Slab slab = make_slab(shape, z0, z1, pair.radius_z);
    auto backend = make_scfind_backend_cpu(2);
    backend->load(slab, std::span<const float>(cube).subspan(slab.held_begin * plane, slab.held_voxels()));
    LocalCarry carry(shape.ny, shape.nx, &carries[s + 1], &carries[s]);
    backend->smooth(pair, std::nullopt, carry);
    if (slab.owned_voxels() == 0) continue;
    const SampleRange all = samples_in(shape.voxels(), 1, z0 * plane, z1 * plane);
    const auto values = backend->samples(all, 1);
    for (std::size_t k = 0; k < values.size(); ++k) result.values[all.highest - k] = values[k];
    backend->clip(threshold);
    const auto mask = backend->mask_channels(z0, z1);
    std::copy(mask.begin(), mask.end(), result.mask.begin() + static_cast<std::ptrdiff_t>(z0 * plane));
  }
  return result;
}

using test::random_cube;

void expect_bit_identical(const std::vector<float>& a, const std::vector<float>& b, const char* what) {
  ASSERT_EQ(a.size(), b.size());
  std::size_t differing = 0;
  for (std::size_t i = 0; i < a.size(); ++i) differing += std::memcmp(&a[i], &b[i], sizeof(float)) != 0;
  EXPECT_EQ(differing, 0U) << what;
}

TEST(OpenMpBackend, SmoothsLikeTheReferenceAndSlabsAgreeBitForBit) {
  for (const CubeShape shape : {CubeShape{37, 29, 23}, CubeShape{33, 1, 9}, CubeShape{1, 40, 6}, CubeShape{5, 4, 1}}) {
    const auto cube = random_cube(shape, 11);
    for (const auto& [fwhm, width] :
         {std::pair{0.0, 3UL}, std::pair{3.0, 0UL}, std::pair{6.0, 7UL}, std::pair{9.0, 15UL}}) {
      KernelPair pair{fwhm, width, gaussian_boxcar_plan(fwhm), spectral_radius(width)};
      const Smoothed one = run_slabs(cube, shape, pair, 1, 0.4);
      // The double reference, blanks as 0 inside the filter and restored afterwards.
      std::vector<double> zeroed(cube.size());
      for (std::size_t i = 0; i < cube.size(); ++i)
        zeroed[i] = std::isnan(cube[i]) ? 0.0 : static_cast<double>(cube[i]);
      const auto reference = reference::smooth(zeroed, shape, pair.spatial, pair.radius_z);
      double worst = 0;
      for (std::size_t i = 0; i < cube.size(); ++i) {
        if (std::isnan(cube[i])) {
          EXPECT_TRUE(std::isnan(one.values[i]));
          continue;
        }
        worst = std::max(worst, std::fabs(static_cast<double>(one.values[i]) - reference[i]));
      }
      EXPECT_LT(worst, 1e-5) << "fwhm " << fwhm << " width " << width;
      for (std::size_t slabs : {2U, 3U, 5U}) {
        if (slabs > shape.nz) continue;
        const Smoothed split = run_slabs(cube, shape, pair, slabs, 0.4);
        expect_bit_identical(one.values, split.values, "slabs");
        EXPECT_EQ(one.mask, split.mask);
      }
    }
  }
}

// What a streamed slab keeps for its clip: values_above lists exactly the owned voxels a clip at
// any threshold >= the bound takes, in voxel order with their values (whatever the thread count),
// and nothing past its limit; set_mask_voxels puts exactly the listed voxels in the mask.
TEST(OpenMpBackend, ValuesAboveAreWhatAClipTakesAndMaskVoxelsSetTheList) {
  const CubeShape shape{33, 31, 12};
  const auto cube = random_cube(shape, 5);
  const Slab slab = make_slab(shape, 3, 9, 2);
  const std::size_t plane = shape.plane();
  for (const int threads : {1, 3}) {
    auto backend = make_scfind_backend_cpu(threads);
    backend->load(slab, std::span<const float>(cube).subspan(slab.held_begin * plane, slab.held_voxels()));
    backend->use_original();
    const std::uint64_t limit = slab.owned_voxels() / 4;
    for (const double bound : {0.0, 1.0, 2.5, 1e30}) {
      std::vector<std::uint64_t> offsets;
      const float* owned = cube.data() + slab.own_begin * plane;
      for (std::size_t i = 0; i < slab.owned_voxels(); ++i)
        if (std::fabs(static_cast<double>(owned[i])) > bound) offsets.push_back(i);
      const auto kept = backend->values_above(bound, limit);
      ASSERT_EQ(kept.has_value(), offsets.size() <= limit) << bound;
      if (!kept) continue;
      EXPECT_EQ(kept->offsets, offsets);
      for (std::size_t k = 0; k < offsets.size(); ++k) EXPECT_EQ(kept->values[k], owned[offsets[k]]);
      // The clip at the bound made from them is the backend's own clip.
      auto fresh = make_scfind_backend_cpu(threads);
      fresh->load(slab, std::span<const float>(cube).subspan(slab.held_begin * plane, slab.held_voxels()));
      fresh->use_original();
      fresh->clip(bound);
      std::vector<std::uint8_t> from_kept(slab.owned_voxels(), 0);
      for (const std::uint64_t o : kept->offsets) from_kept[o] = 1;
      EXPECT_EQ(fresh->mask_channels(slab.own_begin, slab.own_end), from_kept);
    }
    backend->load(slab, std::span<const float>(cube).subspan(slab.held_begin * plane, slab.held_voxels()));
    const std::vector<std::uint64_t> voxels{0, 5, plane, slab.held_voxels() - 1};
    backend->set_mask_voxels(slab.held_begin, voxels);
    std::vector<std::uint8_t> expected(slab.held_voxels(), 0);
    for (const std::uint64_t v : voxels) expected[v] = 1;
    EXPECT_EQ(backend->mask_channels(slab.held_begin, slab.held_end), expected);
    backend->set_mask_voxels(slab.held_begin + 1, std::vector<std::uint64_t>{});
    EXPECT_EQ(backend->mask_channels(slab.held_begin, slab.held_end), expected);
  }
}

}  // namespace
}  // namespace astrosweep::scfind
