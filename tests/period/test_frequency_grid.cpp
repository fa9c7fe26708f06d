// The run's frequency grid: explicit, from periods, automatic (astropy's autofrequency), and the
// bad requests the issue names.
#include <gtest/gtest.h>

#include <cmath>

#include "core/error.hpp"
#include "frequency_grid.hpp"

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

TEST(FrequencyGrid, AutomaticFollowsAstropyForOneObject) {
  // astropy: df = 1/(T spp), fmin = df/2, fmax = nyquist_factor * N/(2T), Nf = 1 + round((fmax-fmin)/df)
  GridRequest r;
  const auto g = make_frequency_grid(r, index_of({100}, {10.0}, {60.0}));
  const double df = 1.0 / 50 / 5;
  EXPECT_DOUBLE_EQ(g.df, df);
  EXPECT_DOUBLE_EQ(g.f0, 0.5 * df);
  const double fmax = 5 * 0.5 * 100 / 50;
  EXPECT_EQ(g.n, 1 + static_cast<std::uint64_t>(std::llround((fmax - 0.5 * df) / df)));
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
