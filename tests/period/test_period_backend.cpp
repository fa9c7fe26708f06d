// The OpenMP backend end to end on blocks: known answers on the bundled real data, FP32 against
// FP64, batched against parallel-over-frequency evaluation, statuses, periodogram streaming; the
// fast method against the direct one, its batch and alone paths, auto's per-object choice.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <random>

#include "lomb_scargle_fast.hpp"
#include "period_backend.hpp"
#include "period_backend_cpu.hpp"
#include "test_data.hpp"

namespace astrosweep::period {
namespace {

PeriodConfig paper_grid(Model model, Precision precision) {
  PeriodConfig c;
  c.grid = {0.5, 23.5 / 1e5, 100000};  // f in [0.5, 24) 1/day, the known answers' grid
  c.model = model;
  c.precision = precision;
  return c;
}

std::vector<ObjectResult> run(const io::LightCurveBlock& block, const PeriodConfig& c, int threads = 2,
                              PeriodogramSink* sink = nullptr) {
  BackendOptions options;
  options.threads = threads;
  auto backend = make_period_backend_cpu(options);
  std::vector<ObjectResult> results(block.n_objects());
  search_block(*backend, block, c, results, sink);
  return results;
}

TEST(PeriodBackend, Ida243GivesTheLightCurvePeriod) {
  const auto block = test::light_curves("ztf_243ida_r.csv");
  for (Model model : {Model::standard, Model::generalized})
    for (Precision p : {Precision::fp64, Precision::fp32}) {
      const auto r = run(block, paper_grid(model, p));
      EXPECT_NEAR(r[0].best_period * 24, 2.317, 0.0005) << to_string(model) << " " << to_string(p);
      EXPECT_EQ(r[0].status, 0u);
      EXPECT_EQ(r[0].n_points, 29u);
    }
}

TEST(PeriodBackend, Synthetic8205GivesItsPeriod) {
  const auto block = test::light_curves("synthetic_8205.csv");
  const auto r = run(block, paper_grid(Model::generalized, Precision::fp64));
  EXPECT_NEAR(r[0].best_period * 24, 13.55, 0.005);
  EXPECT_LT(r[0].fap, 1e-10);
}

TEST(PeriodBackend, Fp32GivesTheSameBestPeriodsAsFp64OnSdss) {
  const auto block = test::light_curves("sdss_stripe82_z.csv");
  for (Model model : {Model::standard, Model::generalized}) {
    const auto r64 = run(block, paper_grid(model, Precision::fp64));
    const auto r32 = run(block, paper_grid(model, Precision::fp32));
    double sum64 = 0, sum32 = 0;
    for (std::size_t i = 0; i < r64.size(); ++i) {
      EXPECT_EQ(r32[i].best_frequency, r64[i].best_frequency) << "object " << r64[i].id;
      EXPECT_NEAR(r32[i].best_power, r64[i].best_power, 1e-4 * r64[i].best_power);
      sum64 += r64[i].best_period;
      sum32 += r32[i].best_period;
    }
    EXPECT_EQ(sum32, sum64);
  }
}

TEST(PeriodBackend, SingleThreadBatchEqualsParallelOverFrequencies) {
  // One long object among short ones: with several threads it runs parallel over frequencies,
  // with one thread in the batch path; the results must be the same bytes.
  auto block = test::light_curves("sdss_stripe82_z.csv");
  const auto long_one = test::light_curves("synthetic_8205.csv");
  block.append(8205, long_one.t, long_one.y, long_one.dy);
  auto c = paper_grid(Model::generalized, Precision::fp64);
  c.grid.n = 200000;  // several chunks
  const auto one = run(block, c, 1);
  const auto many = run(block, c, 2);
  for (std::size_t i = 0; i < one.size(); ++i) {
    EXPECT_EQ(one[i].best_frequency, many[i].best_frequency);
    EXPECT_EQ(one[i].best_power, many[i].best_power);
    EXPECT_EQ(one[i].peak_power, many[i].peak_power);
  }
}

class CapturingSink : public PeriodogramSink {
 public:
  explicit CapturingSink(std::uint64_t n) : n_(n) {}
  void write(std::uint64_t object, std::uint64_t k0, std::uint64_t n, const void* values) override {
    auto& row = rows[object];
    row.resize(n_, -1);
    std::copy_n(static_cast<const double*>(values), n, row.begin() + static_cast<std::ptrdiff_t>(k0));
  }
  std::map<std::uint64_t, std::vector<double>> rows;

