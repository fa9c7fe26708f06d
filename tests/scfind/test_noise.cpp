// The noise statistics against literal transcriptions of SoFiA-2's serial code on one array:
// the exact distributed median (histogram refinement), std and mad with their sample walks, caps
// and flux ranges, and gauss on Gaussian noise. The mad's seam (MagnitudeCounter): the host
// counter's filter and order, the calls mad_noise makes, and, run on several ranks
// (test_noise_np3), slabs whose ranks hold different kinds of counter.

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <random>
#include <tuple>

#include "core/error.hpp"
#include "noise.hpp"

namespace astrosweep::scfind {
namespace {

TEST(DistributedSelect, EqualsNthElement) {
  std::mt19937 rng(3);
  for (std::size_t n : {1U, 2U, 3U, 32U, 33U, 1000U}) {
    std::vector<float> v(n);
    std::uniform_int_distribution<int> pick(0, 20);  // many duplicates
    for (auto& x : v) x = static_cast<float>(pick(rng)) * 0.25F;
    for (std::uint64_t k = 0; k < n; k += std::max<std::size_t>(1, n / 9)) {
      auto sorted = v;
      std::nth_element(sorted.begin(), sorted.begin() + static_cast<std::ptrdiff_t>(k), sorted.end());
      EXPECT_EQ(distributed_select(v, k, MPI_COMM_SELF), sorted[k]);
    }
  }
  const std::vector<float> tiny{0.0F, std::numeric_limits<float>::denorm_min(), 1e30F};
  EXPECT_EQ(distributed_select(tiny, 1, MPI_COMM_SELF), std::numeric_limits<float>::denorm_min());
}

// SoFiA-2 (statistics_flt.c) on the whole array, transcribed: std_dev_val_flt and mad_val_flt
// with value 0, median_flt with nth_element and the largest value below for even counts.
double sofia_std(const std::vector<float>& data, std::size_t cadence, int range) {
  double result = 0;
  std::size_t counter = 0;
  for (std::size_t k = 1; k * cadence <= data.size(); ++k) {
    const float x = data[data.size() - k * cadence];
    if ((range == 0 && x == x) || (range < 0 && x < 0.0F) || (range > 0 && x > 0.0F)) {
      result += static_cast<double>(x) * static_cast<double>(x);
      ++counter;
    }
  }
  return std::sqrt(result / static_cast<double>(counter));
}

double sofia_mad(const std::vector<float>& data, std::size_t cadence, int range) {
  const std::size_t cap = range == 0 ? data.size() / cadence : data.size() / (2 * cadence);
  std::vector<float> copy;
  for (std::size_t k = 1; k * cadence < data.size() && copy.size() < cap; ++k) {
    const float x = data[data.size() - k * cadence];
    if ((range < 0 && x < 0.0F) || (range == 0 && x == x) || (range > 0 && x > 0.0F)) copy.push_back(std::fabs(x));
  }
  const std::size_t n = copy.size();
  std::nth_element(copy.begin(), copy.begin() + static_cast<std::ptrdiff_t>(n / 2), copy.end());
  float median = copy[n / 2];
  if (n % 2 == 0) {
    const float below = *std::max_element(copy.begin(), copy.begin() + static_cast<std::ptrdiff_t>(n / 2));
    median = static_cast<float>(static_cast<double>(median + below) / 2.0);
  }
  return mad_to_std * static_cast<double>(median);
}

TEST(MeasureNoise, StdAndMadEqualSofiaOnOneRank) {
  std::mt19937 rng(5);
  std::normal_distribution<float> noise(0.0F, 2.0F);
  for (std::size_t n : {1U, 2U, 7U, 100U, 1001U, 4096U}) {
    std::vector<float> data(n);
    for (auto& x : data) x = noise(rng);
    if (n > 3) data[n / 3] = std::numeric_limits<float>::quiet_NaN();
    data[0] = -3.0F;  // index 0: counted by std, never by mad
    for (std::size_t cadence : {1U, 2U, 5U}) {
      if (cadence > n) continue;
      const std::uint64_t count = n / cadence;
      std::vector<float> values(count);
      for (std::uint64_t k = 0; k < count; ++k) values[k] = data[n - (k + 1) * cadence];
      const LocalSamples samples{values, n - cadence, cadence};
      for (auto [range, code] :
           {std::pair{FluxRange::negative, -1}, std::pair{FluxRange::full, 0}, std::pair{FluxRange::positive, 1}}) {
        const double std_ours = measure_noise(NoiseStatistic::std, range, samples, n, 0, 0, SlabChain{});
        const double std_sofia = sofia_std(data, cadence, code);
        if (std::isnan(std_sofia)) {
          EXPECT_TRUE(std::isnan(std_ours));
        } else {
          EXPECT_EQ(std_ours, std_sofia) << n << " " << cadence << " " << code;
        }
        bool any = false;
        for (std::size_t k = 1; k * cadence < n; ++k) {
          const float x = data[n - k * cadence];
          any |= (code < 0 && x < 0) || (code == 0 && x == x) || (code > 0 && x > 0);
        }
        if (!any || (code != 0 && n / (2 * cadence) == 0)) continue;  // SoFiA-2 reads garbage there
        EXPECT_EQ(measure_noise(NoiseStatistic::mad, range, samples, n, 0, 0, SlabChain{}),
                  sofia_mad(data, cadence, code))
            << n << " " << cadence << " " << code;
      }
    }
  }
}

TEST(MeasureNoise, GaussFitsTheNoiseOfAGaussian) {
  std::mt19937 rng(9);
  std::normal_distribution<float> noise(0.0F, 0.5F);
  std::vector<float> data(200000);
  for (auto& x : data) x = noise(rng);
  const auto [lo, hi] = std::minmax_element(data.begin(), data.end());
  std::vector<float> values(data.rbegin(), data.rend());  // cadence 1, highest index first
  const LocalSamples samples{values, data.size() - 1, 1};
  for (FluxRange range : {FluxRange::negative, FluxRange::full, FluxRange::positive}) {
    const double rms = measure_noise(NoiseStatistic::gauss, range, samples, data.size(), *lo, *hi, SlabChain{});
    EXPECT_NEAR(rms, 0.5, 0.03) << to_string(range);
  }
  // All positive: SoFiA-2 gives up ("Maximum is not greater than minimum").
  EXPECT_TRUE(
      std::isnan(measure_noise(NoiseStatistic::gauss, FluxRange::full, samples, data.size(), 0.1F, 1.0F, SlabChain{})));
}

// --- the mad's seam ---------------------------------------------------------------------------

constexpr float nan_f = std::numeric_limits<float>::quiet_NaN();
constexpr float inf_f = std::numeric_limits<float>::infinity();
constexpr float denorm_f = std::numeric_limits<float>::denorm_min();

/// Values a sample can hold, the awkward ones included (infinities are blanked on read, but the
/// counters must not depend on that).
std::vector<float> special_values() {
  return {0.0F,
          -0.0F,
          denorm_f,
          -denorm_f,
          1e-40F,
          -1e-40F,
          inf_f,
          -inf_f,
          nan_f,
          -nan_f,
          std::bit_cast<float>(0x7FC12345U),
          std::bit_cast<float>(0xFF812345U),
          1.0F,
          -1.0F,
          0.25F,
          -0.25F,
          std::numeric_limits<float>::max(),
          -std::numeric_limits<float>::max(),
          std::numeric_limits<float>::min()};
}

TEST(HostMagnitudes, KeepsAbsoluteValuesInTheFluxRangeInOrder) {
  const std::vector<float> samples = special_values();
  for (FluxRange range : {FluxRange::negative, FluxRange::full, FluxRange::positive}) {
    std::vector<float> expected;
    for (float x : samples) {
      const bool negative = x < 0.0F;
      const bool positive = x > 0.0F;
      const bool number = !std::isnan(x);
      if ((range == FluxRange::negative && negative) || (range == FluxRange::positive && positive) ||
          (range == FluxRange::full && number))
        expected.push_back(std::fabs(x));
    }
    HostMagnitudes m(samples, range);
    ASSERT_EQ(m.size(), expected.size()) << to_string(range);
    for (std::size_t i = 0; i < expected.size(); ++i)
      EXPECT_EQ(std::bit_cast<std::uint32_t>(m.values()[i]), std::bit_cast<std::uint32_t>(expected[i]))
          << to_string(range) << " " << i;  // +0 for −0: the bit patterns, not ==
    m.keep_first(2);
    ASSERT_EQ(m.size(), 2U);
    EXPECT_EQ(m.values()[1], expected[1]);
    EXPECT_THROW(m.keep_first(3), InternalError);
  }
  EXPECT_EQ(HostMagnitudes(std::vector<float>{}, FluxRange::full).size(), 0U);
}

TEST(HostMagnitudes, CountsDigitsUnderAPrefix) {
  const std::vector<float> v{1.0F, 1.5F, 2.0F, 0.0F, 1.0F, inf_f, denorm_f};
  HostMagnitudes m(v, FluxRange::full);
  const auto top = m.count(0, 0, 24);
  EXPECT_EQ(top[0x3F], 3U);  // 1.0, 1.5, 1.0
  EXPECT_EQ(top[0x40], 1U);  // 2.0
  EXPECT_EQ(top[0x00], 2U);  // 0 and the denormal
  EXPECT_EQ(top[0x7F], 1U);  // inf
  const auto below = m.count(0x3F000000U, 0xFF000000U, 16);
  EXPECT_EQ(below[0x80], 2U);  // 1.0 = 0x3F800000
  EXPECT_EQ(below[0xC0], 1U);  // 1.5 = 0x3FC00000
  std::uint64_t total = 0;
  for (auto c : below) total += c;
  EXPECT_EQ(total, 3U);
}

TEST(WithoutIndexZero, DropsTheLowestSampleOnlyAtIndexZero) {
  // samples_in's ranges of a cube of 100 voxels at cadence 7: 93, 86, ..., 2 (index 0 never).
  EXPECT_EQ(without_index_zero({93, 14}, 7).count, 14U);
  // Cadence 1: 99 .. 0 holds index 0; a slab above it does not.
  EXPECT_EQ(without_index_zero({99, 100}, 1).count, 99U);
  EXPECT_EQ(without_index_zero({99, 50}, 1).count, 50U);
  EXPECT_EQ(without_index_zero({21, 4}, 7).count, 3U);  // 21, 14, 7, 0
  EXPECT_EQ(without_index_zero({0, 1}, 5).count, 0U);
  EXPECT_EQ(without_index_zero({0, 0}, 5).count, 0U);
  EXPECT_EQ(without_index_zero({21, 4}, 7).highest, 21U);
}

/// The device counter's twin on the host: bit patterns, the flux test on bits (as kernels/noise.cu
/// does it), and a log of the calls.
class BitsCounter final : public MagnitudeCounter {
 public:
  BitsCounter(std::span<const float> samples, FluxRange range) {
    for (float x : samples) {
      const auto bits = std::bit_cast<std::uint32_t>(x);
      const std::uint32_t magnitude = bits & 0x7FFFFFFFU;
      const bool sign = (bits >> 31) != 0;
      if (magnitude > 0x7F800000U) continue;
      if ((range == FluxRange::negative && (!sign || magnitude == 0)) ||
          (range == FluxRange::positive && (sign || magnitude == 0)))
        continue;
      bits_.push_back(magnitude);
    }
  }
  [[nodiscard]] std::uint64_t size() const override { return bits_.size(); }
  void keep_first(std::uint64_t n) override {
    kept.push_back(n);
    bits_.resize(n);
  }
  [[nodiscard]] Counts count(std::uint32_t prefix, std::uint32_t mask, int shift) override {
    rounds.emplace_back(prefix, mask, shift);
    Counts c{};
    for (std::uint32_t b : bits_)
      if ((b & mask) == prefix) ++c[(b >> shift) & 0xFFU];
    return c;
  }
  std::vector<std::tuple<std::uint32_t, std::uint32_t, int>> rounds;
  std::vector<std::uint64_t> kept;

