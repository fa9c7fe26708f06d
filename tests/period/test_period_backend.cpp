// The OpenMP backend end to end on blocks: known answers on the bundled real data, FP32 against
// FP64, batched against parallel-over-frequency evaluation, statuses, periodogram streaming.
#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include "period_backend.hpp"
#include "period_backend_openmp.hpp"
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
  auto backend = make_openmp_backend(options);
  std::vector<ObjectResult> results(block.n_objects());
  search_block(*backend, block, c, results, sink);
  return results;
}

TEST(PeriodBackend, Ida243GivesTheLightCurvePeriod) {
  const auto block = test::light_curves("ztf_243ida_r.csv");
  for (Model model : {Model::standard, Model::generalized})
    for (Precision p : {Precision::fp64, Precision::fp32}) {
      const auto r = run(block, paper_grid(model, p));
      EXPECT_NEAR(r[0].best_period * 24, 2.317, 0.0005) << name_of(model) << " " << name_of(p);
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
  options.memory_budget = 300000;  // forces several passes
  auto backend = make_openmp_backend(options);
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
  EXPECT_TRUE(r[4].status & status_bad_errors_removed);
  EXPECT_EQ(r[4].n_points, 4u);
  EXPECT_TRUE(std::isfinite(r[4].best_frequency));
}

}  // namespace
}  // namespace astrosweep::period
