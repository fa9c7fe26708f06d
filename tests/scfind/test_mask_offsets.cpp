// The set voxels of a mask as ascending offsets (mask_offsets.hpp), what the product's sparse mask
// write takes: the OpenMP scan against a plain loop on sizes around its 8-byte steps and the
// warp/block sizes the CUDA twin uses, and over many parts; the OpenMP backend's mask_offsets
// against the set voxels of its dense mask (empty, one voxel, the first and last owned voxels, a
// whole plane, random); the seam's defaults (mask_offsets from mask_channels, copy_original_channels
// from original_channels) through a backend that overrides neither; and the copied original equal
// to what load() took.

#include <gtest/gtest.h>

#include <cstring>
#include <limits>
#include <memory>
#include <random>
#include <vector>

#include "mask_offsets.hpp"
#include "random_cube.hpp"
#include "scfind_backend.hpp"
#include "scfind_backend_cpu.hpp"
#include "smooth_and_clip.hpp"

namespace astrosweep::scfind {
namespace {

std::vector<std::uint64_t> plain_offsets(std::span<const std::uint8_t> mask) {
  std::vector<std::uint64_t> offsets;
  for (std::size_t i = 0; i < mask.size(); ++i)
    if (mask[i] != 0) offsets.push_back(i);
  return offsets;
}

TEST(MaskOffsets, SizesAroundStepsAndBlocks) {
  for (const std::size_t n : {0UL, 1UL, 7UL, 8UL, 9UL, 31UL, 32UL, 33UL, 255UL, 256UL, 257UL}) {
    SCOPED_TRACE(n);
    std::vector<std::uint8_t> mask(n, 0);
    EXPECT_TRUE(mask_offsets(mask).empty());
    for (std::size_t i = 0; i < n; ++i) {  // each voxel alone: the first, the last, every other
      mask.assign(n, 0);
      mask[i] = 1;
      EXPECT_EQ(mask_offsets(mask), std::vector<std::uint64_t>{i});
    }
    mask.assign(n, 1);
    EXPECT_EQ(mask_offsets(mask), plain_offsets(mask));
    for (std::size_t i = 0; i < n; ++i) mask[i] = i % 3 == 0 ? 1 : 0;
    EXPECT_EQ(mask_offsets(mask), plain_offsets(mask));
  }
}

// Several MiB: the scan is split into parts counted and written on the threads; ones on both sides
// of every part boundary, a run of ones across one, and a sparse random scatter.
TEST(MaskOffsets, ManyPartsComeOutInOrder) {
  const std::size_t n = (std::size_t{9} << 20) + 13;
  std::vector<std::uint8_t> mask(n, 0);
  std::mt19937_64 rng(5);
  for (int k = 0; k < 5000; ++k) mask[rng() % n] = 1;
  for (std::size_t b = 1; b < 40; ++b) {
    const std::size_t at = n * b / 40;
    mask[at - 1] = mask[at] = 1;
  }
  std::fill(mask.begin() + (n / 2 - 300), mask.begin() + (n / 2 + 300), 1);
  mask.front() = mask.back() = 1;
  EXPECT_EQ(mask_offsets(mask), plain_offsets(mask));
  // With a limit: the list when it holds at most that many, nullopt past it.
  const std::uint64_t ones = plain_offsets(mask).size();
  EXPECT_EQ(mask_offsets(mask, ones), plain_offsets(mask));
  EXPECT_FALSE(mask_offsets(mask, ones - 1).has_value());
}

using test::random_cube;

/// Masks of a slab's held channels: empty, one voxel, the first and the last owned voxel, a whole
/// owned plane, random ones with the halos set too.
std::vector<std::vector<std::uint8_t>> mask_cases(const Slab& s) {
  const std::size_t plane = s.cube.plane(), held = s.held_voxels(), first = s.owned_offset();
  const std::size_t last = first + s.owned_voxels() - 1;
  std::vector<std::vector<std::uint8_t>> cases(6, std::vector<std::uint8_t>(held, 0));
  cases[1][first + plane + 5] = 1;
  cases[2][first] = 1;
  cases[3][last] = 1;
  std::fill_n(cases[4].begin() + static_cast<std::ptrdiff_t>(first + plane), plane, 1);
  std::mt19937 rng(3);
  for (auto& m : cases[5]) m = rng() % 7 == 0 ? 1 : 0;
  return cases;
}

TEST(OpenMpBackend, MaskOffsetsAreTheDenseMasksSetVoxels) {
  for (const CubeShape shape : {CubeShape{33, 32, 11}, CubeShape{16, 16, 9}, CubeShape{257, 3, 6}}) {
    const std::size_t plane = shape.plane();
    const auto cube = random_cube(shape, 7);
    const Slab s = make_slab(shape, 2, shape.nz - 2, 1);
    auto backend = make_scfind_backend_cpu(2);
    backend->load(s, std::span<const float>(cube).subspan(s.held_begin * plane, s.held_voxels()));
    for (const auto& mask : mask_cases(s)) {
      backend->set_mask_channels(s.held_begin, mask);
      const auto owned = backend->mask_channels(s.own_begin, s.own_end);
      EXPECT_EQ(backend->mask_offsets(s.own_begin, s.own_end), plain_offsets(owned));
      EXPECT_EQ(backend->mask_offsets(s.held_begin, s.held_end), plain_offsets(mask));
      EXPECT_TRUE(backend->mask_offsets(s.own_begin, s.own_begin).empty());
    }
  }
}

/// A backend that overrides neither mask_offsets nor copy_original_channels: the seam's defaults
/// over the OpenMP backend's mask_channels and original_channels.
class SeamDefaults final : public ScfindBackend {
 public:
  SeamDefaults() : inner_(make_scfind_backend_cpu(2)) {}
  [[nodiscard]] std::string describe() const override { return inner_->describe(); }
  void load(const Slab& slab, std::span<const float> original) override { inner_->load(slab, original); }
  void smooth(const KernelPair& pair, std::optional<float> replacement, SpectralCarry& carry) override {
    inner_->smooth(pair, replacement, carry);
  }
  void use_original() override { inner_->use_original(); }
  [[nodiscard]] std::vector<float> samples(const SampleRange& range, std::size_t cadence) override {
    return inner_->samples(range, cadence);
  }
  [[nodiscard]] std::pair<float, float> finite_min_max() override { return inner_->finite_min_max(); }
  void clip(double threshold) override { inner_->clip(threshold); }
  [[nodiscard]] std::optional<ValuesAbove> values_above(double bound, std::uint64_t limit) override {
    return inner_->values_above(bound, limit);
  }
  void set_mask_voxels(std::size_t z0, std::span<const std::uint64_t> offsets) override {
    inner_->set_mask_voxels(z0, offsets);
  }
  [[nodiscard]] std::vector<std::uint8_t> mask_channels(std::size_t z0, std::size_t z1) override {
    return inner_->mask_channels(z0, z1);
  }
  void set_mask_channels(std::size_t z0, std::span<const std::uint8_t> values) override {
    inner_->set_mask_channels(z0, values);
  }
  [[nodiscard]] std::optional<std::span<const float>> original_channels(std::size_t z0, std::size_t z1) const override {
    return inner_->original_channels(z0, z1);
  }