 private:
  std::vector<std::uint32_t> bits_;
};

TEST(MadNoise, BitsCounterEqualsHostPathAndRefinesByteByByte) {
  std::mt19937 rng(17);
  std::normal_distribution<float> noise(-0.5F, 2.0F);  // mostly negative: the cap binds
  std::uniform_int_distribution<int> pick(0, 9);
  const std::vector<float> special = special_values();
  for (std::size_t n : {2U, 5U, 64U, 999U, 1000U, 5001U}) {
    std::vector<float> data(n);
    for (std::size_t i = 0; i < n; ++i) {
      const int p = pick(rng);
      data[i] = p == 0 ? special[i % special.size()] : p < 4 ? std::round(noise(rng)) : noise(rng);  // ties, −0
    }
    for (std::size_t cadence : {1U, 3U}) {
      const std::uint64_t count = n / cadence;
      std::vector<float> values(count);
      for (std::uint64_t k = 0; k < count; ++k) values[k] = data[n - (k + 1) * cadence];
      const LocalSamples samples{values, n - cadence, cadence};
      const SampleRange walk = without_index_zero(SampleRange{n - cadence, count}, cadence);
      for (FluxRange range : {FluxRange::negative, FluxRange::full, FluxRange::positive}) {
        BitsCounter bits(std::span<const float>(values).first(walk.count), range);
        const std::uint64_t selected = bits.size();
        const double host = measure_noise(NoiseStatistic::mad, range, samples, n, 0, 0, SlabChain{});
        const double twin = mad_noise(bits, range, n, cadence, SlabChain{});
        if (std::isnan(host)) {
          EXPECT_TRUE(std::isnan(twin));
          continue;
        }
        EXPECT_EQ(std::bit_cast<std::uint64_t>(twin), std::bit_cast<std::uint64_t>(host))
            << n << " " << cadence << " " << to_string(range);
        // The cap: keep_first only when it binds, with the room left.
        const std::uint64_t cap = range == FluxRange::full ? n / cadence : n / (2 * cadence);
        if (selected > cap) {
          ASSERT_EQ(bits.kept.size(), 1U);
          EXPECT_EQ(bits.kept[0], cap);
        } else {
          EXPECT_TRUE(bits.kept.empty());
        }
        // Four rounds per selection (two selections for an even count), each narrowing the prefix.
        const std::uint64_t m = std::min(selected, cap);
        ASSERT_EQ(bits.rounds.size(), m % 2 == 0 ? 8U : 4U);
        for (std::size_t r = 0; r < bits.rounds.size(); ++r) {
          const auto [prefix, mask, shift] = bits.rounds[r];
          EXPECT_EQ(shift, 24 - 8 * static_cast<int>(r % 4));
          EXPECT_EQ(mask, r % 4 == 0 ? 0U : 0xFFFFFFFFU << (shift + 8));
          EXPECT_EQ(prefix & ~mask, 0U);
        }
      }
    }
  }
}

TEST(MadNoise, SlabsOnSeveralRanksWithMixedCountersEqualSofia) {
  // Run as test_noise_np3 this splits the cube over the ranks; on one rank it is the whole cube.
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  SlabChain chain;
  chain.comm = MPI_COMM_WORLD;
  chain.above = rank + 1 < size ? rank + 1 : MPI_PROC_NULL;
  chain.below = rank > 0 ? rank - 1 : MPI_PROC_NULL;
  std::mt19937 rng(29);                     // the same cube on every rank
  for (float mean : {0.0F, -1.0F, 1.0F}) {  // off-centre: the negative or positive cap binds
    std::normal_distribution<float> noise(mean, 1.0F);
    const CubeShape cube{13, 11, 24};
    std::vector<float> data(cube.voxels());
    for (auto& x : data) x = std::round(noise(rng) * 64.0F) / 64.0F;  // ties across slabs
    data[cube.voxels() / 2] = nan_f;
    for (std::size_t cadence : {1U, 2U, 7U}) {
      const std::size_t z0 = cube.nz * static_cast<std::size_t>(rank) / static_cast<std::size_t>(size);
      const std::size_t z1 = cube.nz * static_cast<std::size_t>(rank + 1) / static_cast<std::size_t>(size);
      const SampleRange range = samples_in(cube.voxels(), cadence, z0 * cube.plane(), z1 * cube.plane());
      std::vector<float> values(range.count);
      for (std::uint64_t k = 0; k < range.count; ++k) values[k] = data[range.highest - k * cadence];
      const SampleRange walk = without_index_zero(range, cadence);
      for (auto [flux, code] :
           {std::pair{FluxRange::negative, -1}, std::pair{FluxRange::full, 0}, std::pair{FluxRange::positive, 1}}) {
        // Odd ranks count bit patterns, even ranks use the host path: the MPI calls must pair up.
        double ours = 0;
        if (rank % 2 == 1) {
          BitsCounter bits(std::span<const float>(values).first(walk.count), flux);
          ours = mad_noise(bits, flux, cube.voxels(), cadence, chain);
        } else {
          ours = measure_noise(NoiseStatistic::mad, flux, LocalSamples{values, range.highest, cadence}, cube.voxels(),
                               0, 0, chain);
        }
        EXPECT_EQ(ours, sofia_mad(data, cadence, code)) << "rank " << rank << " of " << size << ", mean " << mean
                                                        << ", cadence " << cadence << ", " << to_string(flux);
      }
    }
  }
}

}  // namespace
}  // namespace astrosweep::scfind
