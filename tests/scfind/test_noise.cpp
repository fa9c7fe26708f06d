// The noise statistics against literal transcriptions of SoFiA-2's serial code on one array:
// the exact distributed median (histogram refinement), std and mad with their sample walks, caps
// and flux ranges, and gauss on Gaussian noise.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

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

}  // namespace
}  // namespace astrosweep::scfind
