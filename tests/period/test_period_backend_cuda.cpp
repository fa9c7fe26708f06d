// The CUDA backend against the OpenMP backend (itself tested against the double reference and
// astropy): periodograms, best peaks, top-k peaks and FAP in every model, normalisation and
// precision, on the bundled real catalogs and on synthetic edge cases. Skips without a GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "core/error.hpp"
#include "device.hpp"
#include "period_backend.hpp"
#include "period_backend_cpu.hpp"
#include "test_data.hpp"

namespace astrosweep::period {
namespace {

class Collect final : public PeriodogramSink {
 public:
  Collect(std::size_t objects, std::uint64_t n_freq, Precision p) : rows(objects), n(n_freq), precision(p) {}
  void write(std::uint64_t object, std::uint64_t k0, std::uint64_t count, const void* values) override {
    auto& row = rows.at(object);
    row.resize(n, std::nan(""));
    for (std::uint64_t i = 0; i < count; ++i)
      row.at(k0 + i) = precision == Precision::fp32 ? static_cast<double>(static_cast<const float*>(values)[i])
                                                    : static_cast<const double*>(values)[i];
  }
  std::vector<std::vector<double>> rows;
  std::uint64_t n;
  Precision precision;
};

struct Outcome {
  std::vector<ObjectResult> results;
  std::vector<std::vector<double>> rows;
};

Outcome run(BackendKind kind, const io::LightCurveBlock& block, const PeriodConfig& c, bool periodograms,
            std::uint64_t device_budget = 0) {
  BackendOptions options;
  options.kind = kind;
  options.device_memory_budget = device_budget;
  auto backend = make_period_backend(options);
  Outcome o;
  o.results.resize(block.n_objects());
  Collect sink(block.n_objects(), c.grid.n, c.precision);
  search_block(*backend, block, c, o.results, periodograms ? &sink : nullptr);
  o.rows = std::move(sink.rows);
  return o;
}

PeriodConfig config(Model model, Precision precision, std::uint64_t n_freq = 100000,
                    Normalization norm = Normalization::standard) {
  PeriodConfig c;
  c.grid = {0.5, 23.5 / static_cast<double>(n_freq), n_freq};
  c.model = model;
  c.precision = precision;
  c.normalization = norm;
  c.top_k = 3;
  return c;
}

// FP64: the backends differ only in summation order and the phase recurrence, far below 1e-9 of a
// peak. FP32: the recurrence and sums in single precision, bounded like the CPU kernel's.
double tolerance(Precision p) { return p == Precision::fp64 ? 1e-9 : 2e-4; }

void expect_same(const Outcome& cpu, const Outcome& gpu, const PeriodConfig& c, const std::string& what) {
  const double tol = tolerance(c.precision);
  ASSERT_EQ(cpu.results.size(), gpu.results.size());
  for (std::size_t i = 0; i < cpu.results.size(); ++i) {
    const auto& a = cpu.results[i];
    const auto& b = gpu.results[i];
    const std::string where = what + " object " + std::to_string(a.id);
    EXPECT_EQ(a.status, b.status) << where;
    EXPECT_EQ(a.cleaned, b.cleaned) << where;
    EXPECT_EQ(a.n_points, b.n_points) << where;
    if (std::isnan(a.best_power)) {
      EXPECT_TRUE(std::isnan(b.best_power)) << where;
      continue;
    }
    // Ill-conditioned cases where both backends return rounding noise shaped by the arithmetic:
    // the generalized model fits 3 points exactly (power 1 at every frequency), and in FP32 its
    // 3-parameter fit to fewer than 16 points amplifies rounding (the CPU kernel's own tests use
    // 5e-3 there). Compare only what is defined.
    if (c.model == Model::generalized && c.precision == Precision::fp64 && a.n_points == 3) {
      EXPECT_NEAR(b.best_power, 1.0, 1e-3) << where;
      continue;
    }
    if (c.model == Model::generalized && c.precision == Precision::fp32 && a.n_points < 16) {
      EXPECT_NEAR(b.best_power, a.best_power, 0.1 * std::abs(a.best_power)) << where;
      continue;
    }
    EXPECT_NEAR(b.best_power, a.best_power, tol * std::abs(a.best_power)) << where;
    if (c.precision == Precision::fp64) {
      EXPECT_EQ(b.best_frequency, a.best_frequency) << where;
      EXPECT_NEAR(b.fap, a.fap, 1e-6 * std::max(a.fap, 1e-300) + 1e-300) << where;
      for (int k = 0; k < c.top_k; ++k)
        if (!std::isnan(a.peak_frequency[k])) {
          EXPECT_EQ(b.peak_frequency[k], a.peak_frequency[k]) << where;
        }
    }
    if (!cpu.rows.empty() && !cpu.rows[i].empty()) {
      ASSERT_EQ(gpu.rows[i].size(), cpu.rows[i].size()) << where;
      double worst = 0;
      for (std::size_t k = 0; k < cpu.rows[i].size(); ++k)
        worst = std::max(worst, std::abs(gpu.rows[i][k] - cpu.rows[i][k]));
      EXPECT_LE(worst, tol * std::abs(a.best_power)) << where << " (largest periodogram difference)";
    }
  }
}

class CudaBackend : public ::testing::Test {
 protected:
  void SetUp() override {
    if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  }
};

void compare(const io::LightCurveBlock& block, const PeriodConfig& c, const std::string& what, bool rows = true,
             std::uint64_t device_budget = 0) {
  const auto cpu = run(BackendKind::cpu, block, c, rows);
  const auto gpu = run(BackendKind::cuda, block, c, rows, device_budget);
  expect_same(cpu, gpu, c,
              what + " " + to_string(c.model) + " " + to_string(c.precision) + " " + to_string(c.normalization));
}

TEST_F(CudaBackend, RealCatalogsInEveryModelAndPrecision) {
  for (const char* file : {"ztf_243ida_r.csv", "synthetic_8205.csv", "sdss_stripe82_z.csv"}) {
    const auto block = test::light_curves(file);
    for (Model m : {Model::standard, Model::generalized})
      for (Precision p : {Precision::fp64, Precision::fp32}) compare(block, config(m, p), file);
  }
}

TEST_F(CudaBackend, EveryNormalization) {
  const auto block = test::light_curves("sdss_stripe82_z.csv");
  for (Normalization n : {Normalization::standard, Normalization::model, Normalization::log, Normalization::psd})
    for (Precision p : {Precision::fp64, Precision::fp32})
      compare(block, config(Model::generalized, p, 30000, n), "sdss");
}

TEST_F(CudaBackend, Fp32GivesTheBestPeriodsOfFp64OnSdss) {
  const auto block = test::light_curves("sdss_stripe82_z.csv");
  for (Model m : {Model::standard, Model::generalized}) {
    const auto r64 = run(BackendKind::cpu, block, config(m, Precision::fp64), false).results;
    const auto r32 = run(BackendKind::cuda, block, config(m, Precision::fp32), false).results;
    double sum64 = 0, sum32 = 0;
    for (std::size_t i = 0; i < r64.size(); ++i) {
      EXPECT_EQ(r32[i].best_frequency, r64[i].best_frequency) << "object " << r64[i].id;
      sum64 += r64[i].best_period;
      sum32 += r32[i].best_period;
    }
    EXPECT_EQ(sum32, sum64);
  }
}

io::LightCurveBlock synthetic(const std::vector<std::size_t>& lengths, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0, 1);
  io::LightCurveBlock block;
  std::int64_t id = 1;
  for (std::size_t n : lengths) {
    std::vector<double> t(n), y(n), dy(n);
    const double period = 0.1 + 2 * u(rng);
    for (std::size_t j = 0; j < n; ++j) {
      t[j] = 58000 + 900 * u(rng);
      y[j] = 17 + 0.3 * std::sin(2 * M_PI * t[j] / period) + 0.05 * (u(rng) - 0.5);
      dy[j] = 0.01 + 0.04 * u(rng);
    }
    block.append(id++, t, y, dy);
  }
  return block;
}

TEST_F(CudaBackend, PointCountsAroundWarpTileAndBlockSizes) {
  // 1 and 2 points are not computable (NaN, status 8); 3 is the minimum; 32/33 a warp, 64/65 the
  // shared-memory tile, 128/129 the block.
  const auto block = synthetic({1, 2, 3, 4, 31, 32, 33, 63, 64, 65, 127, 128, 129, 1000}, 7);
  for (Model m : {Model::standard, Model::generalized})
    for (Precision p : {Precision::fp64, Precision::fp32}) compare(block, config(m, p, 20000), "edge counts");
}

TEST_F(CudaBackend, OneObjectAndGridsThatAreNotBlockMultiples) {
  const auto block = synthetic({500}, 11);
  for (std::uint64_t n_freq : {1ULL, 2ULL, 3ULL, 1000ULL, 1025ULL, 2049ULL, 32767ULL, 32769ULL, 70001ULL})
    for (Precision p : {Precision::fp64, Precision::fp32})
      compare(block, config(Model::generalized, p, n_freq), "N_f " + std::to_string(n_freq));
}

TEST_F(CudaBackend, ManyShortObjectsBesideOneVeryLong) {
  std::vector<std::size_t> lengths(300, 10);
  lengths[150] = 100000;
  const auto block = synthetic(lengths, 13);
  for (Precision p : {Precision::fp64, Precision::fp32})
    compare(block, config(Model::generalized, p, 40000), "10 x 300 + 1e5", false);
}

TEST_F(CudaBackend, PeriodogramsLargerThanTheDeviceBudget) {
  // A 16 MiB budget holds a few chunks per pass: objects split across passes, many passes.
  const auto block = synthetic({700, 40, 2000, 5}, 17);
  for (Precision p : {Precision::fp64, Precision::fp32})
    compare(block, config(Model::generalized, p, 300001), "small budget", true, 16ULL << 20);
}

TEST_F(CudaBackend, BudgetTooSmallIsARuntimeError) {
  const auto block = synthetic({100}, 19);
  try {
    run(BackendKind::cuda, block, config(Model::standard, Precision::fp64), false, 64 << 10);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::runtime);
    EXPECT_NE(std::string(e.what()).find("GPU memory budget"), std::string::npos) << e.what();
  }
}

TEST(CudaBackendSelection, AutoTakesTheGpuWhenThereIsOne) {
  BackendOptions options;
  auto backend = make_period_backend(options);
  const bool gpu = backend->describe().rfind("cuda", 0) == 0;
  EXPECT_EQ(gpu, cuda_device_count() > 0) << backend->describe();
}

}  // namespace
}  // namespace astrosweep::period
