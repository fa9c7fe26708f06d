// The GPU harmonic sum and thresholds against the CPU reference: the summed planes bit-identical
// (same tables, same float additions in the same order) and the same cells above each stage's
// threshold in the same order. Skipped without a GPU.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "core/error.hpp"
#include "correlation.hpp"
#include "correlation_cuda.hpp"
#include "device.hpp"
#include "harmonic_sum_cuda.hpp"
#include "harmonic_tables.hpp"
#include "template_bank.hpp"

namespace astrosweep::fdas {
namespace {

struct Case {
  int z_max;
  std::int64_t n_i;
  int numharm;
};

class CudaHarmonicSum : public ::testing::TestWithParam<Case> {};

TEST_P(CudaHarmonicSum, MatchesTheReferenceExactly) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  const Case c = GetParam();
  std::mt19937_64 rng(5);
  std::exponential_distribution<float> noise(1.0F);
  std::vector<float> data(static_cast<std::size_t>(c.z_max + 1) * static_cast<std::size_t>(c.n_i));
  for (auto& v : data) v = noise(rng);
  const PowerPlaneView plane{data.data(), c.z_max, 100, c.n_i};
  const std::int64_t i_begin = 100 * c.numharm + 64, i_end = 100 + c.n_i;
  const auto stages = harmonic_stages(c.numharm);
  std::vector<float> powcut;
  for (const auto& s : stages)  // 3.5 sigma above the mean H of H unit exponentials: a few cells per stage
    powcut.push_back(static_cast<float>(s.numharm + 3.5 * std::sqrt(s.numharm)));
  std::vector<kernels::StageCells> want;
  std::vector<float> want_summed;
  harmonic_sum_reference(plane, i_begin, i_end, c.numharm, [&](const HarmonicStage& s, std::span<const float> summed) {
    kernels::StageCells cells;
    const auto n_cols = static_cast<std::size_t>(i_end - i_begin);
    for (std::size_t k = 0; k < summed.size(); ++k)
      if (summed[k] > powcut[static_cast<std::size_t>(s.stage)]) {
        cells.row.push_back(static_cast<int>(k / n_cols));
        cells.column.push_back(i_begin + static_cast<std::int64_t>(k % n_cols));
        cells.power.push_back(summed[k]);
      }
    want.push_back(cells);
    want_summed.assign(summed.begin(), summed.end());
  });
  std::vector<float> got_summed;
  const auto got =
      kernels::harmonic_detect_cuda(plane, i_begin, i_end, c.numharm, powcut, std::size_t{1} << 20, &got_summed);
  ASSERT_EQ(got.size(), want.size());
  EXPECT_EQ(got_summed, want_summed);
  for (std::size_t s = 0; s < got.size(); ++s) {
    EXPECT_FALSE(want[s].row.empty()) << "stage " << s << " has no cell above its threshold: a vacuous check";
    EXPECT_EQ(got[s].row, want[s].row) << "stage " << s;
    EXPECT_EQ(got[s].column, want[s].column) << "stage " << s;
    EXPECT_EQ(got[s].power, want[s].power) << "stage " << s;
  }
}

INSTANTIATE_TEST_SUITE_P(Planes, CudaHarmonicSum,
                         ::testing::Values(Case{0, 5000, 1}, Case{0, 5000, 8}, Case{20, 3001, 4}, Case{96, 20000, 8},
                                           Case{10, 9000, 32}));

TEST(CudaHarmonicSum, ReadsTheCorrelatorsPlaneWhereItIs) {
  // The plane never leaves the device: the same cells as summing the copy brought to the host.
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  std::mt19937_64 rng(8);
  std::normal_distribution<float> g(0.0F, std::sqrt(0.5F));
  std::vector<std::complex<float>> spectrum(30000);
  for (auto& v : spectrum) v = {g(rng), g(rng)};
  const TemplateBank bank = make_template_bank(24, 2, Accuracy::low);
  kernels::CudaCorrelator correlator(bank.layout, bank.taps);
  const std::vector<float> powcut{6.0F, 9.0F, 14.0F, 22.0F};
  const std::int64_t i_begin = 2 * 8000, i_end = 2 * 29000;
  const PowerPlane host = correlator.correlate(spectrum, 900, 29500, true);
  const PowerPlaneView host_view{host.power.data(), 24, static_cast<std::int64_t>(2 * host.first_bin),
                                 static_cast<std::int64_t>(host.n_r)};
  const auto want = kernels::harmonic_detect_cuda(host_view, i_begin, i_end, 8, powcut);
  const auto device = correlator.correlate_on_device(spectrum, 900, 29500, true);
  const PowerPlaneView device_view{device.data, 24, static_cast<std::int64_t>(2 * device.first_bin),
                                   static_cast<std::int64_t>(device.n_r)};
  const auto got = kernels::harmonic_detect_cuda_on_device(device_view, i_begin, i_end, 8, powcut);
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t s = 0; s < got.size(); ++s) {
    EXPECT_FALSE(want[s].row.empty()) << "stage " << s;
    EXPECT_EQ(got[s].row, want[s].row);
    EXPECT_EQ(got[s].column, want[s].column);
    EXPECT_EQ(got[s].power, want[s].power);
  }
}

TEST(CudaHarmonicSum, RefusesAThresholdThatKeepsEverything) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  std::vector<float> data(11 * 1000, 1.0F);
  const PowerPlaneView plane{data.data(), 10, 0, 1000};
  EXPECT_THROW(kernels::harmonic_detect_cuda(plane, 10, 1000, 1, {0.5F}, 100), RuntimeError);
}

}  // namespace
}  // namespace astrosweep::fdas
