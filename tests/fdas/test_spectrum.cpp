// The spectrum and its normalisation (spec §2, §13 items 1 and 4): block boundaries as the rules
// give them, white noise normalised to exponential powers of mean 1, red noise flattened.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <numbers>
#include <random>
#include <vector>

#include "core/error.hpp"
#include "deredden_arith.hpp"
#include "spectrum.hpp"

namespace astrosweep::fdas {
namespace {

TEST(Spectrum, GoodLengthsHaveOnlySmallPrimeFactors) {
  EXPECT_EQ(good_fft_length(0), 1U);
  EXPECT_EQ(good_fft_length(1), 1U);
  EXPECT_EQ(good_fft_length(11), 12U);
  EXPECT_EQ(good_fft_length(1000), 1000U);
  EXPECT_EQ(good_fft_length(1021), 1024U);
  EXPECT_EQ(good_fft_length(1 << 23), std::size_t{1} << 23);
  for (std::size_t n : {13U, 97U, 1009U, 65537U}) {
    std::size_t m = good_fft_length(n), r = m;
    for (std::size_t p : {2U, 3U, 5U, 7U})
      while (r % p == 0) r /= p;
    EXPECT_EQ(r, 1U) << n;
    for (std::size_t k = n; k < m; ++k) {
      std::size_t q = k;
      for (std::size_t p : {2U, 3U, 5U, 7U})
        while (q % p == 0) q /= p;
      EXPECT_NE(q, 1U) << k << " is smooth and below " << m;
    }
  }
}

TEST(Spectrum, BlocksFollowTheRulesExactly) {
  const std::vector<float> powers(50, 1.0F);
  const auto blocks = deredden_blocks(powers);
  // b = 1, L = 6; b = 7, L = ⌊6 ln 7⌋ = 11; b = 18, L = ⌊6 ln 18⌋ = 17; b = 35: 35 + 21 ≥ 50, stop.
  ASSERT_EQ(blocks.size(), 3U);
  EXPECT_EQ(blocks[0].first, 1U);
  EXPECT_EQ(blocks[0].length, 6U);
  EXPECT_EQ(blocks[1].first, 7U);
  EXPECT_EQ(blocks[1].length, 11U);
  EXPECT_EQ(blocks[2].first, 18U);
  EXPECT_EQ(blocks[2].length, 17U);
  EXPECT_FLOAT_EQ(blocks[0].level, static_cast<float>(1 / std::numbers::ln2));
  // Large K: contiguous, lengths ⌊6 ln b⌋ (the cap of 200 needs b > 3·10¹⁴: never reached), the
  // last one ending before K.
  const std::vector<float> many(1'000'000, 2.0F);
  const auto big = deredden_blocks(many);
  for (std::size_t j = 1; j < big.size(); ++j) {
    EXPECT_EQ(big[j].first, big[j - 1].first + big[j - 1].length);
    EXPECT_EQ(big[j].length,
              std::min<std::size_t>(200, static_cast<std::size_t>(std::floor(6 * std::log(double(big[j].first))))));
  }
  EXPECT_LT(big.back().first + big.back().length, many.size());
  EXPECT_EQ(big.back().length, 82U);  // ⌊6 ln b⌋ near b = 10⁶
  EXPECT_TRUE(deredden_blocks(std::vector<float>(6, 1.0F)).empty());
}

TEST(Spectrum, MedianIsPrestosGslMedian) {
  // PRESTO's median() is GSL's since its 394bc81: for an even count, half the two middle values' float sum.
  EXPECT_EQ(block_median(std::vector<float>{3, 1, 2}), 2.0F);
  EXPECT_EQ(block_median(std::vector<float>{4, 1, 3, 2}), 2.5F);
  EXPECT_EQ(block_median(std::vector<float>{5}), 5.0F);
  EXPECT_EQ(block_median({}), 0.0F);
}

std::vector<float> white(std::size_t n, unsigned seed, double sigma = 1) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> g(0, sigma);
  std::vector<float> x(n);
  for (auto& v : x) v = static_cast<float>(g(rng));
  return x;
}

struct Moments {
  double mean, variance, above5;
};

Moments moments(const std::vector<std::complex<float>>& f, std::size_t from) {
  double s = 0, s2 = 0, n = 0, above = 0;
  for (std::size_t k = from; k < f.size(); ++k) {
    const double p = std::norm(f[k]);
    s += p;
    s2 += p * p;
    above += p > 5 ? 1 : 0;
    ++n;
  }
  const double mean = s / n;
  return {mean, s2 / n - mean * mean, above / n};
}

// PRESTO's dereddening walk as one loop over the bins (deredden's code before it applied the
// levels as ramps in parallel): the oracle its every bit is compared with.
void deredden_walk(std::vector<std::complex<float>>& spectrum) {
  const std::size_t K = spectrum.size();
  std::vector<float> powers(K);
  for (std::size_t k = 0; k < K; ++k) powers[k] = std::norm(spectrum[k]);
  const std::vector<DereddenBlock> blocks = deredden_blocks(powers);
  if (blocks.empty()) return;
  // PRESTO scales the real and imaginary parts on their own (`amp.r *= scale; amp.i *= scale`).
  auto scale = [&](std::size_t bin, float level) {
    if (!(level > 0)) return;
    const float factor = 1.0F / std::sqrt(level);
    spectrum[bin] = {spectrum[bin].real() * factor, spectrum[bin].imag() * factor};
  };
  float m_old = blocks[0].level;
  std::size_t written = 1;
  for (; written < 1 + blocks[0].length / 2; ++written) scale(written, m_old);
  float slope = 0;
  for (std::size_t j = 1; j < blocks.size(); ++j) {
    const float m_new = blocks[j].level;
    slope = (m_new - m_old) / (0.5F * static_cast<float>(blocks[j - 1].length + blocks[j].length));
    const std::size_t until = blocks[j].first + blocks[j].length / 2;
    for (std::size_t i = 0; written + i < until; ++i) scale(written + i, m_old + slope * static_cast<float>(i));
    written = std::max(written, until);
    m_old = m_new;
  }
  for (std::size_t i = 0; written + i < K; ++i) scale(written + i, m_old + slope * static_cast<float>(i));
}

TEST(Spectrum, DereddeningIsThePrestoWalkBitForBitOnAnyThreads) {
  // Red noise (the levels change from block to block) at lengths with and without a tail after
  // the last block, a spectrum of one block, and one too short for any (left as it is).
  for (const std::size_t n :
       {std::size_t{1} << 18, std::size_t{100'002}, std::size_t{40}, std::size_t{14}, std::size_t{12}}) {
    std::vector<float> x = white(n, 11);
    for (std::size_t i = 1; i < n; ++i) x[i] += 0.9F * x[i - 1];  // red: powers fall with frequency
    const std::vector<std::complex<float>> raw = raw_spectrum(x, n);
    std::vector<std::complex<float>> expected = raw;
    deredden_walk(expected);
    for (const int threads : {1, 2, 3, 4}) {
      std::vector<std::complex<float>> f = raw;
      deredden(f, threads);
      ASSERT_EQ(f.size(), expected.size());
      std::size_t differing = 0;
      for (std::size_t k = 0; k < f.size(); ++k)
        differing += std::bit_cast<std::uint64_t>(f[k]) != std::bit_cast<std::uint64_t>(expected[k]) ? 1 : 0;
      EXPECT_EQ(differing, 0U) << "n = " << n << ", " << threads << " threads";
    }
  }
}

TEST(Spectrum, WhiteNoiseBecomesExponentialWithMeanOne) {
  constexpr std::size_t n = 1 << 20;
  auto f = raw_spectrum(white(n, 3, 7.5), n);
  EXPECT_EQ(f.size(), n / 2);
  EXPECT_EQ(f[0], std::complex<float>(1.0F));
  deredden(f);
  // The levels are medians of 6 … 82 bins, so each carries a few per cent of estimation noise:
  // the mean stays 1, the spread and the tail grow by that much (measured: variance 1.04, tail
  // above 5 × 1.15 for this seed). The block normalisation of each segment comes on top.
  const Moments m = moments(f, 10);
  EXPECT_NEAR(m.mean, 1.0, 0.01);
  EXPECT_NEAR(m.variance, 1.0, 0.07);
  EXPECT_NEAR(m.above5 / std::exp(-5.0), 1.0, 0.25);
  // Known variance: no level to estimate, so the exponential law exactly.
  auto g = raw_spectrum(white(n, 4, 2.0), n);
  normalise_known_variance(g, n, 4.0);
  const Moments k = moments(g, 1);
  EXPECT_NEAR(k.mean, 1.0, 0.01);
  EXPECT_NEAR(k.variance, 1.0, 0.03);
  EXPECT_NEAR(k.above5 / std::exp(-5.0), 1.0, 0.08);
}

TEST(Spectrum, RedNoiseIsFlattenedAndASinusoidKeepsItsPower) {
  // tsamp 64 µs, N = 2^20 (T ≈ 67 s): white noise plus a random walk below 5 Hz ten times the
  // white level there, and a sinusoid of normalised power 50 at bin 10066 (≈ 150 Hz, on the bin).
  constexpr std::size_t n = 1 << 20;
  constexpr double tsamp = 64e-6;
  std::mt19937_64 rng(9);
  std::normal_distribution<double> g;
  std::vector<double> walk(n);
  double w = 0;
  for (auto& v : walk) v = (w += 0.02 * g(rng));
  std::vector<float> x(n);
  const double a = std::sqrt(4 * 50.0 / n);
  for (std::size_t i = 0; i < n; ++i)
    x[i] = static_cast<float>(g(rng) + walk[i] +
                              a * std::cos(2 * std::numbers::pi * 10066.0 * static_cast<double>(i) / n));
  auto f = raw_spectrum(x, n);
  const double T = n * tsamp;
  const auto k5 = static_cast<std::size_t>(5 * T);
  EXPECT_GT(std::norm(f[k5 / 2]) / n, 10.0);  // red below 5 Hz before
  // The medians on several threads: the same spectrum, bit for bit.
  auto on_threads = f;
  deredden(on_threads, 3);
  deredden(f);
  EXPECT_EQ(on_threads, f);
  const Moments m = moments(f, 10);
  EXPECT_NEAR(m.mean, 1.0, 0.05);
  // One noise draw adds ±√(2·50) ≈ ±10 to the power: a band of 30 %.
  EXPECT_NEAR(static_cast<double>(std::norm(f[10066])) / 50.0, 1.0, 0.3);
}

TEST(Spectrum, PaddingUsesTheMeanAndEdgesHold) {
  const std::vector<float> constant(1000, 3.0F);
  const auto f = raw_spectrum(constant, good_fft_length(1000) + 8);  // padded with 3: still constant
  for (std::size_t k = 1; k < f.size(); ++k) EXPECT_LT(std::abs(f[k]), 1e-9F) << k;
  EXPECT_THROW(raw_spectrum(constant, 999), UsageError);
  const auto two = raw_spectrum(std::vector<float>{1.0F, -1.0F}, 2);
  EXPECT_EQ(two.size(), 1U);
  auto tiny = raw_spectrum(std::vector<float>{1.0F, 2.0F, 3.0F}, 5);
  deredden(tiny);  // too short for one block: unchanged, no division by zero
  EXPECT_EQ(tiny[0], std::complex<float>(1.0F));
}

TEST(Spectrum, BirdiesAreZeroed) {
  std::vector<std::complex<float>> f(1000, {1.0F, 1.0F});
  const Birdie birdies[] = {{50.0, 1.0}};  // T = 10 s: bins 495 … 505
  zap_birdies(f, birdies, 10.0);
  EXPECT_EQ(f[500], std::complex<float>{});
  EXPECT_EQ(f[495], std::complex<float>{});
  EXPECT_EQ(f[505], std::complex<float>{});
  EXPECT_NE(f[494], std::complex<float>{});
  EXPECT_NE(f[506], std::complex<float>{});
}

TEST(Spectrum, BirdieBinsAreTheZeroedOnesClippedToTheSpectrum) {
  const Birdie birdies[] = {{50.0, 1.0}, {0.0, 0.5}, {99.95, 0.2}, {500.0, 1.0}};  // T = 10 s, K = 1000
  const auto ranges = birdie_bins(birdies, 10.0, 1000);
  ASSERT_EQ(ranges.size(), 3U);  // the last lies above the spectrum
  EXPECT_EQ(ranges[0].first, 495U);
  EXPECT_EQ(ranges[0].end, 506U);
  EXPECT_EQ(ranges[1].first, 1U);  // never DC
  EXPECT_EQ(ranges[1].end, 4U);
  EXPECT_EQ(ranges[2].first, 998U);
  EXPECT_EQ(ranges[2].end, 1000U);  // clipped at K
  const Birdie bad[] = {{-1.0, 1.0}};
  EXPECT_THROW(birdie_bins(bad, 10.0, 1000), UsageError);
}

TEST(Spectrum, DereddenLayoutRampsCoverEveryBinButDcOnce) {
  for (const std::size_t K : {std::size_t{6}, std::size_t{7}, std::size_t{8}, std::size_t{20}, std::size_t{64},
                              std::size_t{100'001}, std::size_t{1} << 18}) {
    const DereddenLayout layout = deredden_layout(K);
    if (K <= 6) {  // bins 1 … 6 make the first block: none fits
      EXPECT_TRUE(layout.blocks.empty() && layout.ramps.empty()) << K;
      continue;
    }
    ASSERT_FALSE(layout.ramps.empty()) << K;
    std::size_t next = 1;
    for (const LevelRampPlan& r : layout.ramps) {
      EXPECT_EQ(r.begin, next) << K;
      EXPECT_LT(r.begin, r.end) << K;
      EXPECT_LT(r.level_block, layout.blocks.size());
      EXPECT_TRUE(r.slope_block == 0 || r.slope_block == r.level_block + 1 || r.slope_block == r.level_block) << K;
      next = r.end;
    }
    EXPECT_EQ(next, K);
  }
}

// PRESTO's median by sorting (its median() is GSL's gsl_stats_float_median since PRESTO 394bc81):
// the middle value, or for an even count half the float sum of the two middle ones.
float sorted_median(std::vector<float> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return (v[(n - 1) / 2] + v[n / 2]) * 0.5F;
}

TEST(Spectrum, MedianIsTheSortedOnesWithTies) {
  // The two middle values are added in float, as GSL adds them: near FLT_MAX the sum overflows.
  EXPECT_EQ(block_median(std::vector<float>{3e38F, 3e38F}), std::numeric_limits<float>::infinity());
  EXPECT_EQ(block_median(std::vector<float>{0, 1, 0, 1}), 0.5F);
  std::mt19937_64 rng(9);
  std::exponential_distribution<float> e;
  for (const std::size_t n : {2U, 3U, 6U, 7U, 32U, 33U, 200U, 1024U, 1025U}) {
    for (int trial = 0; trial < 10; ++trial) {
      std::vector<float> v(n);
      for (auto& x : v) x = trial % 2 == 0 ? std::floor(3 * e(rng)) : e(rng);  // ties every other trial
      EXPECT_EQ(block_median(v), sorted_median(v)) << n;
    }
  }
}

// The device's median (deredden.cu's block_middles) on the host: the block's order keys padded to a
// power of two, every stage of the bitonic network run pair by pair (arith::bitonic_exchange, as
// the threads do), the two middle ranks read back and arith::middle_mean taken.
float network_median(const std::vector<float>& v) {
  const auto n = static_cast<std::uint32_t>(v.size());
  std::vector<std::uint32_t> keys(arith::padded_count(n), arith::padding_key);
  for (std::uint32_t i = 0; i < n; ++i) keys[i] = arith::order_key(v[i]);
  const auto padded = static_cast<std::uint32_t>(keys.size());
  for (std::uint32_t size = 2; size <= padded; size <<= 1)
    for (std::uint32_t stride = size / 2; stride > 0; stride >>= 1)
      for (std::uint32_t t = 0; t < padded / 2; ++t) arith::bitonic_exchange(keys.data(), size, stride, t);
  EXPECT_TRUE(std::is_sorted(keys.begin(), keys.end()));
  return arith::middle_mean(arith::from_order_key(keys[arith::median_rank(n)]),
                            arith::from_order_key(keys[arith::upper_median_rank(n)]));
}

TEST(Spectrum, SortingNetworkMedianIsTheMedianWithTies) {
  // Against block_median (std::nth_element) on blocks of the dereddening's lengths and the
  // correlator's, powers of two and one either side, with repeated values and zeros.
  std::mt19937_64 rng(5);
  std::exponential_distribution<float> e;
  for (const std::size_t n : {1U, 2U, 3U, 6U, 7U, 31U, 32U, 33U, 91U, 200U, 255U, 256U, 257U, 1023U, 1024U, 1025U}) {
    for (int trial = 0; trial < 20; ++trial) {
      std::vector<float> v(n);
      for (auto& x : v) x = trial % 3 == 0 ? std::floor(4 * e(rng)) : e(rng);  // ties every third trial
      EXPECT_EQ(std::bit_cast<std::uint32_t>(network_median(v)), std::bit_cast<std::uint32_t>(block_median(v))) << n;
    }
  }
}

TEST(Spectrum, OrderKeysFollowTheFloatsAndPutNanLast) {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> ascending{
      -inf, -3.5F,      -std::numeric_limits<float>::denorm_min(), 0.0F, std::numeric_limits<float>::denorm_min(),
      1.0F, 1.0000001F, std::numeric_limits<float>::max(),         inf};
  for (std::size_t i = 0; i + 1 < ascending.size(); ++i)
    EXPECT_LT(arith::order_key(ascending[i]), arith::order_key(ascending[i + 1])) << ascending[i];
  for (const float v : ascending)
    EXPECT_EQ(std::bit_cast<std::uint32_t>(arith::from_order_key(arith::order_key(v))),
              std::bit_cast<std::uint32_t>(v));
  EXPECT_LT(arith::order_key(inf), arith::order_key(nan));
  EXPECT_LT(arith::order_key(nan), arith::padding_key);
  EXPECT_EQ(arith::order_key(nan), arith::order_key(-nan));
  EXPECT_TRUE(std::isnan(arith::from_order_key(arith::order_key(nan))));
  EXPECT_TRUE(std::isnan(arith::from_order_key(arith::padding_key)));
  // A NaN holds no rank below the count of numbers: with two numbers and a NaN the median is the
  // upper number; with a NaN at a middle rank, NaN.
  EXPECT_EQ(network_median({2.0F, nan, 1.0F}), 2.0F);
  EXPECT_TRUE(std::isnan(network_median({nan, nan, 1.0F})));
}

}  // namespace
}  // namespace astrosweep::fdas
