// The CUDA scfind backend against a serial float transcription of SoFiA-2's smooth-and-clip
// (../shared specs: smooth-and-clip.md, filter_boxcar_1d_flt in SoFiA-2's statistics_flt.c), written
// here on purpose so it can be read against SoFiA-2 line by line. The backend must match it bit for
// bit: smoothed values (memcmp, NaN payloads included) and masks, for one slab holding the whole
// cube and for the cube split into 2 and 3 slabs whose spectral running sums are handed from slab
// to slab in-process, top slab first. Skips without a GPU.
//
// The mad's device path (ScfindBackend::magnitudes, kernels/noise.cu) against the host path on
// the same samples (HostMagnitudes: the same values, digit counts in every round, order
// statistics, the cap's prefix, the noise bit for bit), on sample counts around the warp, block
// and grid sizes of its kernels; and the device mask count against the downloaded mask.
//
// The device's mask offsets (kernels/scfind/mask_offsets.cu) against the OpenMP backend's on the
// same masks, over one and many blocks, and a full mask that comes down whole; the copied original
// against what load() took.
//
// This file is compiled with -ffp-contract=off (tests/CMakeLists.txt): the reference must round
// every operation on its own, as SoFiA-2's x86-64 build does.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "device.hpp"
#include "noise.hpp"
#include "scfind_backend.hpp"
#include "scfind_backend_cpu.hpp"
#include "scfind_backend_cuda.hpp"

namespace astrosweep::scfind {
namespace {

// ---------------------------------------------------------------------------------------------
// The reference: one whole cube, serial, float.

/// SoFiA-2's filter_boxcar_1d_flt on n values `stride` apart: a copy with NaN as 0 and r zeros on
/// each side; the last value summed from the top of its window, then a running sum downwards.
void boxcar_reference(float* data, std::size_t n, std::size_t stride, std::size_t r) {
  const std::size_t size = 2 * r + 1;
  const float inv = static_cast<float>(1.0 / static_cast<double>(size));
  std::vector<float> copy(n + 2 * r, 0.0f);
  for (std::size_t i = 0; i < n; ++i) {
    const float x = data[i * stride];
    copy[r + i] = std::isnan(x) ? 0.0f : x;
  }
  float last = 0.0f;
  for (std::size_t i = size; i--;) last += copy[n + i - 1];
  last *= inv;
  data[(n - 1) * stride] = last;
  for (std::size_t i = n - 1; i--;) data[i * stride] = data[(i + 1) * stride] + (copy[i] - copy[size + i]) * inv;
}

/// Steps 2-5 of a kernel pair on the whole cube.
std::vector<float> smooth_reference(const CubeShape& c, const std::vector<float>& original,
                                    const std::vector<std::uint8_t>& mask, const KernelPair& pair,
                                    std::optional<float> replacement) {
  std::vector<float> w(original);
  for (std::size_t i = 0; i < w.size(); ++i) {
    if (replacement && mask[i]) w[i] = std::copysign(*replacement, w[i]);
    if (std::isnan(w[i])) w[i] = 0.0f;
  }
  const std::size_t plane = c.plane();
  for (std::size_t z = 0; z < c.nz; ++z) {
    float* p = w.data() + z * plane;
    for (std::size_t y = 0; y < c.ny; ++y)
      for (std::size_t k = 0; k < pair.spatial.passes; ++k)
        boxcar_reference(p + y * c.nx, c.nx, 1, pair.spatial.radius);
    for (std::size_t x = 0; x < c.nx; ++x)
      for (std::size_t k = 0; k < pair.spatial.passes; ++k) boxcar_reference(p + x, c.ny, c.nx, pair.spatial.radius);
  }
  if (pair.radius_z > 0)
    for (std::size_t q = 0; q < plane; ++q) boxcar_reference(w.data() + q, c.nz, plane, pair.radius_z);
  for (std::size_t i = 0; i < w.size(); ++i)
    if (std::isnan(original[i])) w[i] = original[i];
  return w;
}

void clip_reference(const std::vector<float>& smoothed, double threshold, std::vector<std::uint8_t>& mask) {
  for (std::size_t i = 0; i < smoothed.size(); ++i)
    if (std::fabs(static_cast<double>(smoothed[i])) > threshold) mask[i] = 1;
}

double rms_of(const std::vector<float>& values) {
  double sum = 0;
  std::size_t n = 0;
  for (float x : values)
    if (!std::isnan(x)) {
      sum += static_cast<double>(x) * static_cast<double>(x);
      ++n;
    }
  return n ? std::sqrt(sum / static_cast<double>(n)) : 1.0;
}

// ---------------------------------------------------------------------------------------------
// Test cubes, kernel pairs and slabs.

/// Noise, a few bright blobs (so clipping finds voxels), signed zeros, scattered NaNs, a blank row
/// and, with 3 or more channels, a blank channel.
std::vector<float> make_cube(const CubeShape& c, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> noise(0.0f, 1.0f);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<float> v(c.voxels());
  for (auto& x : v) x = noise(rng);
  for (int b = 0; b < 4; ++b) {
    const double cx = u(rng) * static_cast<double>(c.nx), cy = u(rng) * static_cast<double>(c.ny);
    const double cz = u(rng) * static_cast<double>(c.nz), amp = (b % 2 ? -1 : 1) * (3 + 6 * u(rng));
    for (std::size_t z = 0; z < c.nz; ++z)
      for (std::size_t y = 0; y < c.ny; ++y)
        for (std::size_t x = 0; x < c.nx; ++x) {
          const double d2 = (x - cx) * (x - cx) / 9 + (y - cy) * (y - cy) / 9 + (z - cz) * (z - cz) / 16;
          v[(z * c.ny + y) * c.nx + x] += static_cast<float>(amp * std::exp(-0.5 * d2));
        }
  }
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (auto& x : v) {
    const double t = u(rng);
    if (t < 0.04)
      x = nan;
    else if (t < 0.045)
      x = 0.0f;
    else if (t < 0.05)
      x = -0.0f;
  }
  const std::size_t z_row = c.nz / 2, y_row = c.ny / 3;
  for (std::size_t x = 0; x < c.nx; ++x) v[(z_row * c.ny + y_row) * c.nx + x] = nan;
  if (c.nz >= 3) std::fill_n(v.begin() + static_cast<std::ptrdiff_t>(c.plane()), c.plane(), nan);
  return v;
}

/// SoFiA-2's boxcar plans for the spec's FWHMs (smooth-and-clip.md: 3 → n=3, r=1; 6 → n=3, r=2;
/// 9 → n=4, r=3).
BoxcarPlan plan_for(double fwhm) {
  if (fwhm == 3) return {1, 3};
  if (fwhm == 6) return {2, 3};
  if (fwhm == 9) return {3, 4};
  return {};
}

KernelPair make_pair(double fwhm, std::size_t width) {
  KernelPair p;
  p.fwhm_xy = fwhm;
  p.width_z = width;
  p.spatial = plan_for(fwhm);
  p.radius_z = width / 2;
  return p;
}

/// SoFiA-2's default-style sequence over every combination: spatial outer, spectral inner.
std::vector<KernelPair> all_pairs() {
  std::vector<KernelPair> pairs;
  for (double fwhm : {0.0, 3.0, 6.0, 9.0})
    for (std::size_t width : {0, 3, 7, 15}) pairs.push_back(make_pair(fwhm, width));
  return pairs;
}

/// Owns [own_begin, own_end), holds halo channels below and halo + 1 above, within the cube.
Slab test_slab(const CubeShape& cube, std::size_t own_begin, std::size_t own_end, std::size_t halo) {
  Slab s;
  s.cube = cube;
  s.own_begin = own_begin;
  s.own_end = own_end;
  s.held_begin = own_begin > halo ? own_begin - halo : 0;
  s.held_end = std::min(cube.nz, own_end + halo + 1);
  return s;
}

std::vector<Slab> split(const CubeShape& cube, std::size_t parts, std::size_t halo) {
  std::vector<Slab> slabs;
  for (std::size_t k = 0; k < parts; ++k)
    slabs.push_back(test_slab(cube, cube.nz * k / parts, cube.nz * (k + 1) / parts, halo));
  return slabs;
}

/// Passes the running sums between slab objects of one process: slab k (numbered from the bottom)
/// receives what slab k + 1 sent. Checks that the backend keeps the protocol.
class InProcessCarry final : public SpectralCarry {
 public:
  InProcessCarry(std::vector<std::vector<float>>& planes, std::vector<std::size_t>& sent_rows, std::size_t slab,
                 const Slab& s, std::size_t block_rows)
      : planes_(planes), sent_rows_(sent_rows), slab_(slab), nx_(s.cube.nx) {
    for (std::size_t y = 0; y < s.cube.ny; y += block_rows)
      blocks_.emplace_back(y, std::min(s.cube.ny, y + block_rows));
    top_ = s.at_top();
    bottom_ = s.at_bottom();
  }
  [[nodiscard]] std::vector<std::pair<std::size_t, std::size_t>> row_blocks() const override { return blocks_; }
  void receive(std::size_t y0, std::size_t y1, std::span<float> values) override {
    EXPECT_FALSE(top_) << "receive() at the top of the cube";
    ASSERT_LT(received_, blocks_.size());
    EXPECT_EQ(blocks_[received_], std::make_pair(y0, y1)) << "row blocks out of order";
    ++received_;
    ASSERT_EQ(values.size(), (y1 - y0) * nx_);
    // The slab above must have sent these rows already (slabs run top first).
    ASSERT_GE(sent_rows_[slab_ + 1], y1) << "rows received before the slab above sent them";
    std::copy_n(planes_[slab_ + 1].begin() + static_cast<std::ptrdiff_t>(y0 * nx_), values.size(), values.begin());
  }
  void send(std::size_t y0, std::size_t y1, std::span<const float> values) override {
    EXPECT_FALSE(bottom_) << "send() at the bottom of the cube";
    ASSERT_LT(sent_, blocks_.size());
    EXPECT_EQ(blocks_[sent_], std::make_pair(y0, y1)) << "row blocks out of order";
    ++sent_;
    ASSERT_EQ(values.size(), (y1 - y0) * nx_);
    std::copy(values.begin(), values.end(), planes_[slab_].begin() + static_cast<std::ptrdiff_t>(y0 * nx_));
    sent_rows_[slab_] = y1;
  }
  [[nodiscard]] std::size_t received() const { return received_; }
  [[nodiscard]] std::size_t sent() const { return sent_; }

