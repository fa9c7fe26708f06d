// Multi-rate filtering (spec §4, §12 tolerance 3): the half-band decimator and interpolator on
// tones, and a multi-rate bank against the same template's single-rate bank: |ρ| at a noise-free
// injection within 1 %, the peak on the same sample, and E|z|² = 2 in white noise.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <numbers>
#include <random>
#include <vector>

#include "bank_generation.hpp"
#include "core/error.hpp"
#include "multirate_filter.hpp"

namespace astrosweep::spiir {
namespace {

constexpr double two_pi = 2 * std::numbers::pi;

TEST(MultirateFilter, HalfbandTaps) {
  const auto taps = halfband_taps();
  ASSERT_EQ(taps.size(), 65u);
  double dc = 0;
  for (std::size_t k = 0; k < taps.size(); ++k) {
    dc += taps[k];
    EXPECT_DOUBLE_EQ(taps[k], taps[taps.size() - 1 - k]);
  }
  EXPECT_NEAR(dc, 1.0, 1e-15);
  const auto gain = [&](double f) {
    std::complex<double> sum = 0;
    for (std::size_t k = 0; k < taps.size(); ++k) sum += taps[k] * std::polar(1.0, -two_pi * f * (double(k) - 32));
    return std::abs(sum);
  };
  for (double f : {0.0, 0.1, 0.19}) EXPECT_NEAR(gain(f), 1.0, 1e-3) << f;  // filters' band (≤ 0.1925)
  for (double f : {0.31, 0.4, 0.5}) EXPECT_LT(gain(f), 1e-3) << f;         // what would alias into it
}

TEST(MultirateFilter, DecimateAndInterpolateTones) {
  const auto taps = halfband_taps();
  std::vector<double> x(2000);
  for (std::size_t n = 0; n < x.size(); ++n) x[n] = std::cos(two_pi * 0.07 * double(n));
  const auto low = decimate2(x, taps);
  ASSERT_EQ(low.size(), 1000u);
  for (std::size_t m = 40; m < 960; ++m)
    EXPECT_NEAR(low[m], std::numbers::sqrt2 * std::cos(two_pi * 0.14 * double(m)), 2e-3);
  std::vector<std::complex<double>> z(1000);
  for (std::size_t m = 0; m < z.size(); ++m) z[m] = std::polar(1.0, -two_pi * 0.15 * double(m));
  const auto up = interpolate2(z, 2000, taps);
  for (std::size_t n = 80; n < 1920; ++n)
    EXPECT_LT(std::abs(up[n] - std::polar(1.0, -two_pi * 0.075 * double(n))), 2e-3) << n;
}

struct Banks {
  SpiirBank multi, single;
  WhitenedTemplate tmpl;
  Banks() {
    BankSettings s;
    s.f_low = 60;
    s.sample_rate = 2048;
    s.ifos = {"H1"};
    multi = make_spiir_bank({{1.4, 1.4}}, s);
    s.n_rates = 1;
    single = make_spiir_bank({{1.4, 1.4}}, s);
    tmpl = taylorf2_template({1.4, 1.4}, {60, 2048, {}});
  }
};

const Banks& banks() {
  static const Banks b;
  return b;
}

std::vector<std::complex<double>> run(const SpiirBank& bank, const std::vector<double>& x) {
  return multirate_filter(bank, x, [](const RateBank& r) { return make_spiir_backend_cpu(r, Precision::fp64, {}); });
}

TEST(MultirateFilter, InjectionAgreesWithTheSingleRateBank) {
  const auto& b = banks();
  ASSERT_GE(b.multi.rates.size(), 4u);
  const auto& h = b.tmpl.h;
  const std::size_t end = h.size() + 3000;
  std::vector<double> x(end + 3000, 0.0);
  for (std::size_t s = 0; s < h.size(); ++s) x[end + 1 - h.size() + s] = 10.0 * (std::polar(1.0, 0.3) * h[s]).real();
  const auto zm = run(b.multi, x);
  const auto zs = run(b.single, x);
  std::size_t at_m = 0, at_s = 0;
  for (std::size_t n = 0; n < x.size(); ++n) {
    if (std::abs(zm[n]) > std::abs(zm[at_m])) at_m = n;
    if (std::abs(zs[n]) > std::abs(zs[at_s])) at_s = n;
  }
  std::printf("[ spiir    ] injection: single-rate |rho| %.4f at %zu, multi-rate %.4f at %zu (%zu rates)\n",
              std::abs(zs[at_s]), at_s, std::abs(zm[at_m]), at_m, b.multi.rates.size());
  EXPECT_LE(std::abs(double(at_m) - double(at_s)), 1.0);
  EXPECT_NEAR(std::abs(zm[at_m]) / std::abs(zs[at_s]), 1.0, 0.01);
}

// The streaming form (causal FIRs, delays compensated, states carried over chunks of several sizes)
// is the whole-series form late by latency() samples.
TEST(MultirateFilter, StreamEqualsTheWholeSeriesLate) {
  const auto& b = banks();
  const auto make = [](const RateBank& r) { return make_spiir_backend_cpu(r, Precision::fp64, {}); };
  MultirateStream stream(b.multi, make);
  const std::size_t unit = stream.chunk_multiple();
  EXPECT_EQ(unit, 8u);                                // 4 rates: levels 0 … 3
  EXPECT_EQ(stream.latency(), 2u * 32u * (8u - 1u));  // 2K(2^L − 1)
  std::mt19937_64 rng(5);
  std::normal_distribution<double> g(0, 1);
  std::vector<double> x(12 * 2048);
  for (auto& v : x) v = g(rng);
  const auto whole = multirate_filter(b.multi, x, make);
  std::vector<std::complex<double>> streamed(x.size());
  const std::size_t sizes[] = {unit, 512 * unit, 37 * unit, 2048};
  for (std::size_t first = 0, c = 0; first < x.size(); ++c) {
    const std::size_t n = std::min(sizes[c % 4], x.size() - first);
    std::vector<std::complex<double>> z(n);
    stream.filter(std::span(x).subspan(first, n), z);
    std::copy(z.begin(), z.end(), streamed.begin() + static_cast<std::ptrdiff_t>(first));
    first += n;
  }
  double scale = 0, worst = 0;
  for (std::size_t n = 0; n + stream.latency() < x.size(); ++n) {
    scale = std::max(scale, std::abs(whole[n]));
    worst = std::max(worst, std::abs(streamed[n + stream.latency()] - whole[n]));
  }
  EXPECT_LE(worst, 1e-12 * scale);
  EXPECT_THROW(stream.filter(std::vector<double>(unit + 1, 0.0), streamed), UsageError);
}

TEST(MultirateFilter, WhiteNoiseGivesUnitVarianceSnr) {
  const auto& b = banks();
  const std::size_t batch = 2048, n = 96 * batch;
  std::mt19937_64 rng(42);
  std::normal_distribution<double> g(0, 1);
  std::vector<double> x(n);
  for (auto& v : x) v = g(rng);
  const auto z = run(b.multi, x);
  const std::size_t warm = (b.tmpl.h.size() + batch - 1) / batch * batch;
  std::vector<double> means;
  for (std::size_t first = warm; first + batch <= n - batch; first += batch) {  // the last second: FIR edge
    double sum = 0;
    for (std::size_t i = first; i < first + batch; ++i) sum += std::norm(z[i]);
    means.push_back(sum / batch);
  }
  double mean = 0, var = 0;
  for (double m : means) mean += m / double(means.size());
  for (double m : means) var += (m - mean) * (m - mean) / double(means.size() - 1);
  const double se = std::sqrt(var / double(means.size()));
  std::printf("[ spiir    ] multi-rate E|z|^2 = %.4f +- %.4f\n", mean, se);
  EXPECT_NEAR(mean, 2.0, 3 * se);
  EXPECT_NEAR(mean, 2.0, 0.04);
}

}  // namespace
}  // namespace astrosweep::spiir