 private:
  std::unique_ptr<ScfindBackend> inner_;
};

TEST(ScfindBackendSeam, DefaultsFollowMaskChannelsAndOriginalChannels) {
  const CubeShape shape{19, 13, 8};
  const std::size_t plane = shape.plane();
  const auto cube = random_cube(shape, 9);
  const Slab s = make_slab(shape, 3, 6, 2);
  SeamDefaults backend;
  backend.load(s, std::span<const float>(cube).subspan(s.held_begin * plane, s.held_voxels()));
  for (const auto& mask : mask_cases(s)) {
    backend.set_mask_channels(s.held_begin, mask);
    EXPECT_EQ(backend.mask_offsets(s.own_begin, s.own_end),
              plain_offsets(std::span(mask).subspan(s.owned_offset(), s.owned_voxels())));
  }
  std::vector<float> copied(s.owned_voxels(), -1.0F);
  backend.copy_original_channels(s.own_begin, s.own_end, copied);
  EXPECT_EQ(std::memcmp(copied.data(), cube.data() + s.own_begin * plane, copied.size() * sizeof(float)), 0);
}

// What the linker reads for a slab whose original is not in host memory: the original as load()
// took it (NaN blanks bit for bit), after a kernel pair has smoothed and clipped the working copy.
TEST(OpenMpBackend, CopiedOriginalIsWhatLoadTook) {
  const CubeShape shape{21, 17, 10};
  const std::size_t plane = shape.plane();
  const auto cube = random_cube(shape, 13);
  const Slab s = make_slab(shape, 0, shape.nz, 0);
  auto backend = make_scfind_backend_cpu(2);
  backend->load(s, cube);
  const KernelPair pair{3.0, 3, gaussian_boxcar_plan(3.0), spectral_radius(3)};
  struct NoCarry final : SpectralCarry {
    [[nodiscard]] std::vector<std::pair<std::size_t, std::size_t>> row_blocks() const override { return {}; }
    void receive(std::size_t, std::size_t, std::span<float>) override {}
    void send(std::size_t, std::size_t, std::span<const float>) override {}
  } carry;
  backend->smooth(pair, std::nullopt, carry);
  backend->clip(0.5);
  std::vector<float> copied((s.own_end - 2) * plane);
  backend->copy_original_channels(2, s.own_end, copied);
  EXPECT_EQ(std::memcmp(copied.data(), cube.data() + 2 * plane, copied.size() * sizeof(float)), 0);
}

}  // namespace
}  // namespace astrosweep::scfind
