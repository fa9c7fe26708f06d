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

// --- the fast method on the GPU ---

PeriodConfig fast(PeriodConfig c, Method method = Method::fast) {
  c.method = method;
  return c;
}

/// Largest |a - b| over a row, relative to the reference row's peak.
double row_error(const std::vector<double>& got, const std::vector<double>& ref) {
  double worst = 0;
  for (std::size_t k = 0; k < ref.size(); ++k) worst = std::max(worst, std::abs(got.at(k) - ref[k]));
  return worst / *std::max_element(ref.begin(), ref.end());
}

/// GPU fast against CPU direct FP64: every computable object's periodogram within `tol` of its
/// peak (1e-8 FP64, 1e-5 FP32: the accuracy), and the best frequency the same.
void expect_fast_matches_direct(const io::LightCurveBlock& block, PeriodConfig c, const std::string& what,
                                std::uint64_t device_budget = 0) {
  auto direct = c;
  direct.precision = Precision::fp64;
  direct.method = Method::direct;
  const auto ref = run(BackendKind::cpu, block, direct, true);
  const auto gpu = run(BackendKind::cuda, block, fast(c), true, device_budget);
  const double tol = c.precision == Precision::fp64 ? 1e-8 : 1e-5;
  for (std::size_t i = 0; i < block.n_objects(); ++i) {
    const std::string where = what + " " + to_string(c.model) + " " + to_string(c.precision) + " " +
                              to_string(c.normalization) + " object " + std::to_string(block.ids[i]);
    EXPECT_EQ(gpu.results[i].status, ref.results[i].status) << where;
    if (std::isnan(ref.results[i].best_power)) continue;
    // The generalized model's fit to 3 points is exact at every frequency (power 1 plus rounding).
    if (c.model == Model::generalized && ref.results[i].n_points <= 3) continue;
    EXPECT_LE(row_error(gpu.rows[i], ref.rows[i]), tol) << where;
    EXPECT_EQ(gpu.results[i].best_frequency, ref.results[i].best_frequency) << where;
  }
}

TEST_F(CudaBackend, FastMatchesDirectOnTheBundledCatalogs) {
  auto block = test::light_curves("sdss_stripe82_z.csv");
  for (const char* file : {"synthetic_8205.csv", "ztf_243ida_r.csv"}) {
    const auto one = test::light_curves(file);
    block.append(one.ids[0], one.t, one.y, one.dy.empty() ? std::vector<double>(one.t.size(), 1.0) : one.dy);
  }
  for (Model m : {Model::standard, Model::generalized})
    for (Precision p : {Precision::fp64, Precision::fp32})
      expect_fast_matches_direct(block, config(m, p, 20000), "catalogs");
}

TEST_F(CudaBackend, FastInEveryNormalization) {
  const auto block = test::light_curves("sdss_stripe82_z.csv");
  for (Normalization n : {Normalization::model, Normalization::log, Normalization::psd})
    for (Precision p : {Precision::fp64, Precision::fp32})
      expect_fast_matches_direct(block, config(Model::generalized, p, 20000, n), "sdss");
}

TEST_F(CudaBackend, FastOnAHeterogeneousBatchAgreesWithCpuFast) {
  // 10 to 10^5 points in one batch (one launch of each kernel), against the CPU's fast method.
  const auto block = synthetic({10, 100000, 10, 1000, 37, 10, 5000, 129}, 23);
  for (Model m : {Model::standard, Model::generalized})
    for (Precision p : {Precision::fp64, Precision::fp32}) {
      const auto c = fast(config(m, p, 150000));
      const auto cpu = run(BackendKind::cpu, block, c, true);
      const auto gpu = run(BackendKind::cuda, block, c, true);
      for (std::size_t i = 0; i < block.n_objects(); ++i) {
        const std::string where =
            std::string(to_string(m)) + " " + to_string(p) + " object " + std::to_string(block.ids[i]);
        EXPECT_LE(row_error(gpu.rows[i], cpu.rows[i]), p == Precision::fp64 ? 1e-9 : 1e-6) << where;
        EXPECT_EQ(gpu.results[i].best_frequency, cpu.results[i].best_frequency) << where;
      }
    }
}

