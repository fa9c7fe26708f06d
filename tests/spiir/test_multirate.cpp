// The multi-rate structure of spec §4: decimation factors, the rate cap, and the mapping of a
// filter to a lower rate, whose response at low-rate lag m' is √M times the top-rate filter's at
// lag M·m'.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <numbers>

#include "bank_generation.hpp"
#include "multirate.hpp"

namespace astrosweep::spiir {
namespace {

std::complex<double> a1_at(double cycles_per_sample) {
  return 0.99 * std::polar(1.0, -2 * std::numbers::pi * cycles_per_sample);
}

TEST(Multirate, DecimationFactors) {
  // 2·1.3·f: 0.78 → M = 1; 0.26 → 2; 0.13 → 4 (log₂ = −2.94); 0.026 → 32, capped.
  EXPECT_EQ(decimation_factor(a1_at(0.3), 1.3, 64), 1);
  EXPECT_EQ(decimation_factor(a1_at(0.1), 1.3, 64), 2);
  EXPECT_EQ(decimation_factor(a1_at(0.05), 1.3, 64), 4);
  EXPECT_EQ(decimation_factor(a1_at(0.01), 1.3, 64), 32);
  EXPECT_EQ(decimation_factor(a1_at(0.01), 1.3, 16), 16);
  EXPECT_EQ(decimation_factor(a1_at(-0.1), 1.3, 64), 2);  // the sign of the phase rate does not matter
  EXPECT_EQ(decimation_factor(0.5, 1.3, 8), 8);           // frequency 0: the cap
  EXPECT_EQ(max_decimation(2048, 40, 7), 32);
  EXPECT_EQ(max_decimation(2048, 60, 7), 32);  // 2^⌊log₂ 51.2⌋
  EXPECT_EQ(max_decimation(4096, 15, 7), 64);  // 2^8, at most 2^(7−1)
  EXPECT_EQ(max_decimation(4096, 15, 1), 1);
}

TEST(Multirate, MappedFilterSamplesTheTopRateResponse) {
  const IirFilter top{0.995 * std::polar(1.0, -0.07), std::complex<double>(0.3, -0.2), 37};
  for (int m : {2, 4, 8, 32}) {
    const IirFilter low = at_rate(top, m);
    EXPECT_EQ(low.delay, (37 + 1 + m - 1) / m);
    EXPECT_GE(low.delay * m - top.delay, 1);
    for (std::int64_t lag = low.delay; lag < low.delay + 50; ++lag) {
      const auto low_response = low.b0 * std::pow(low.a1, static_cast<double>(lag - low.delay));
      const auto top_response = top.b0 * std::pow(top.a1, static_cast<double>(lag * m - top.delay));
      EXPECT_LE(std::abs(low_response - std::sqrt(static_cast<double>(m)) * top_response),
                1e-12 * std::abs(top_response))
          << "M = " << m << ", lag " << lag;
    }
  }
  const IirFilter same = at_rate(top, 1);
  EXPECT_EQ(same.delay, top.delay);
  EXPECT_EQ(same.a1, top.a1);
}

TEST(Multirate, BankPutsEachFilterBelowItsRatesNyquist) {
  BankSettings s;
  s.f_low = 60;
  s.sample_rate = 2048;
  s.ifos = {"H1"};
  const auto bank = make_spiir_bank({{1.4, 1.4}}, s);
  ASSERT_GT(bank.rates.size(), 2u);
  EXPECT_EQ(bank.rates.front().rate, 2048);
  std::size_t total = 0;
  for (const auto& r : bank.rates) {
    const double m = 2048.0 / static_cast<double>(r.rate);
    for (const auto& f : r.filters(0)) {
      // At its own rate: f' = M·f cycles per sample, and padding · f' ≤ ½ unless capped (M = 32).
      const double f_low_rate = std::abs(std::arg(f.a1)) / (2 * std::numbers::pi);
      if (m > 1 && m < 32) {  // M = 1 cannot do better; M = 32 is the cap
        EXPECT_LE(1.3 * f_low_rate, 0.5 + 1e-12) << r.rate;
      }
      EXPECT_LT(std::abs(f.a1), 1.0);
    }
    total += static_cast<std::size_t>(r.n_filters[0]);
  }
  BankSettings single = s;
  single.n_rates = 1;
  const auto flat = make_spiir_bank({{1.4, 1.4}}, single);
  ASSERT_NE(flat.single_rate(), nullptr);
  EXPECT_EQ(bank.single_rate(), nullptr);
  EXPECT_EQ(static_cast<std::size_t>(flat.rates.front().n_filters[0]), total);  // the same filters, spread
}

}  // namespace
}  // namespace astrosweep::spiir