 private:
  std::uint64_t n_;
};

TEST(PeriodBackend, StreamsPeriodogramsWithinTheMemoryBudget) {
  const auto block = test::light_curves("synthetic_8205.csv");
  auto c = paper_grid(Model::standard, Precision::fp64);
  c.grid.n = 100003;  // not a multiple of any chunk or panel
  c.keep_periodograms = true;
  BackendOptions options;
  options.threads = 2;
  options.host_memory_budget = 300000;  // forces several passes
  auto backend = make_period_backend_cpu(options);
  std::vector<ObjectResult> results(1);
  CapturingSink sink(c.grid.n);
  search_block(*backend, block, c, results, &sink);
  ASSERT_EQ(sink.rows.size(), 1u);
  const auto& row = sink.rows[0];
  const auto best = std::max_element(row.begin(), row.end());
  EXPECT_EQ(*best, results[0].best_power);
  EXPECT_EQ(c.grid.at(static_cast<std::uint64_t>(best - row.begin())), results[0].best_frequency);
  EXPECT_EQ(std::count(row.begin(), row.end(), -1.0), 0);
}

TEST(PeriodBackend, UncomputableObjectsGetAStatusNotACrash) {
  io::LightCurveBlock block;
  block.append(1, {1.0}, {2.0}, {0.1});                                                     // one point
  block.append(2, {1.0, 2.0, 3.0, 4.0}, {5.0, 5.0, 5.0, 5.0}, {1, 1, 1, 1});                // constant
  block.append(3, {std::nan(""), std::nan(""), std::nan("")}, {1.0, 2.0, 3.0}, {1, 1, 1});  // only NaN times
  block.append(4, {}, {}, {});                                                              // empty
  block.append(5, {1.0, 2.0, 3.5, 4.0, 6.0}, {1.0, 3.0, 2.0, 5.0, 1.0}, {1, 1, 1, -1, 1});
  const auto r = run(block, paper_grid(Model::generalized, Precision::fp64));
  EXPECT_TRUE(r[0].status & status_too_few_points);
  EXPECT_TRUE(r[1].status & status_zero_variance);
  EXPECT_TRUE(r[2].status & status_too_few_points);
  EXPECT_EQ(r[2].n_nonfinite, 3u);
  EXPECT_TRUE(r[3].status & status_too_few_points);
  for (int i = 0; i < 4; ++i) EXPECT_TRUE(std::isnan(r[i].best_frequency));
  EXPECT_EQ(r[4].cleaned, cleaned_bad_errors);
  EXPECT_EQ(r[4].status, status_ok);
  EXPECT_EQ(r[4].n_points, 4u);
  EXPECT_TRUE(std::isfinite(r[4].best_frequency));
}

// A real TESS/Kepler object has NaN fluxes and flagged cadences removed, and a valid result: the
// cleaning goes to `cleaned`, and `status` stays 0 so that keeping status == 0 keeps it.
TEST(PeriodBackend, CleanedObjectIsValid) {
  io::LightCurveBlock block;
  std::vector<double> t, y, dy;
  for (int j = 0; j < 200; ++j) {
    t.push_back(0.13 * j);
    y.push_back(j % 50 == 7 ? std::nan("") : std::sin(2 * M_PI * t.back() / 1.7));
    dy.push_back(0.1);
  }
  block.append(1, t, y, dy, /*flagged=*/12);
  block.append(2, t, std::vector<double>(t.size(), 1.0), dy);  // constant: cleaned nothing, not valid
  const auto r = run(block, paper_grid(Model::generalized, Precision::fp64));
  EXPECT_EQ(r[0].status, status_ok);
  EXPECT_EQ(r[0].cleaned, cleaned_nonfinite | cleaned_flagged);
  EXPECT_EQ(r[0].n_nonfinite, 4u);
  EXPECT_EQ(r[0].n_flagged, 12u);
  EXPECT_TRUE(std::isfinite(r[0].best_frequency));
  EXPECT_EQ(r[1].status, status_zero_variance);
  EXPECT_EQ(r[1].cleaned, cleaned_nothing);
}

// --- the fast method (--method fast / auto) ---

PeriodConfig fast_config(Model model, Precision precision, Method method = Method::fast) {
  auto c = paper_grid(model, precision);
  c.method = method;
  return c;
}

void expect_same_results(const std::vector<ObjectResult>& a, const std::vector<ObjectResult>& b,
                         const std::string& what) {
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].best_frequency, b[i].best_frequency) << what << " object " << a[i].id;
    EXPECT_EQ(a[i].best_power, b[i].best_power) << what << " object " << a[i].id;
    EXPECT_EQ(a[i].peak_frequency, b[i].peak_frequency) << what << " object " << a[i].id;
    EXPECT_EQ(a[i].peak_power, b[i].peak_power) << what << " object " << a[i].id;
    EXPECT_EQ(a[i].fap, b[i].fap) << what << " object " << a[i].id;
  }
}