TEST_F(CudaBackend, FastGridSizesAroundChunksAndPieces) {
  // One frequency, chunk boundaries, and past 2^22 (pieces of 2^21, the last one short).
  const auto block = synthetic({50, 3000}, 29);
  for (std::uint64_t n_freq : {1ULL, 2ULL, 3ULL, 32767ULL, 32769ULL, 70001ULL, (1ULL << 22) + 5})
    for (Precision p : {Precision::fp64, Precision::fp32}) {
      const auto c = fast(config(Model::generalized, p, n_freq));
      const auto cpu = run(BackendKind::cpu, block, c, true);
      const auto gpu = run(BackendKind::cuda, block, c, true);
      for (std::size_t i = 0; i < block.n_objects(); ++i)
        EXPECT_LE(row_error(gpu.rows[i], cpu.rows[i]), p == Precision::fp64 ? 1e-9 : 1e-6)
            << "N_f " << n_freq << " " << to_string(p) << " object " << block.ids[i];
    }
}

TEST_F(CudaBackend, FastValuesDoNotDependOnTheBatch) {
  // An object's bytes alone and at another place in a batch of many (fixed-point spreading, one
  // cuFFT batch size): what makes products identical for any number of ranks.
  std::vector<std::size_t> lengths(70, 300);
  lengths[45] = 2000;
  const auto many = synthetic(lengths, 31);
  io::LightCurveBlock alone;
  std::uint64_t first = 0;
  for (std::size_t i = 0; i < 45; ++i) first += many.counts[i];
  const auto n = static_cast<std::ptrdiff_t>(many.counts[45]);
  auto slice = [&](const std::vector<double>& v) {
    return std::vector<double>(v.begin() + static_cast<std::ptrdiff_t>(first),
                               v.begin() + static_cast<std::ptrdiff_t>(first) + n);
  };
  alone.append(many.ids[45], slice(many.t), slice(many.y), slice(many.dy));
  for (Precision p : {Precision::fp64, Precision::fp32}) {
    const auto c = fast(config(Model::generalized, p, 50000));
    const auto in_batch = run(BackendKind::cuda, many, c, true);
    const auto by_itself = run(BackendKind::cuda, alone, c, true);
    EXPECT_EQ(in_batch.rows[45], by_itself.rows[0]) << to_string(p);
    EXPECT_EQ(in_batch.results[45].best_power, by_itself.results[0].best_power) << to_string(p);
    EXPECT_EQ(run(BackendKind::cuda, many, c, true).rows, in_batch.rows) << to_string(p) << " run to run";
  }
}

TEST_F(CudaBackend, FastWithPeaksOnlyGivesThePeriodogramsPeaks) {
  // Without a sink the peaks come from the device's candidates: the same as from the rows.
  const auto block = synthetic({400, 20, 3000}, 37);
  const auto c = fast(config(Model::standard, Precision::fp64, 100000));
  const auto peaks = run(BackendKind::cuda, block, c, false);
  const auto rows = run(BackendKind::cuda, block, c, true);
  for (std::size_t i = 0; i < block.n_objects(); ++i) {
    EXPECT_EQ(peaks.results[i].best_frequency, rows.results[i].best_frequency);
    EXPECT_EQ(peaks.results[i].peak_power, rows.results[i].peak_power);
  }
}

TEST_F(CudaBackend, AutoPicksPerObjectOnTheGpu) {
  // A long object on a long grid goes fast, a 10-point one on a short grid direct; auto gives each
  // the bytes of that method.
  const auto block = synthetic({3000, 10}, 41);
  auto c = config(Model::generalized, Precision::fp64, 1000000);
  const auto automatic = run(BackendKind::cuda, block, fast(c, Method::automatic), false);
  const auto fast_run = run(BackendKind::cuda, block, fast(c, Method::fast), false);
  EXPECT_EQ(automatic.results[0].peak_power, fast_run.results[0].peak_power);
  c.grid = {0.5, 1e-3, 1000};
  const auto automatic_short = run(BackendKind::cuda, block, fast(c, Method::automatic), false);
  const auto direct_short = run(BackendKind::cuda, block, fast(c, Method::direct), false);
  EXPECT_EQ(automatic_short.results[1].peak_power, direct_short.results[1].peak_power);
}

TEST_F(CudaBackend, FastGridsBeyondTheBudgetAreARuntimeError) {
  // 10^6 frequencies need 3 x 2^21 cells of 16 bytes per object: not in 16 MiB.
  const auto block = synthetic({100}, 43);
  try {
    run(BackendKind::cuda, block, fast(config(Model::generalized, Precision::fp64, 1000000)), false, 16ULL << 20);
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
