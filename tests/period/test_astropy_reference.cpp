// Against astropy (values made by tools/make_astropy_reference.py, committed under
// tests/data/reference): periodograms in every normalisation, best frequencies and Baluev FAPs of
// all 136 SDSS Stripe 82 objects on the same grid.
#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include "false_alarm.hpp"
#include "lomb_scargle.hpp"
#include "period_backend.hpp"
#include "period_backend_cpu.hpp"
#include "prepared_series.hpp"
#include "test_data.hpp"

namespace astrosweep::period {
namespace {

const FrequencyGrid grid{0.5, 23.5 / 1e5, 100000};

std::map<std::string, test::Series> datasets() {
  std::map<std::string, test::Series> d;
  d["ida"] = test::object(test::light_curves("ztf_243ida_r.csv"), 0);
  d["s8205"] = test::object(test::light_curves("synthetic_8205.csv"), 0);
  const auto sdss = test::light_curves("sdss_stripe82_z.csv");
  for (std::size_t i : {0u, 49u, 135u}) d["sdss_" + std::to_string(sdss.ids[i])] = test::object(sdss, i);
  return d;
}

// astropy works on unshifted times: at JD 2.46e6 its own phases carry ~1e-8 relative error.
constexpr double power_tolerance = 2e-7;

TEST(AstropyReference, PeriodogramsInEveryNormalisation) {
  const auto data = datasets();
  const auto rows = test::read_table("reference/astropy_periodograms.csv");
  ASSERT_GT(rows.size(), 1000u);
  std::size_t checked = 0;
  for (const auto& row : rows) {
    const auto& s = data.at(row.at("dataset"));
    const Model model = parse_model(row.at("model"));
    const Normalization norm = parse_normalization(row.at("normalization"));
    const auto prepared = prepare_series(s.t, s.y, s.dy, model);
    const auto k = std::stoull(row.at("k"));
    const double expected = std::stod(row.at("power"));
    std::vector<double> ref(1);
    lomb_scargle_reference(prepared, grid, model, norm, k, ref);
    const CpuSeries<double> kernel(prepared, grid);
    std::vector<double> fast(1);
    lomb_scargle_cpu<double>(kernel, grid, model, norm, k, fast);
    const double tol = power_tolerance * std::max(1.0, std::abs(expected));
    EXPECT_NEAR(ref[0], expected, tol) << row.at("dataset") << " " << row.at("model") << " " << row.at("normalization")
                                       << " k=" << k;
    EXPECT_NEAR(fast[0], expected, tol) << row.at("dataset") << " " << row.at("model") << " " << row.at("normalization")
                                        << " k=" << k;
    ++checked;
  }
  EXPECT_EQ(checked, rows.size());
}

TEST(AstropyReference, BestPeriodsAndFapOfAllSdssObjects) {
  const auto block = test::light_curves("sdss_stripe82_z.csv");
  const auto rows = test::read_table("reference/astropy_best_sdss.csv");
  ASSERT_EQ(rows.size(), 2 * block.n_objects());
  for (Model model : {Model::standard, Model::generalized}) {
    for (Precision precision : {Precision::fp64, Precision::fp32}) {
      PeriodConfig c;
      c.grid = grid;
      c.model = model;
      c.precision = precision;
      BackendOptions options;
      options.threads = 2;
      auto backend = make_period_backend_cpu(options);
      std::vector<ObjectResult> results(block.n_objects());
      search_block(*backend, block, c, results, nullptr);
      std::size_t i = 0;
      for (const auto& row : rows) {
        if (row.at("model") != to_string(model)) continue;
        const auto& r = results[i++];
        ASSERT_EQ(std::to_string(r.id), row.at("id"));
        EXPECT_EQ(r.n_points, std::stoul(row.at("n_points")));
        EXPECT_EQ(r.best_frequency, grid.at(std::stoull(row.at("best_k"))))
            << "object " << r.id << " " << to_string(model) << " " << to_string(precision);
        const double tol = precision == Precision::fp64 ? power_tolerance : 1e-4;
        EXPECT_NEAR(r.best_power, std::stod(row.at("best_power")), tol * std::stod(row.at("best_power")));
        const double fap = std::stod(row.at("fap_baluev"));
        EXPECT_NEAR(r.fap, fap, (precision == Precision::fp64 ? 1e-6 : 1e-3) * fap + 1e-300) << "object " << r.id;
      }
    }
  }
}

TEST(AstropyReference, FalseAlarmProbabilityInEveryNormalisation) {
  const auto data = datasets();
  const auto rows = test::read_table("reference/astropy_fap.csv");
  ASSERT_GT(rows.size(), 10u);
  for (const auto& row : rows) {
    const auto& s = data.at(row.at("dataset"));
    const Model model = parse_model(row.at("model"));
    const auto prepared = prepare_series(s.t, s.y, s.dy, model);
    const double fap = false_alarm_baluev(std::stod(row.at("best_power")), prepared.n_used(), grid.last(),
                                          prepared.t_variance, parse_normalization(row.at("normalization")));
    const double expected = std::stod(row.at("fap_baluev"));
    // astropy takes the variance of unshifted times (mean(t^2) - mean(t)^2): at JD 2.46e6 that
    // cancellation costs it ~1e-6 relative; we use shifted times.
    EXPECT_NEAR(fap, expected, 1e-5 * std::abs(expected) + 1e-300)
        << row.at("dataset") << " " << row.at("model") << " " << row.at("normalization");
  }
}

}  // namespace
}  // namespace astrosweep::period