TEST(PeriodBackendFast, AgreesWithDirectOnTheBundledCatalogs) {
  // Every object's best frequency as the direct FP64 method finds it, its power within 1e-8 (FP64)
  // or 1e-5 (FP32) of it, in both models, on a grid of 2*10^4 frequencies over the paper's range.
  auto block = test::light_curves("sdss_stripe82_z.csv");
  for (const char* file : {"synthetic_8205.csv", "ztf_243ida_r.csv"}) {
    const auto one = test::light_curves(file);
    block.append(one.ids[0], one.t, one.y, one.dy.empty() ? std::vector<double>(one.t.size(), 1.0) : one.dy);
  }
  for (Model model : {Model::standard, Model::generalized}) {
    auto direct = paper_grid(model, Precision::fp64);
    direct.grid = {0.5, 23.5 / 2e4, 20000};
    const auto ref = run(block, direct);
    for (Precision p : {Precision::fp64, Precision::fp32}) {
      auto c = direct;
      c.precision = p;
      c.method = Method::fast;
      const auto r = run(block, c);
      const double tol = p == Precision::fp64 ? 1e-8 : 1e-5;
      for (std::size_t i = 0; i < r.size(); ++i) {
        const std::string what =
            std::string(to_string(model)) + " " + to_string(p) + " object " + std::to_string(r[i].id);
        EXPECT_EQ(r[i].status, ref[i].status) << what;
        EXPECT_EQ(r[i].best_frequency, ref[i].best_frequency) << what;
        EXPECT_NEAR(r[i].best_power, ref[i].best_power, tol * ref[i].best_power) << what;
      }
    }
  }
}

TEST(PeriodBackendFast, BatchAndAloneGiveIdenticalBytes) {
  // A heterogeneous block: 10-point curves and one of 10^5 points. With several threads the long
  // one runs alone (its pieces' transforms in parallel, or spread by all threads), with one
  // thread in the batch: same bytes.
  io::LightCurveBlock block;
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> u(0, 1);
  auto object = [&](std::int64_t id, int n, double period) {
    std::vector<double> t, y, dy;
    for (int j = 0; j < n; ++j) {
      t.push_back(59000 + 1400 * u(rng));
      y.push_back(std::sin(2 * M_PI * t.back() / period) + 0.3 * (u(rng) - 0.5));
      dy.push_back(0.1 + 0.1 * u(rng));
    }
    block.append(id, t, y, dy);
  };
  for (int i = 0; i < 6; ++i) object(i, 10, 0.7 + 0.1 * i);
  object(99, 100000, 0.4321);
  for (Precision p : {Precision::fp64, Precision::fp32}) {
    auto c = fast_config(Model::generalized, p);
    c.grid = {0.5, 1e-5, 3 * 131072 + 17};  // several pieces for the long object: their sums in parallel
    const auto one = run(block, c, 1);
    const auto two = run(block, c, 2);
    expect_same_results(one, two, to_string(p));
    EXPECT_NEAR(two.back().best_period, 0.4321, 1e-4);
    // One piece: its three sums one after another, each spread by four threads.
    c.grid = {2.0, 1e-5, 50000};
    expect_same_results(run(block, c, 1), run(block, c, 4), std::string(to_string(p)) + " one piece");
  }
}

