// The run's frequency grid: explicit, from periods, automatic (astropy's autofrequency), and the
// bad requests the issue names.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "core/error.hpp"
#include "frequency_grid.hpp"
#include "test_data.hpp"

namespace astrosweep::period {
namespace {

io::CatalogIndex index_of(std::vector<std::uint64_t> counts, std::vector<double> t0, std::vector<double> t1) {
  io::CatalogIndex index;
  index.counts = counts;
  index.t_min = t0;
  index.t_max = t1;
  index.ids.resize(counts.size());
  return index;
}

TEST(FrequencyGrid, ExplicitIsHalfOpenLikeTheSeedCode) {
  GridRequest r;
  r.fmin = 0.5;
  r.fmax = 24;
  r.n_freq = 100000;
  const auto g = make_frequency_grid(r, {});
  EXPECT_EQ(g.n, 100000u);
  EXPECT_DOUBLE_EQ(g.at(0), 0.5);
  EXPECT_DOUBLE_EQ(g.df, 23.5 / 1e5);
  EXPECT_LT(g.last(), 24.0);
}

TEST(FrequencyGrid, PeriodRange) {
  GridRequest r;
  r.pmin = 0.1;
  r.pmax = 2.0;
  r.n_freq = 10;
  const auto g = make_frequency_grid(r, {});
  EXPECT_DOUBLE_EQ(g.f0, 0.5);
  EXPECT_DOUBLE_EQ(g.df, (10.0 - 0.5) / 10);
}

// Against astropy itself (LombScargle.autofrequency; tests/data/reference/astropy_autofrequency.csv,
// made by tools/make_astropy_grid_table.py): 2,015 light curves of 2 to 10,000 points over
// baselines of 8 to 365.25 days, three (samples per peak, Nyquist factor) settings, times from 0
// and from BJD 2.46e6. The length must be astropy's exactly: about one case in six has a quotient
// (fmax − fmin)/df on a half, which astropy rounds to even.
TEST(FrequencyGrid, AutomaticIsAstropysForOneObject) {
  const auto rows = test::read_table("reference/astropy_autofrequency.csv");
  ASSERT_GT(rows.size(), 2000U);
  for (const auto& row : rows) {
    GridRequest r;
    r.samples_per_peak = std::stod(row.at("samples_per_peak"));
    r.nyquist_factor = std::stod(row.at("nyquist_factor"));
    const auto n = static_cast<std::uint64_t>(std::stoull(row.at("n_points")));
    const auto g = make_frequency_grid(r, index_of({n}, {std::stod(row.at("t_min"))}, {std::stod(row.at("t_max"))}));
    const std::string what = "n = " + row.at("n_points") + ", t = " + row.at("t_min") + " .. " + row.at("t_max");
    EXPECT_EQ(g.n, std::stoull(row.at("n_freq"))) << what;
    EXPECT_NEAR(g.f0, std::stod(row.at("f0")), 1e-12 * g.f0) << what;
    EXPECT_NEAR(g.df, std::stod(row.at("df")), 1e-9 * g.df) << what;
  }
}

// The case the issue found: 6 points over 8 days, (fmax − fmin)/df = 74.5 → 75 frequencies.
TEST(FrequencyGrid, AutomaticRoundsAHalfToEvenAsAstropy) {
  const auto g = make_frequency_grid(GridRequest{}, index_of({6}, {0.0}, {8.0}));
  EXPECT_EQ(g.n, 75U);
}

TEST(FrequencyGrid, AutomaticUsesLongestBaselineAndMedianNyquist) {
  GridRequest r;
  const auto g = make_frequency_grid(r, index_of({10, 100, 1000}, {0, 0, 0}, {10, 100, 20}));
  EXPECT_DOUBLE_EQ(g.df, 1.0 / 100 / 5);
  // Nyquist per object: 0.5, 0.5, 25 -> median 0.5 -> fmax 2.5
  EXPECT_NEAR(g.last(), 2.5, g.df);
}

TEST(FrequencyGrid, RejectsBadRequests) {
  GridRequest r;
  r.fmin = 2;
  r.fmax = 1;
  r.n_freq = 10;
  EXPECT_THROW(make_frequency_grid(r, {}), UsageError);  // fmin >= fmax
  r.fmax = 2;
  EXPECT_THROW(make_frequency_grid(r, {}), UsageError);  // fmin == fmax
  r.fmax = 3;
  r.n_freq = 0;
  EXPECT_THROW(make_frequency_grid(r, {}), UsageError);  // N_f <= 0
  r.n_freq = -5;
  EXPECT_THROW(make_frequency_grid(r, {}), UsageError);
  r.n_freq = 10;
  r.fmin = 0;
  EXPECT_THROW(make_frequency_grid(r, {}), UsageError);  // zero frequency
  GridRequest only_n;
  only_n.n_freq = 10;
  EXPECT_THROW(make_frequency_grid(only_n, {}), UsageError);
  GridRequest none;
  EXPECT_THROW(make_frequency_grid(none, index_of({1}, {5.0}, {5.0})), UsageError);  // no baseline
}

}  // namespace
}  // namespace astrosweep::period