 private:
  std::vector<std::vector<float>>& planes_;
  std::vector<std::size_t>& sent_rows_;
  std::size_t slab_, nx_;
  std::vector<std::pair<std::size_t, std::size_t>> blocks_;
  bool top_ = false, bottom_ = false;
  std::size_t received_ = 0, sent_ = 0;
};

/// Index and values of the first differing float, for the failure message.
std::string first_difference(const float* a, const float* b, std::size_t n, std::size_t offset) {
  for (std::size_t i = 0; i < n; ++i)
    if (std::memcmp(a + i, b + i, sizeof(float)) != 0) {
      char text[160];
      std::snprintf(text, sizeof text, "first difference at voxel %zu: reference %.9g, backend %.9g (of %zu)",
                    offset + i, static_cast<double>(a[i]), static_cast<double>(b[i]), n);
      return text;
    }
  return "none";
}

// ---------------------------------------------------------------------------------------------

std::uint32_t bits_of(float x) { return std::bit_cast<std::uint32_t>(x); }

/// The device magnitudes of `range` against HostMagnitudes over the same samples: their number;
/// when `thorough`, the digit counts of every round on the way to the smallest, the median and the
/// largest value, those values, and the counts of a prefix kept by keep_first; always the mad
/// noise (a fresh pair of counters, with a cap that binds when over half the samples are in the
/// negative or positive range), bit for bit. Leaves the backend's smoothed data as it was.
void expect_magnitudes_match(ScfindBackend& backend, const SampleRange& range, std::size_t cadence, FluxRange flux,
                             bool thorough) {
  SCOPED_TRACE(std::string(to_string(flux)) + " range, " + std::to_string(range.count) + " samples from " +
               std::to_string(range.highest) + " at cadence " + std::to_string(cadence));
  const std::vector<float> samples = backend.samples(range, cadence);
  if (thorough) {
    HostMagnitudes host(samples, flux);
    const auto device = backend.magnitudes(range, cadence, flux);
    ASSERT_NE(device, nullptr);
    ASSERT_EQ(device->size(), host.size());
    const std::uint64_t n = host.size();
    std::vector<float> sorted(host.values().begin(), host.values().end());
    std::sort(sorted.begin(), sorted.end());  // non-negative, no NaN
    for (std::uint64_t k : {std::uint64_t{0}, n / 2, n - 1}) {
      if (k >= n) continue;
      const std::uint32_t target = bits_of(sorted[k]);
      std::uint32_t prefix = 0, mask = 0;
      for (int shift = 24; shift >= 0; shift -= 8) {
        ASSERT_EQ(device->count(prefix, mask, shift), host.count(prefix, mask, shift))
            << "k " << k << ", prefix " << prefix << ", shift " << shift;
        prefix |= target & (0xFFU << shift);
        mask |= 0xFFU << shift;
      }
      EXPECT_EQ(bits_of(distributed_select(*device, k, MPI_COMM_SELF)), target) << "k " << k;
    }
    if (n > 1) {
      const std::uint64_t m = n / 3 + 1;  // the first m in walk order, not the m smallest
      host.keep_first(m);
      device->keep_first(m);
      EXPECT_EQ(device->size(), m);
      EXPECT_EQ(device->count(0, 0, 24), host.count(0, 0, 24));
      const std::uint32_t top = bits_of(host.values()[0]) & 0xFF000000U;
      EXPECT_EQ(device->count(top, 0xFF000000U, 16), host.count(top, 0xFF000000U, 16));
    }
  }
  HostMagnitudes host(samples, flux);
  const auto device = backend.magnitudes(range, cadence, flux);
  ASSERT_NE(device, nullptr);
  const std::uint64_t n_voxels = std::max<std::uint64_t>(1, range.count) * cadence;
  const double expected = mad_noise(host, flux, n_voxels, cadence, SlabChain{});
  const double got = mad_noise(*device, flux, n_voxels, cadence, SlabChain{});
  EXPECT_EQ(device->size(), host.size());
  if (std::isnan(expected)) {
    EXPECT_TRUE(std::isnan(got));
  } else {
    EXPECT_EQ(std::bit_cast<std::uint64_t>(got), std::bit_cast<std::uint64_t>(expected)) << got << " vs " << expected;
  }
}

/// Mask voxels set over the owned channels of `s` in a whole-cube mask.
std::uint64_t owned_mask_count(const std::vector<std::uint8_t>& mask, const Slab& s) {
  const auto first = mask.begin() + static_cast<std::ptrdiff_t>(s.own_begin * s.cube.plane());
  return static_cast<std::uint64_t>(std::count(first, first + static_cast<std::ptrdiff_t>(s.owned_voxels()), 1));
}

class CudaScfind : public ::testing::Test {
 protected:
  void SetUp() override {
    if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  }
};

struct Scenario {
  CubeShape shape;
  std::vector<KernelPair> pairs;
  std::size_t slabs = 1;
  std::size_t block_rows = 1000;
  unsigned seed = 1;
};

std::string describe(const Scenario& sc) {
  return std::to_string(sc.shape.nx) + "x" + std::to_string(sc.shape.ny) + "x" + std::to_string(sc.shape.nz) + ", " +
         std::to_string(sc.slabs) + " slab(s), row blocks of " + std::to_string(sc.block_rows);
}

/// Runs the pairs in order on the reference and on the slabs' backends (replacement from the second
/// pair on, clipping after every pair, mask halos exchanged like the job does) and compares the
/// smoothed values, the finite range and the masks after every pair.
void run_scenario(const Scenario& sc) {
  SCOPED_TRACE(describe(sc));
  const CubeShape& c = sc.shape;
  const std::size_t plane = c.plane();
  const std::vector<float> cube = make_cube(c, sc.seed);
  std::size_t halo = 0;
  for (const auto& p : sc.pairs) halo = std::max(halo, p.radius_z);
  const std::vector<Slab> slabs = split(c, sc.slabs, halo);

  std::vector<std::unique_ptr<ScfindBackend>> backends;
  for (const Slab& s : slabs) {
    backends.push_back(make_scfind_backend_cuda(BackendOptions{}));
    backends.back()->load(s, std::span<const float>(cube.data() + s.held_begin * plane, s.held_voxels()));
  }
  std::vector<std::uint8_t> mask(c.voxels(), 0);
  const double rms = rms_of(cube);
  const float replacement = static_cast<float>(2.0 * rms);

  for (std::size_t pi = 0; pi < sc.pairs.size(); ++pi) {
    const KernelPair& pair = sc.pairs[pi];
    SCOPED_TRACE("pair " + std::to_string(pi) + ": FWHM " + std::to_string(pair.fwhm_xy) + " (r " +
                 std::to_string(pair.spatial.radius) + " x" + std::to_string(pair.spatial.passes) + "), width " +
                 std::to_string(pair.width_z));
    const std::optional<float> rep = pi > 0 ? std::optional<float>(replacement) : std::nullopt;
    const std::vector<float> reference = smooth_reference(c, cube, mask, pair, rep);

    std::vector<std::vector<float>> planes(slabs.size(), std::vector<float>(plane));
    std::vector<std::size_t> sent_rows(slabs.size(), 0);
    for (std::size_t k = slabs.size(); k--;) {
      InProcessCarry carry(planes, sent_rows, k, slabs[k], sc.block_rows);
      backends[k]->smooth(pair, rep, carry);
      if (pair.radius_z > 0) {
        const std::size_t blocks = (c.ny + sc.block_rows - 1) / sc.block_rows;
        EXPECT_EQ(carry.received(), slabs[k].at_top() ? 0 : blocks) << "slab " << k;
        EXPECT_EQ(carry.sent(), slabs[k].at_bottom() ? 0 : blocks) << "slab " << k;
      }
    }

    const double threshold = 1.5 * rms_of(reference);
    for (std::size_t k = 0; k < slabs.size(); ++k) {
      const Slab& s = slabs[k];
      const std::size_t first = s.own_begin * plane, n = s.owned_voxels();
      std::vector<float> got = backends[k]->samples({s.own_end * plane - 1, n}, 1);
      ASSERT_EQ(got.size(), n);
      std::reverse(got.begin(), got.end());
      ASSERT_EQ(std::memcmp(got.data(), reference.data() + first, n * sizeof(float)), 0)
          << "slab " << k << ": " << first_difference(reference.data() + first, got.data(), n, first);
      // The mad's magnitudes of the smoothed data (in whichever working copy is spare), on the top
      // slab (held channels from above the bottom when split); the min/max and clip below then
      // check that they left the smoothed data alone. One slab per scenario keeps the sanitizer
      // run short.
      if (k + 1 == slabs.size())
        expect_magnitudes_match(*backends[k], {s.own_end * plane - 1, n}, 1, FluxRange::negative, false);

      float lo = std::numeric_limits<float>::infinity(), hi = -lo;
      for (std::size_t i = first; i < first + n; ++i)
        if (!std::isnan(reference[i])) lo = std::min(lo, reference[i]), hi = std::max(hi, reference[i]);
      const auto [glo, ghi] = backends[k]->finite_min_max();
      if (lo > hi) {
        EXPECT_TRUE(std::isnan(glo) && std::isnan(ghi)) << "slab " << k;
      } else {
        EXPECT_EQ(glo, lo) << "slab " << k;
        EXPECT_EQ(ghi, hi) << "slab " << k;
      }
      backends[k]->clip(threshold);
    }
    clip_reference(reference, threshold, mask);

    // Mask halos from their owners, then every held mask channel must match the reference.
    for (std::size_t k = 0; k < slabs.size(); ++k) {
      const Slab& s = slabs[k];
      for (std::size_t z = s.held_begin; z < s.held_end; ++z) {
        if (z >= s.own_begin && z < s.own_end) continue;
        const auto owner = static_cast<std::size_t>(
            std::find_if(slabs.begin(), slabs.end(), [&](const Slab& o) { return z >= o.own_begin && z < o.own_end; }) -
            slabs.begin());
        const auto halo_mask = backends[owner]->mask_channels(z, z + 1);
        backends[k]->set_mask_channels(z, halo_mask);
      }
    }
    for (std::size_t k = 0; k < slabs.size(); ++k) {
      const Slab& s = slabs[k];
      const auto got = backends[k]->mask_channels(s.held_begin, s.held_end);
      ASSERT_EQ(got.size(), s.held_voxels());
      ASSERT_EQ(std::memcmp(got.data(), mask.data() + s.held_begin * plane, got.size()), 0) << "slab " << k << " mask";
      EXPECT_EQ(backends[k]->mask_count(), std::optional<std::uint64_t>(owned_mask_count(mask, s))) << "slab " << k;
    }
  }
  for (const auto& b : backends) EXPECT_FALSE(b->usage().empty());
}

std::vector<CubeShape> shapes() {
  return {{33, 32, 17},  {32, 33, 16},  // around warp and tile sizes
          {1, 29, 12},   {31, 1, 12},   // a single column or row
          {20, 21, 1},                  // a single channel
          {129, 130, 3},                // several x tiles and more rows than a tiled block has
          {8, 6, 120},                  // many planes: most slabs far from the cube's ends
          {2, 3, 5}};                   // every radius larger than the lines
}

TEST_F(CudaScfind, AllPairsOneSlabMatchReference) {
  unsigned seed = 11;
  for (const auto& shape : shapes()) run_scenario({shape, all_pairs(), 1, 1000, seed++});
}

TEST_F(CudaScfind, AllPairsTwoSlabsMatchReference) {
  unsigned seed = 23;
  std::size_t block_rows = 1;
  for (const auto& shape : shapes())
    if (shape.nz >= 2) run_scenario({shape, all_pairs(), 2, block_rows++ * 3 - 2, seed++});
}

TEST_F(CudaScfind, AllPairsThreeSlabsMatchReference) {
  unsigned seed = 37;
  std::size_t block_rows = 1;
  for (const auto& shape : shapes())
    if (shape.nz >= 3) run_scenario({shape, all_pairs(), 3, 5 * block_rows++, seed++});
}

TEST_F(CudaScfind, RadiusBeyondTheTiledWindow) {
  // r = 40 along x and y takes the strided x pass (the tiled window does not fit); r = 20 along z
  // reaches past both ends of the cube.
  KernelPair wide;
  wide.fwhm_xy = 100;
  wide.spatial = {40, 2};
  wide.width_z = 41;
  wide.radius_z = 20;
  for (std::size_t slabs : {1, 2, 3})
    run_scenario({{45, 37, 30}, {make_pair(3, 3), wide, make_pair(0, 7)}, slabs, 7, 5});
}

TEST_F(CudaScfind, SamplesWithCadenceFollowTheGlobalIndex) {
  const CubeShape c{33, 32, 17};
  const std::vector<float> cube = make_cube(c, 3);
  const std::uint64_t n = c.voxels();
  for (std::size_t parts : {1, 2, 3})
    for (std::size_t cadence : {1, 7, 32, 1000}) {
      for (const Slab& s : split(c, parts, 0)) {
        auto backend = make_scfind_backend_cuda(BackendOptions{});
        backend->load(s, std::span<const float>(cube.data() + s.held_begin * c.plane(), s.held_voxels()));
        backend->use_original();
        // The samples N − cadence, N − 2·cadence, ... that fall in this slab's owned voxels.
        std::vector<float> expected;
        std::uint64_t highest = 0;
        for (std::uint64_t i = n - cadence; i < n; i -= cadence) {  // unsigned: stops after index 0
          if (i < s.own_begin * c.plane()) break;
          if (i >= s.own_end * c.plane()) continue;
          if (expected.empty()) highest = i;
          expected.push_back(cube[i]);
        }
        const auto got = backend->samples({highest, expected.size()}, cadence);
        ASSERT_EQ(got.size(), expected.size());
        EXPECT_EQ(std::memcmp(got.data(), expected.data(), got.size() * sizeof(float)), 0)
            << parts << " slabs, cadence " << cadence;
      }
    }
}

TEST_F(CudaScfind, OriginalDataClipAndMaskChannels) {
  const CubeShape c{40, 24, 9};
  const std::vector<float> cube = make_cube(c, 9);
  const Slab s = test_slab(c, 3, 7, 2);
  auto backend = make_scfind_backend_cuda(BackendOptions{});
  backend->load(s, std::span<const float>(cube.data() + s.held_begin * c.plane(), s.held_voxels()));
  EXPECT_NE(backend->describe().find("cuda"), std::string::npos);
  backend->use_original();
  EXPECT_TRUE(backend->samples({s.own_end * c.plane() - 1, 0}, 1).empty());
  const auto [lo, hi] = backend->finite_min_max();
  float rlo = INFINITY, rhi = -INFINITY;
  for (std::size_t i = s.own_begin * c.plane(); i < s.own_end * c.plane(); ++i)
    if (!std::isnan(cube[i])) rlo = std::min(rlo, cube[i]), rhi = std::max(rhi, cube[i]);
  EXPECT_EQ(lo, rlo);
  EXPECT_EQ(hi, rhi);

  // A fresh load clears the mask; clip marks owned voxels only; halos come from set_mask_channels.
  const auto cleared = backend->mask_channels(s.held_begin, s.held_end);
  EXPECT_TRUE(std::all_of(cleared.begin(), cleared.end(), [](std::uint8_t m) { return m == 0; }));
  backend->clip(1.0);
  std::vector<std::uint8_t> expected(c.voxels(), 0);
  std::vector<float> owned(cube.size(), 0.0f);
  std::copy(cube.begin() + static_cast<std::ptrdiff_t>(s.own_begin * c.plane()),
            cube.begin() + static_cast<std::ptrdiff_t>(s.own_end * c.plane()),
            owned.begin() + static_cast<std::ptrdiff_t>(s.own_begin * c.plane()));
  clip_reference(owned, 1.0, expected);
  std::vector<std::uint8_t> halo(2 * c.plane());
  for (std::size_t i = 0; i < halo.size(); ++i) halo[i] = (i % 3 == 0) ? 1 : 0;
  backend->set_mask_channels(s.held_begin, halo);
  std::copy(halo.begin(), halo.end(), expected.begin() + static_cast<std::ptrdiff_t>(s.held_begin * c.plane()));
  const auto got = backend->mask_channels(s.held_begin, s.held_end);
  EXPECT_EQ(std::memcmp(got.data(), expected.data() + s.held_begin * c.plane(), got.size()), 0);
  const auto middle = backend->mask_channels(4, 6);
  EXPECT_EQ(std::memcmp(middle.data(), expected.data() + 4 * c.plane(), middle.size()), 0);
  EXPECT_TRUE(backend->mask_channels(5, 5).empty());
}

// load_from reads the held channels in blocks of whole channels into pinned slots, uploading each
// while the next is read: the same data on the device as load() (a mask clipped from the original
// equal voxel for voxel), the reader called with consecutive ranges from held_begin to held_end
// (4 MiB channels: several 64 MiB blocks), and a reader that throws leaves with its error.
TEST_F(CudaScfind, LoadFromAReaderInBlocksEqualsLoad) {
  const CubeShape c{1024, 1024, 40};
  const std::vector<float> cube = make_cube(c, 31);
  const Slab s = test_slab(c, 2, 37, 2);
  const std::span<const float> held(cube.data() + s.held_begin * c.plane(), s.held_voxels());
  auto direct = make_scfind_backend_cuda(BackendOptions{});
  direct->load(s, held);
  auto blocks = make_scfind_backend_cuda(BackendOptions{});
  std::vector<std::pair<std::size_t, std::size_t>> calls;
  blocks->load_from(s, [&](std::size_t z0, std::size_t z1, std::span<float> out) {
    ASSERT_EQ(out.size(), (z1 - z0) * c.plane());
    calls.emplace_back(z0, z1);
    std::copy_n(cube.data() + z0 * c.plane(), out.size(), out.begin());
  });
  ASSERT_GE(calls.size(), 3U);
  EXPECT_EQ(calls.front().first, s.held_begin);
  EXPECT_EQ(calls.back().second, s.held_end);
  for (std::size_t k = 1; k < calls.size(); ++k) EXPECT_EQ(calls[k].first, calls[k - 1].second);
  for (auto* b : {direct.get(), blocks.get()}) {
    b->use_original();
    b->clip(0.5);
  }
  EXPECT_EQ(direct->finite_min_max(), blocks->finite_min_max());
  const auto expected = direct->mask_channels(s.held_begin, s.held_end);
  EXPECT_GT(std::count(expected.begin(), expected.end(), std::uint8_t{1}), 0);
  EXPECT_EQ(blocks->mask_channels(s.held_begin, s.held_end), expected);
  std::vector<std::uint8_t> copied(expected.size());
  blocks->copy_mask_channels(s.held_begin, s.held_end, copied);
  EXPECT_EQ(copied, expected);
  EXPECT_THROW(blocks->load_from(s,
                                 [&](std::size_t z0, std::size_t, std::span<float>) {
                                   if (z0 > s.held_begin) throw InputError("the second block cannot be read");
                                 }),
               InputError);
}

TEST_F(CudaScfind, ReloadReplacesSlabAndMask) {
  // One backend object, a small slab then a larger one of another cube: buffers grow, the mask
  // starts clear, and the results are the new cube's.
  auto backend = make_scfind_backend_cuda(BackendOptions{});
  std::vector<std::vector<float>> planes(1);
  std::vector<std::size_t> sent(1, 0);
  for (const CubeShape& c : {CubeShape{9, 7, 4}, CubeShape{40, 35, 12}}) {
    const std::vector<float> cube = make_cube(c, static_cast<unsigned>(c.nx));
    const Slab s = test_slab(c, 0, c.nz, 7);
    backend->load(s, cube);
    backend->clip(0.5);
    backend->load(s, cube);
    const auto mask = backend->mask_channels(0, c.nz);
    EXPECT_TRUE(std::all_of(mask.begin(), mask.end(), [](std::uint8_t m) { return m == 0; }));
    planes[0].assign(c.plane(), 0.0f);
    InProcessCarry carry(planes, sent, 0, s, 4);
    const KernelPair pair = make_pair(6, 7);
    backend->smooth(pair, 1.0f, carry);
    const auto reference = smooth_reference(c, cube, std::vector<std::uint8_t>(c.voxels(), 0), pair, 1.0f);
    auto got = backend->samples({c.voxels() - 1, c.voxels()}, 1);
    std::reverse(got.begin(), got.end());
    EXPECT_EQ(std::memcmp(got.data(), reference.data(), got.size() * sizeof(float)), 0)
        << first_difference(reference.data(), got.data(), got.size(), 0);
  }
}

TEST_F(CudaScfind, AllBlankSlabHasNoFiniteRange) {
  const CubeShape c{7, 5, 3};
  const std::vector<float> cube(c.voxels(), std::numeric_limits<float>::quiet_NaN());
  auto backend = make_scfind_backend_cuda(BackendOptions{});
  const Slab s = test_slab(c, 0, 3, 1);
  backend->load(s, cube);
  std::vector<std::vector<float>> planes(1, std::vector<float>(c.plane()));
  std::vector<std::size_t> sent(1, 0);
  InProcessCarry carry(planes, sent, 0, s, 2);
  backend->smooth(make_pair(3, 3), 1.0f, carry);
  const auto [lo, hi] = backend->finite_min_max();
  EXPECT_TRUE(std::isnan(lo));
  EXPECT_TRUE(std::isnan(hi));
}

TEST_F(CudaScfind, SlabBeyondTheBudgetIsARuntimeError) {
  const CubeShape c{64, 64, 32};
  const Slab s = test_slab(c, 8, 16, 7);
  const std::uint64_t needed = scfind_backend_cuda_memory_needed(s);
  EXPECT_GE(needed, s.held_voxels() * (3 * sizeof(float) + 1));
  const std::vector<float> cube(s.held_voxels(), 1.0f);
  BackendOptions options;
  options.device_memory_budget = needed - 1;
  auto small = make_scfind_backend_cuda(options);
  try {
    small->load(s, cube);
    FAIL() << "a slab over the budget was loaded";
  } catch (const RuntimeError& e) {
    EXPECT_EQ(e.code(), ExitCode::runtime);
    EXPECT_NE(std::string(e.what()).find("budget"), std::string::npos) << e.what();
  }
  options.device_memory_budget = needed;
  auto exact = make_scfind_backend_cuda(options);
  EXPECT_NO_THROW(exact->load(s, cube));
  EXPECT_NE(exact->usage().find("GPU"), std::string::npos);
}

// --- the mad's magnitudes and the mask count --------------------------------------------------

/// Noise with ties (a third of the values on a coarse grid), signed zeros, denormals, NaNs of both
/// signs and with payloads, and infinities (blanked on read in the job; here they must only be
/// counted like the host counts them).
std::vector<float> awkward_values(std::size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> noise(-0.2f, 1.0f);
  std::uniform_int_distribution<int> pick(0, 99);
  const float specials[] = {0.0f,
                            -0.0f,
                            std::numeric_limits<float>::denorm_min(),
                            -std::numeric_limits<float>::denorm_min(),
                            -3e-39f,
                            std::numeric_limits<float>::quiet_NaN(),
                            -std::numeric_limits<float>::quiet_NaN(),
                            std::bit_cast<float>(0x7F800001U),
                            std::numeric_limits<float>::infinity(),
                            -std::numeric_limits<float>::infinity(),
                            std::numeric_limits<float>::max(),
                            -std::numeric_limits<float>::min()};
  std::vector<float> v(n);
  for (auto& x : v) {
    const int p = pick(rng);
    if (p < 6)
      x = specials[static_cast<std::size_t>(p) * 2 + (noise(rng) < 0 ? 1 : 0)];
    else if (p < 40)
      x = std::round(noise(rng) * 8.0f) / 8.0f;
    else
      x = noise(rng);
  }
  return v;
}

/// A backend holding cube `c` of awkward values as one slab, on its original data.
std::unique_ptr<ScfindBackend> awkward_backend(const CubeShape& c, unsigned seed) {
  const std::vector<float> cube = awkward_values(c.voxels(), seed);
  auto backend = make_scfind_backend_cuda(BackendOptions{});
  backend->load(test_slab(c, 0, c.nz, 0), cube);
  backend->use_original();
  return backend;
}

TEST_F(CudaScfind, MagnitudesMatchTheHostPathAroundBlockSizes) {
  // Sample counts at cadence 1 around one warp, one block (256), four per thread (1024 per
  // block) and a few blocks; strided walks as the job's (cadence ~ N / 999983), down to index 0.
  const CubeShape c{1200, 1000, 3};
  const auto backend = awkward_backend(c, 41);
  const std::uint64_t top = c.voxels() - 1;
  for (std::uint64_t count : {0U, 1U, 2U, 31U, 32U, 33U, 255U, 256U, 257U, 1023U, 1024U, 1025U, 4095U, 4096U, 4097U})
    for (FluxRange flux : {FluxRange::negative, FluxRange::full, FluxRange::positive})
      expect_magnitudes_match(*backend, {top - count % 5, count}, 1, flux, true);
  for (std::size_t cadence : {2U, 7U, 1000U}) {
    const SampleRange all = samples_in(c.voxels(), cadence, 0, c.voxels());
    ASSERT_EQ(all.highest, c.voxels() - cadence);
    for (FluxRange flux : {FluxRange::negative, FluxRange::full, FluxRange::positive})
      expect_magnitudes_match(*backend, all, cadence, flux, true);
  }
}

TEST_F(CudaScfind, MagnitudesOverManyBlocksMatchTheHostPath) {
  // Up to and past the grid's limit of 1024 blocks (2^20 samples: spans of 1024, then 1280) and
  // far above it (3e6). Large: tools/gpu_checks.sh leaves it out of the sanitizer runs.
  const CubeShape c{1200, 1000, 3};
  const auto backend = awkward_backend(c, 42);
  const std::uint64_t top = c.voxels() - 1;
  for (std::uint64_t count : {65537U, 1048575U, 1048576U, 1048577U, 3000000U})
    for (FluxRange flux : {FluxRange::negative, FluxRange::full})
      expect_magnitudes_match(*backend, {top - count % 5, count}, 1, flux, count < 3000000U);
}

TEST_F(CudaScfind, MagnitudesOfASlabAboveTheBottom) {
  // A slab owning channels 2-4 of 7 with a halo: the walk is relative to the held channels.
  const CubeShape c{37, 29, 7};
  const std::vector<float> cube = awkward_values(c.voxels(), 43);
  const Slab s = test_slab(c, 2, 5, 1);
  auto backend = make_scfind_backend_cuda(BackendOptions{});
  backend->load(s, std::span<const float>(cube.data() + s.held_begin * c.plane(), s.held_voxels()));
  backend->use_original();
  for (std::size_t cadence : {1U, 3U, 31U}) {
    const SampleRange range = samples_in(c.voxels(), cadence, s.own_begin * c.plane(), s.own_end * c.plane());
    for (FluxRange flux : {FluxRange::negative, FluxRange::full, FluxRange::positive}) {
      expect_magnitudes_match(*backend, range, cadence, flux, true);
      // The device values are those of the cube itself.
      std::vector<float> walk;
      for (std::uint64_t k = 0; k < range.count; ++k) walk.push_back(cube[range.highest - k * cadence]);
      HostMagnitudes host(walk, flux);
      const auto device = backend->magnitudes(range, cadence, flux);
      ASSERT_EQ(device->size(), host.size());
      EXPECT_EQ(device->count(0, 0, 24), host.count(0, 0, 24));
    }
  }
}

TEST_F(CudaScfind, MagnitudesAreValidUntilTheSpareCopyIsReused) {
  const CubeShape c{33, 32, 4};
  const std::vector<float> cube = awkward_values(c.voxels(), 47);
  const Slab s = test_slab(c, 0, c.nz, 0);
  auto backend = make_scfind_backend_cuda(BackendOptions{});
  backend->load(s, cube);
  backend->use_original();
  const SampleRange all{c.voxels() - 1, c.voxels()};
  auto device = backend->magnitudes(all, 1, FluxRange::full);
  (void)backend->finite_min_max();  // reads only: the magnitudes stay
  (void)backend->mask_count();
  EXPECT_NO_THROW((void)device->count(0, 0, 24));
  (void)backend->samples(all, 1);  // overwrites the spare working copy
  EXPECT_THROW((void)device->count(0, 0, 24), InternalError);
  auto again = backend->magnitudes(all, 1, FluxRange::full);
  auto newer = backend->magnitudes(all, 1, FluxRange::negative);
  EXPECT_THROW((void)again->count(0, 0, 24), InternalError);
  EXPECT_NO_THROW((void)newer->count(0, 0, 24));
  EXPECT_THROW(newer->keep_first(newer->size() + 1), InternalError);

  // No samples: an empty counter, zero counts, and no noise.
  auto none = backend->magnitudes({all.highest, 0}, 1, FluxRange::full);
  EXPECT_EQ(none->size(), 0U);
  EXPECT_EQ(none->count(0, 0, 24), MagnitudeCounter::Counts{});
  EXPECT_TRUE(std::isnan(mad_noise(*none, FluxRange::full, c.voxels(), 1, SlabChain{})));
  // All blank: nothing in any range.
  backend->load(s, std::vector<float>(c.voxels(), std::numeric_limits<float>::quiet_NaN()));
  auto blank = backend->magnitudes(all, 1, FluxRange::full);
  EXPECT_EQ(blank->size(), 0U);
}

TEST_F(CudaScfind, MagnitudesAfterSmoothingReadTheSmoothedCopy) {
  // Pairs with an odd and an even number of passes leave the result in either working copy; the
  // magnitudes go to the other one, and the smoothed data stays intact for what follows.
  const CubeShape c{45, 38, 9};
  const std::vector<float> cube = make_cube(c, 53);
  const Slab s = test_slab(c, 0, c.nz, 7);
  auto backend = make_scfind_backend_cuda(BackendOptions{});
  backend->load(s, cube);
  std::vector<std::vector<float>> planes(1, std::vector<float>(c.plane()));
  std::vector<std::size_t> sent(1, 0);
  const SampleRange all{c.voxels() - 1, c.voxels()};
  for (const KernelPair& pair : {make_pair(3, 0), make_pair(9, 0), make_pair(0, 3), make_pair(6, 15)}) {
    InProcessCarry carry(planes, sent, 0, s, 8);
    backend->smooth(pair, std::nullopt, carry);
    const auto before = backend->samples(all, 1);
    for (FluxRange flux : {FluxRange::negative, FluxRange::full}) expect_magnitudes_match(*backend, all, 1, flux, true);
    const auto after = backend->samples(all, 1);
    EXPECT_EQ(std::memcmp(before.data(), after.data(), before.size() * sizeof(float)), 0);
  }
}

TEST_F(CudaScfind, MaskCountCountsTheOwnedChannelsOnly) {
  // Owned voxels starting at every alignment (planes of odd size), one voxel per plane, and a
  // slab large enough for many blocks; halo channels fully set must not count.
  for (const CubeShape& c :
       {CubeShape{1, 1, 9}, CubeShape{3, 5, 6}, CubeShape{17, 1, 40}, CubeShape{33, 31, 8}, CubeShape{517, 333, 5}}) {
    SCOPED_TRACE(std::to_string(c.nx) + "x" + std::to_string(c.ny) + "x" + std::to_string(c.nz));
    const std::vector<float> cube = make_cube(c, static_cast<unsigned>(c.nx + c.nz));
    for (std::size_t parts : {1U, 2U, 3U}) {
      for (const Slab& s : split(c, parts, 2)) {
        auto backend = make_scfind_backend_cuda(BackendOptions{});
        backend->load(s, std::span<const float>(cube.data() + s.held_begin * c.plane(), s.held_voxels()));
        EXPECT_EQ(backend->mask_count(), std::optional<std::uint64_t>(0));
        backend->use_original();
        for (double threshold : {1.5, 0.5, 0.0}) {
          backend->clip(threshold);
          if (s.held_begin < s.own_begin)
            backend->set_mask_channels(s.held_begin,
                                       std::vector<std::uint8_t>((s.own_begin - s.held_begin) * c.plane(), 1));
          if (s.own_end < s.held_end)
            backend->set_mask_channels(s.own_end, std::vector<std::uint8_t>((s.held_end - s.own_end) * c.plane(), 1));
          const auto owned = backend->mask_channels(s.own_begin, s.own_end);
          const auto expected = static_cast<std::uint64_t>(std::count(owned.begin(), owned.end(), 1));
          EXPECT_EQ(backend->mask_count(), std::optional<std::uint64_t>(expected))
              << "owned " << s.own_begin << "-" << s.own_end << ", threshold " << threshold;
        }
      }
    }
  }
}

TEST_F(CudaScfind, MaskOffsetsMatchTheOpenMpBackend) {
  // Shapes from one block of the count and scatter kernels (4,096 bytes) to more than their 1,024
  // blocks, with a halo on both sides of the owned channels.
  for (const CubeShape& c :
       {CubeShape{33, 32, 7}, CubeShape{257, 3, 6}, CubeShape{300, 200, 12}, CubeShape{1024, 700, 9}}) {
    SCOPED_TRACE(std::to_string(c.nx) + "x" + std::to_string(c.ny) + "x" + std::to_string(c.nz));
    const std::size_t plane = c.plane();
    const std::vector<float> cube = make_cube(c, 61);
    const Slab s = test_slab(c, 2, c.nz - 2, 1);
    auto device = make_scfind_backend_cuda(BackendOptions{});
    auto host = make_scfind_backend_cpu(2);
    const std::span<const float> held(cube.data() + s.held_begin * plane, s.held_voxels());
    device->load(s, held);
    host->load(s, held);
    const std::size_t first = s.owned_offset(), last = first + s.owned_voxels() - 1;
    std::vector<std::vector<std::uint8_t>> masks(7, std::vector<std::uint8_t>(s.held_voxels(), 0));
    masks[1][first + plane + 255] = 1;  // one voxel
    masks[2][first] = masks[2][last] = 1;
    std::fill_n(masks[3].begin() + static_cast<std::ptrdiff_t>(first + plane), plane, 1);  // a whole plane
    std::mt19937 rng(17);
    for (auto& m : masks[4]) m = rng() % 5000 == 0 ? 1 : 0;  // a mask's sparsity
    for (auto& m : masks[5]) m = rng() % 3 == 0 ? 1 : 0;
    masks[6].assign(s.held_voxels(), 1);  // more offsets than the spare copy holds: downloaded whole
    for (const auto& mask : masks) {
      device->set_mask_channels(s.held_begin, mask);
      host->set_mask_channels(s.held_begin, mask);
      const auto expected = host->mask_offsets(s.own_begin, s.own_end);
      ASSERT_EQ(device->mask_offsets(s.own_begin, s.own_end), expected);
      ASSERT_EQ(device->mask_offsets(s.held_begin, s.held_end), host->mask_offsets(s.held_begin, s.held_end));
      EXPECT_TRUE(device->mask_offsets(s.own_begin, s.own_begin).empty());
    }
    std::vector<float> copied(s.owned_voxels());
    device->copy_original_channels(s.own_begin, s.own_end, copied);
    EXPECT_EQ(std::memcmp(copied.data(), cube.data() + s.own_begin * plane, copied.size() * sizeof(float)), 0);
  }
}

TEST_F(CudaScfind, MaskOffsetsLeaveTheSmoothedDataAndEndTheMagnitudes) {
  const CubeShape c{45, 38, 9};
  const std::vector<float> cube = make_cube(c, 67);
  const Slab s = test_slab(c, 0, c.nz, 0);
  auto backend = make_scfind_backend_cuda(BackendOptions{});
  backend->load(s, cube);
  std::vector<std::vector<float>> planes(1, std::vector<float>(c.plane()));
  std::vector<std::size_t> sent(1, 0);
  InProcessCarry carry(planes, sent, 0, s, 8);
  backend->smooth(make_pair(3, 3), std::nullopt, carry);
  backend->clip(1.0);
  const SampleRange all{c.voxels() - 1, c.voxels()};
  const auto before = backend->samples(all, 1);
  auto magnitudes = backend->magnitudes(all, 1, FluxRange::full);
  const auto mask = backend->mask_channels(0, c.nz);
  std::vector<std::uint64_t> expected;
  for (std::size_t i = 0; i < mask.size(); ++i)
    if (mask[i] != 0) expected.push_back(i);
  ASSERT_FALSE(expected.empty());
  EXPECT_EQ(backend->mask_offsets(0, c.nz), expected);
  EXPECT_THROW((void)magnitudes->count(0, 0, 24), InternalError);  // the spare copy held them
  const auto after = backend->samples(all, 1);
  EXPECT_EQ(std::memcmp(before.data(), after.data(), before.size() * sizeof(float)), 0);
  std::vector<float> copied(c.voxels());
  backend->copy_original_channels(0, c.nz, copied);
  EXPECT_EQ(std::memcmp(copied.data(), cube.data(), copied.size() * sizeof(float)), 0);
}

// values_above: the owned voxels with |x| > bound and their values, the GPU's in no particular
// order (sorted here), nullopt past the limit (a quarter of the owned voxels at most); set_mask_voxels: exactly the
// listed voxels (halo channels, the first and the last held voxel); on slabs around the warp and block sizes and over
// many blocks. The expectation is a plain loop over the original.
TEST_F(CudaScfind, ValuesAboveAndMaskVoxelsMatchAPlainLoop) {
  for (const CubeShape c : {CubeShape{1, 1, 3}, CubeShape{31, 1, 5}, CubeShape{33, 8, 5}, CubeShape{257, 129, 7},
                            CubeShape{1024, 600, 9}}) {
    SCOPED_TRACE(std::to_string(c.nx) + "x" + std::to_string(c.ny) + "x" + std::to_string(c.nz));
    const std::vector<float> cube = make_cube(c, 43);
    const Slab s = test_slab(c, 1, c.nz - 1, 1);
    auto backend = make_scfind_backend_cuda(BackendOptions{});
    backend->load(s, std::span<const float>(cube.data() + s.held_begin * c.plane(), s.held_voxels()));
    backend->use_original();
    for (const double bound : {0.0, 1.0, 3.0, 1e30}) {
      ValuesAbove expected;
      const float* owned = cube.data() + s.own_begin * c.plane();
      for (std::size_t i = 0; i < s.owned_voxels(); ++i)
        if (std::fabs(static_cast<double>(owned[i])) > bound) {
          expected.offsets.push_back(i);
          expected.values.push_back(owned[i]);
        }
      const std::uint64_t limit = s.owned_voxels() / 4;
      const auto got = backend->values_above(bound, limit);
      ASSERT_EQ(got.has_value(), expected.offsets.size() <= limit);
      if (!got) continue;
      ASSERT_EQ(got->offsets.size(), expected.offsets.size());
      std::vector<std::size_t> order(got->offsets.size());
      for (std::size_t k = 0; k < order.size(); ++k) order[k] = k;
      std::sort(order.begin(), order.end(), [&](auto a, auto b) { return got->offsets[a] < got->offsets[b]; });
      for (std::size_t k = 0; k < order.size(); ++k) {
        ASSERT_EQ(got->offsets[order[k]], expected.offsets[k]);
        ASSERT_EQ(std::bit_cast<std::uint32_t>(got->values[order[k]]),
                  std::bit_cast<std::uint32_t>(expected.values[k]));
      }
      if (!expected.offsets.empty()) {
        EXPECT_FALSE(backend->values_above(bound, expected.offsets.size() - 1));
      }
    }
    // The listed voxels join the mask; the mask clipped before stays.
    backend->clip(2.5);
    auto expected_mask = backend->mask_channels(s.held_begin, s.held_end);
    std::vector<std::uint64_t> voxels{0, s.held_voxels() - 1};
    for (std::uint64_t v = 7; v < s.held_voxels(); v += 97) voxels.push_back(v);
    for (const std::uint64_t v : voxels) expected_mask[v] = 1;
    backend->set_mask_voxels(s.held_begin, voxels);
    EXPECT_EQ(backend->mask_channels(s.held_begin, s.held_end), expected_mask);
    // Offsets counted from a later channel.
    backend->set_mask_voxels(s.held_end - 1, std::vector<std::uint64_t>{c.plane() - 1});
    EXPECT_EQ(backend->mask_channels(s.held_end - 1, s.held_end).back(), 1);
  }
}

// Streamed slabs with the originals held on the GPU (hold_originals): a slab loaded once is
// activated again by load_held() without a transfer, with its mask cleared, and smooths and clips
// as after a fresh load; nothing is held before the first load or without hold_originals(); the
// budget counts every held original beside the working memory.
TEST_F(CudaScfind, HeldOriginalsActivateWithoutAnUpload) {
  const CubeShape c{96, 70, 30};
  const std::vector<float> cube = make_cube(c, 53);
  const Slab lower = test_slab(c, 0, 13, 4), upper = test_slab(c, 13, 30, 4);
  auto held_of = [&](const Slab& s) {
    return std::span<const float>(cube.data() + s.held_begin * c.plane(), s.held_voxels());
  };
  EXPECT_EQ(scfind_backend_cuda_original_bytes(lower) % 256, 0U);
  EXPECT_GE(scfind_backend_cuda_original_bytes(lower), lower.held_voxels() * sizeof(float));
  EXPECT_LT(scfind_backend_cuda_original_bytes(lower), scfind_backend_cuda_memory_needed(lower));

  auto plain = make_scfind_backend_cuda(BackendOptions{});
  plain->load(lower, held_of(lower));
  EXPECT_FALSE(plain->load_held(lower));  // not asked to hold

  auto backend = make_scfind_backend_cuda(BackendOptions{});
  backend->hold_originals();
  EXPECT_FALSE(backend->load_held(lower));  // nothing loaded yet
  backend->load(lower, held_of(lower));
  backend->use_original();
  backend->clip(0.7);
  const auto first_mask = backend->mask_channels(lower.held_begin, lower.held_end);
  EXPECT_GT(std::count(first_mask.begin(), first_mask.end(), std::uint8_t{1}), 0);
  backend->load_from(upper, [&](std::size_t z0, std::size_t z1, std::span<float> out) {
    std::copy_n(cube.data() + z0 * c.plane(), (z1 - z0) * c.plane(), out.begin());
  });
  for (int round = 0; round < 2; ++round) {
    for (const Slab* s : {&lower, &upper}) {
      ASSERT_TRUE(backend->load_held(*s));
      const auto cleared = backend->mask_channels(s->held_begin, s->held_end);
      EXPECT_TRUE(std::all_of(cleared.begin(), cleared.end(), [](std::uint8_t m) { return m == 0; }));
      auto fresh = make_scfind_backend_cuda(BackendOptions{});
      fresh->load(*s, held_of(*s));
      for (auto* b : {backend.get(), fresh.get()}) {
        b->use_original();
        b->clip(0.7);
      }
      EXPECT_EQ(backend->mask_channels(s->held_begin, s->held_end), fresh->mask_channels(s->held_begin, s->held_end));
      // Smoothing reads the held original (a spatial pair: no spectral hand-over).
      if (s == &lower) {
        std::vector<std::vector<float>> planes(1, std::vector<float>(c.plane(), 0.0f));
        std::vector<std::size_t> sent(1, 0);
        const KernelPair pair = make_pair(6, 0);
        std::vector<std::vector<float>> got;
        for (auto* b : {backend.get(), fresh.get()}) {
          InProcessCarry carry(planes, sent, 0, *s, 16);
          b->smooth(pair, 0.5f, carry);
          const std::uint64_t last = s->own_end * c.plane() - 1, count = s->owned_voxels();
          got.push_back(b->samples({last, count}, 1));
        }
        EXPECT_EQ(std::memcmp(got[0].data(), got[1].data(), got[0].size() * sizeof(float)), 0)
            << first_difference(got[1].data(), got[0].data(), got[0].size(), 0);
      }
    }
  }
  EXPECT_NE(backend->usage().find("2 slab originals held"), std::string::npos) << backend->usage();

  // A budget for one slab's working memory and the lower slab's original only: the second refused.
  BackendOptions tight;
  tight.device_memory_budget = scfind_backend_cuda_memory_needed(upper) - scfind_backend_cuda_original_bytes(upper) +
                               scfind_backend_cuda_original_bytes(lower);
  auto small = make_scfind_backend_cuda(tight);
  small->hold_originals();
  small->load(lower, held_of(lower));
  try {
    small->load(upper, held_of(upper));
    FAIL() << "a second original beyond the budget was held";
  } catch (const RuntimeError& e) {
    EXPECT_NE(std::string(e.what()).find("originals held"), std::string::npos) << e.what();
  }
}

// A slab loaded from the backend's page-locked host floats (one DMA, no staging) is the slab
// load() takes from plain memory: the same values (clip and range) on the device.
TEST_F(CudaScfind, LoadFromHostFloatsEqualsLoad) {
  const CubeShape c{512, 300, 20};
  const std::vector<float> cube = make_cube(c, 47);
  const Slab s = test_slab(c, 2, 17, 2);
  const std::span<const float> held(cube.data() + s.held_begin * c.plane(), s.held_voxels());
  auto plain = make_scfind_backend_cuda(BackendOptions{});
  plain->load(s, held);
  auto pinned = make_scfind_backend_cuda(BackendOptions{});
  const HostFloats host = pinned->host_floats(held.size());
  ASSERT_EQ(host.size(), held.size());
  std::copy(held.begin(), held.end(), host.data());
  pinned->load(s, host.span());
  for (auto* b : {plain.get(), pinned.get()}) {
    b->use_original();
    b->clip(1.0);
  }
  EXPECT_EQ(plain->finite_min_max(), pinned->finite_min_max());
  EXPECT_EQ(plain->mask_channels(s.held_begin, s.held_end), pinned->mask_channels(s.held_begin, s.held_end));
  EXPECT_TRUE(pinned->host_floats(0).empty());
}

}  // namespace
}  // namespace astrosweep::scfind