TEST(PeriodBackendFast, AutoTakesEachObjectsCheaperMethod) {
  // The 3,555-point object goes fast and SDSS's short curves direct on the paper grid: auto gives
  // each the bytes of the method it picks, whatever the block around it.
  auto block = test::light_curves("sdss_stripe82_z.csv");
  const auto long_one = test::light_curves("synthetic_8205.csv");
  block.append(8205, long_one.t, long_one.y, long_one.dy);
  auto c = fast_config(Model::generalized, Precision::fp64, Method::automatic);
  c.grid.n = 30000;
  const auto automatic = run(block, c);
  c.method = Method::fast;
  const auto fast = run(block, c);
  c.method = Method::direct;
  const auto direct = run(block, c);
  for (std::size_t i = 0; i < block.n_objects(); ++i) {
    const Method m = choose_method<double>(Method::automatic, block.counts[i], c.grid, c.model);
    const auto& expected = m == Method::fast ? fast[i] : direct[i];
    EXPECT_EQ(automatic[i].best_power, expected.best_power) << "object " << block.ids[i];
    EXPECT_EQ(automatic[i].peak_power, expected.peak_power) << "object " << block.ids[i];
  }
  EXPECT_EQ(choose_method<double>(Method::automatic, 3555, c.grid, c.model), Method::fast);
  EXPECT_EQ(choose_method<double>(Method::automatic, 14, c.grid, c.model), Method::direct);
}

TEST(PeriodBackendFast, StreamsPeriodogramsWithinTheMemoryBudget) {
  // The long object alone, in passes of pieces that the small budget forces, and in the batch:
  // the same rows, and the best peak is the row's maximum.
  auto block = test::light_curves("synthetic_8205.csv");
  auto c = fast_config(Model::standard, Precision::fp64);
  c.grid = {0.5, 1e-5, 4 * 65536 + 3};
  c.keep_periodograms = true;
  std::vector<std::vector<double>> rows;
  for (int threads : {1, 2}) {
    BackendOptions options;
    options.threads = threads;
    options.host_memory_budget = 300000;
    auto backend = make_period_backend_cpu(options);
    std::vector<ObjectResult> results(1);
    CapturingSink sink(c.grid.n);
    search_block(*backend, block, c, results, &sink);
    ASSERT_EQ(sink.rows.size(), 1u);
    const auto& row = sink.rows[0];
    EXPECT_EQ(std::count(row.begin(), row.end(), -1.0), 0);
    const auto best = std::max_element(row.begin(), row.end());
    EXPECT_EQ(*best, results[0].best_power);
    EXPECT_EQ(c.grid.at(static_cast<std::uint64_t>(best - row.begin())), results[0].best_frequency);
    rows.push_back(row);
  }
  EXPECT_EQ(rows[0], rows[1]);
}

TEST(PeriodBackendFast, UncomputableAndAbsurdObjectsAsWithDirect) {
  io::LightCurveBlock block;
  block.append(1, {1.0}, {2.0}, {0.1});
  block.append(2, {1.0, 2.0, 3.0, 4.0}, {5.0, 5.0, 5.0, 5.0}, {1, 1, 1, 1});
  block.append(3, {1.0, 2.0, 3.5, 4.0, 6.0}, {1.0, 3.0, 2.0, 5.0, 1.0}, {1, 1, 1, -1, 1});
  std::vector<double> t, y, e;
  for (int k = 0; k < 40; ++k) {
    t.push_back(0.37 * k);
    y.push_back(1e300 * std::sin(2 * M_PI * 0.37 * k / 1.3));
    e.push_back(0.05);
  }
  block.append(4, t, y, e);
  for (Normalization n : {Normalization::standard, Normalization::psd}) {
    auto c = fast_config(Model::generalized, Precision::fp64);
    c.grid = {0.5, 23.5 / 1e3, 1000};
    c.normalization = n;
    const auto fast = run(block, c);
    c.method = Method::direct;
    const auto direct = run(block, c);
    for (std::size_t i = 0; i < fast.size(); ++i) {
      EXPECT_EQ(fast[i].status, direct[i].status) << "object " << fast[i].id << " " << to_string(n);
      EXPECT_EQ(std::isnan(fast[i].best_frequency), std::isnan(direct[i].best_frequency)) << "object " << fast[i].id;
      if (fast[i].status == 0) {
        EXPECT_EQ(fast[i].best_frequency, direct[i].best_frequency) << "object " << fast[i].id;
      }
    }
  }
}

