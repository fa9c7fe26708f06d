// Cleaning and statuses: nothing a user gave disappears without a count.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "prepared_series.hpp"

namespace astrosweep::period {
namespace {
const double nan = std::numeric_limits<double>::quiet_NaN();
const double inf = std::numeric_limits<double>::infinity();

TEST(PreparedSeries, DropsAndCountsNonFiniteValues) {
  std::vector<double> t{1, 2, nan, 4, 5, 6}, y{1, inf, 3, 2, 5, 1}, dy{1, 1, 1, 1, 1, 1};
  const auto s = prepare_series(t, y, dy, Model::generalized);
  EXPECT_EQ(s.n_used(), 4u);
  EXPECT_EQ(s.n_nonfinite, 2u);
  EXPECT_EQ(s.cleaned, cleaned_nonfinite);
  EXPECT_EQ(s.status, status_ok);  // cleaned, and still a valid series
  EXPECT_TRUE(s.computable());
}

TEST(PreparedSeries, DropsNonPositiveErrorsOnlyInGeneralizedModel) {
  std::vector<double> t{1, 2, 3, 4, 5}, y{1, 2, 3, 2, 5}, dy{1, -1, 0, 1, 1};
  const auto g = prepare_series(t, y, dy, Model::generalized);
  EXPECT_EQ(g.n_bad_errors, 2u);
  EXPECT_EQ(g.cleaned, cleaned_bad_errors);
  EXPECT_EQ(g.status, status_too_few_points);                // 3 left: not a periodogram, whatever was cleaned
  const auto s = prepare_series(t, y, dy, Model::standard);  // errors are not used there
  EXPECT_EQ(s.n_bad_errors, 0u);
  EXPECT_EQ(s.n_used(), 5u);
}

TEST(PreparedSeries, TooFewPoints) {
  for (std::size_t n : {0u, 1u, 2u, 3u}) {  // 3 points fit a sinusoid and a mean exactly
    std::vector<double> t(n, 1.0), y(n, 2.0);
    for (std::size_t j = 0; j < n; ++j) t[j] = static_cast<double>(j);
    const auto s = prepare_series(t, y, {}, Model::standard);
    EXPECT_TRUE(s.status & status_too_few_points) << n;
    EXPECT_FALSE(s.computable());
  }
  std::vector<double> t{nan, nan, nan, nan}, y{1, 2, 3, 4};
  const auto all_nan = prepare_series(t, y, {}, Model::standard);
  EXPECT_TRUE(all_nan.status & status_too_few_points);
  EXPECT_EQ(all_nan.n_nonfinite, 4u);
}

TEST(PreparedSeries, ZeroVariance) {
  std::vector<double> t{1, 2, 3, 4}, y{5.5, 5.5, 5.5, 5.5};
  const auto s = prepare_series(t, y, {}, Model::generalized);
  EXPECT_TRUE(s.status & status_zero_variance);
  EXPECT_FALSE(s.computable());
}

TEST(PreparedSeries, ShiftsTimesAndNormalisesWeights) {
  std::vector<double> t{2458000.1, 2458003.2, 2458006.0, 2458010.7}, y{1, 3, 2.5, 2}, dy{0.1, 0.2, 0.5, 0.4};
  const auto s = prepare_series(t, y, dy, Model::generalized);
  EXPECT_DOUBLE_EQ(s.t_ref, 0.5 * (2458000.1 + 2458010.7));
  EXPECT_NEAR(s.baseline, 10.6, 1e-9);
  double wsum = 0, ymean = 0;
  for (std::size_t j = 0; j < 4; ++j) {
    wsum += s.w[j];
    ymean += s.w[j] * s.y[j];
  }
  EXPECT_NEAR(wsum, 1.0, 1e-15);
  EXPECT_NEAR(ymean, 0.0, 1e-15);
  EXPECT_NEAR(s.psd_scale, 100 + 25 + 4 + 6.25, 1e-12);
}

// Fluxes and errors of any magnitude a double holds: scaled by an exact power of two, so the
// weights, the normalised powers and the psd normalisation are those of ordinary values.
TEST(PreparedSeries, ExtremeMagnitudesAreScaledExactly) {
  const std::vector<double> t{0, 0.7, 1.9, 2.2, 3.1, 4.6}, y{1, 3, 2.5, 2, -1, 0.5}, dy{0.1, 0.2, 0.5, 0.4, 0.3, 0.1};
  const auto base = prepare_series(t, y, dy, Model::generalized);
  for (int e : {-1000, -300, 300, 1000}) {
    std::vector<double> ys(y.size()), dys(dy.size());
    for (std::size_t j = 0; j < y.size(); ++j) {
      ys[j] = std::ldexp(y[j], e);
      dys[j] = std::ldexp(dy[j], e);
    }
    const auto s = prepare_series(t, ys, dys, Model::generalized);
    ASSERT_TRUE(s.computable()) << e;
    EXPECT_EQ(s.w, base.w) << e;  // the same bits
    // y and yy scaled alike (a power of two), psd_scale compensating: psd powers equal too.
    const double ratio = s.yy / base.yy;
    EXPECT_EQ(ratio, std::ldexp(1.0, std::ilogb(ratio))) << e;
    for (std::size_t j = 0; j < y.size(); ++j) EXPECT_EQ(s.y[j], base.y[j] * std::sqrt(ratio)) << e;
    EXPECT_EQ(s.psd_scale * ratio, base.psd_scale) << e;
  }
}

}  // namespace
}  // namespace astrosweep::period