// Absurd magnitudes: every result is finite or carries a bit saying why not, in every precision.
TEST(PeriodBackend, AbsurdValuesGiveFiniteResultsOrAStatus) {
  io::LightCurveBlock block;
  auto object = [&](std::int64_t id, double t_scale, double y_scale, double dy, double outlier_time = NAN) {
    std::vector<double> t, y, e;
    for (int k = 0; k < 40; ++k) {
      t.push_back(k == 5 && !std::isnan(outlier_time) ? outlier_time : 0.37 * k * t_scale);
      y.push_back(y_scale * std::sin(2 * M_PI * 0.37 * k / 1.3));
      e.push_back(dy);
    }
    block.append(id, t, y, e);
  };
  object(1, 1, 1, 0.05);         // ordinary
  object(2, 1, 1e300, 0.05);     // 1e300 fluxes
  object(3, 1, 1, 1e300);        // 1e300 errors
  object(4, 1, 1, 1e-300);       // 1e-300 errors
  object(5, 1, 1e300, 1e300);    // both
  object(6, 1, 1, 0.05, 1e300);  // one time of 1e300 days
  object(7, 1e300, 1, 0.05);     // times in units of 1e300 days
  for (Normalization n : {Normalization::standard, Normalization::psd})
    for (Precision p : {Precision::fp64, Precision::fp32}) {
      auto c = paper_grid(Model::generalized, p);
      c.grid = {0.5, 23.5 / 1e3, 1000};
      c.normalization = n;
      const auto r = run(block, c);
      const std::string what = std::string(to_string(n)) + " " + to_string(p);
      for (const auto& o : r) {
        const bool finite = std::isfinite(o.best_frequency) && std::isfinite(o.best_power) && o.best_power > 0;
        EXPECT_TRUE(finite || (o.status & (status_time_span_out_of_range | status_power_out_of_range)))
            << what << " object " << o.id;
        if (!finite) {
          EXPECT_TRUE(std::isnan(o.best_frequency) && std::isnan(o.fap)) << what << " object " << o.id;
        }
      }
      // Scaled fluxes and errors find the ordinary object's period.
      for (int i : {1, 2, 3, 4}) {
        if (!(r[i].status & status_power_out_of_range)) {
          EXPECT_EQ(r[i].best_frequency, r[0].best_frequency) << what;
        }
        if (n == Normalization::standard) {
          EXPECT_EQ(r[i].status, 0u) << what << " object " << r[i].id;
        }
      }
      EXPECT_EQ(r[5].status, status_time_span_out_of_range) << what;
      EXPECT_EQ(r[6].status, status_time_span_out_of_range) << what;
      EXPECT_EQ(r[5].n_points, 40u);
      EXPECT_TRUE(std::isnan(r[5].t_ref));
    }
}

// The phase-precision limit depends on the grid: times of 1e8 days are fine up to 1 cycle/day
// and beyond it at 1e3 cycles/day.
TEST(PeriodBackend, TimeSpanLimitFollowsTheGrid) {
  io::LightCurveBlock block;
  std::vector<double> t, y;
  for (int k = 0; k < 40; ++k) {
    t.push_back(1e8 / 39 * k);
    y.push_back(std::sin(k * 1.3));
  }
  block.append(1, t, y, {});
  auto c = paper_grid(Model::standard, Precision::fp64);
  c.grid = {1e-3, 1e-6, 1000};
  EXPECT_EQ(run(block, c)[0].status & status_time_span_out_of_range, 0u);
  c.grid = {1e3, 1e-6, 1000};
  EXPECT_NE(run(block, c)[0].status & status_time_span_out_of_range, 0u);
}

}  // namespace
}  // namespace astrosweep::period
