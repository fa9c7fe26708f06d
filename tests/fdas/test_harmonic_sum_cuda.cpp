// The GPU harmonic sum and thresholds against the CPU reference: the summed planes bit-identical
// (same tables, same float additions in the same order) and the same cells above each stage's
// threshold in the same order. Skipped without a GPU.
#include <gtest/gtest.h>

#include <cmath>
#include <ostream>
#include <random>
#include <string>
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

void PrintTo(const Case& c, std::ostream* os) {
  *os << "z_max " << c.z_max << ", n_i " << c.n_i << ", numharm " << c.numharm;
}

/// The CPU's cells above each stage's threshold, z-major and r-ascending, and its last stage's plane.
std::vector<kernels::StageCells> reference_cells(const PowerPlaneView& plane, std::int64_t i_begin, std::int64_t i_end,
                                                 int numharm, const std::vector<float>& powcut,
                                                 std::vector<float>& summed_last) {
  std::vector<kernels::StageCells> want;
  harmonic_sum_reference(plane, i_begin, i_end, numharm, [&](const HarmonicStage& s, std::span<const float> summed) {
    kernels::StageCells cells;
    const auto n_cols = static_cast<std::size_t>(i_end - i_begin);
    for (std::size_t k = 0; k < summed.size(); ++k)
      if (summed[k] > powcut[static_cast<std::size_t>(s.stage)]) {
        cells.row.push_back(static_cast<int>(k / n_cols));
        cells.column.push_back(i_begin + static_cast<std::int64_t>(k % n_cols));
        cells.power.push_back(summed[k]);
      }
    want.push_back(cells);
    summed_last.assign(summed.begin(), summed.end());
  });
  return want;
}

std::size_t total_cells(const std::vector<kernels::StageCells>& stages) {
  std::size_t n = 0;
  for (const auto& s : stages) n += s.row.size();
  return n;
}

void expect_same_cells(const std::vector<kernels::StageCells>& got, const std::vector<kernels::StageCells>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t s = 0; s < got.size(); ++s) {
    EXPECT_EQ(got[s].row, want[s].row) << "stage " << s;
    EXPECT_EQ(got[s].column, want[s].column) << "stage " << s;
    EXPECT_EQ(got[s].power, want[s].power) << "stage " << s;
  }
}

/// A plane of unit exponential noise over half bins [100, i_end), rows z = −z_max … z_max.
std::vector<float> noise_plane(int z_max, std::int64_t n_i, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::exponential_distribution<float> noise(1.0F);
  std::vector<float> data(static_cast<std::size_t>(z_max + 1) * static_cast<std::size_t>(n_i));
  for (auto& v : data) v = noise(rng);
  return data;
}

class CudaHarmonicSum : public ::testing::TestWithParam<Case> {};

TEST_P(CudaHarmonicSum, MatchesTheReferenceExactly) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  const Case c = GetParam();
  const std::vector<float> data = noise_plane(c.z_max, c.n_i, 5);
  const PowerPlaneView plane{data.data(), c.z_max, 100, c.n_i};
  const std::int64_t i_begin = 100 * c.numharm + 64, i_end = 100 + c.n_i;
  const auto stages = harmonic_stages(c.numharm);
  std::vector<float> powcut;
  for (const auto& s : stages)  // 3.5 sigma above the mean H of H unit exponentials: a few cells per stage
    powcut.push_back(static_cast<float>(s.numharm + 3.5 * std::sqrt(s.numharm)));
  std::vector<float> want_summed;
  const auto want = reference_cells(plane, i_begin, i_end, c.numharm, powcut, want_summed);
  std::vector<float> got_summed;
  const auto got =
      kernels::harmonic_detect_cuda(plane, i_begin, i_end, c.numharm, powcut, std::size_t{1} << 20, &got_summed);
  EXPECT_EQ(got_summed, want_summed);
  for (std::size_t s = 0; s < want.size(); ++s)
    EXPECT_FALSE(want[s].row.empty()) << "stage " << s << " has no cell above its threshold: a vacuous check";
  expect_same_cells(got, want);
}

INSTANTIATE_TEST_SUITE_P(Planes, CudaHarmonicSum,
                         ::testing::Values(Case{0, 5000, 1}, Case{0, 5000, 8}, Case{20, 3001, 4}, Case{96, 20000, 8},
                                           Case{10, 9000, 32}, Case{200, 3000, 8}, Case{30, 4000, 16},
                                           Case{8, 2000, 2}));

struct Width {
  std::int64_t columns;
  int numharm;
  int z_max;
  std::int64_t shift = 0;  ///< added to the band's first half bin (its place mod 32)
};

void PrintTo(const Width& w, std::ostream* os) {
  *os << w.columns << " columns, numharm " << w.numharm << ", z_max " << w.z_max << ", shift " << w.shift;
}

class CudaHarmonicSumWidth : public ::testing::TestWithParam<Width> {};

TEST_P(CudaHarmonicSumWidth, EveryColumnOfTheTileIsSummedOnce) {
  // Widths around a warp's tiles (128 columns up to 16 harmonics, 64 for 32; a lane's cells 32
  // apart), one column, rows around a block's 8, bands starting at various half bins mod 32: the
  // summed plane bit for bit (a column missed or summed by two lanes shows), and the cells above a
  // threshold that about a third of them pass (partial warps in every ballot).
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  const Width w = GetParam();
  const std::int64_t i_begin = 100 * w.numharm + 64 + w.shift, i_end = i_begin + w.columns;
  const std::vector<float> data = noise_plane(w.z_max, i_end - 100, static_cast<std::uint64_t>(w.columns));
  const PowerPlaneView plane{data.data(), w.z_max, 100, i_end - 100};
  std::vector<float> powcut;
  for (const auto& s : harmonic_stages(w.numharm)) powcut.push_back(static_cast<float>(s.numharm));
  std::vector<float> want_summed, got_summed;
  const auto want = reference_cells(plane, i_begin, i_end, w.numharm, powcut, want_summed);
  const auto got =
      kernels::harmonic_detect_cuda(plane, i_begin, i_end, w.numharm, powcut, std::size_t{1} << 20, &got_summed);
  EXPECT_EQ(got_summed, want_summed);
  expect_same_cells(got, want);
}

INSTANTIATE_TEST_SUITE_P(Tiles, CudaHarmonicSumWidth,
                         ::testing::Values(Width{1, 1, 0}, Width{1, 8, 10}, Width{1, 32, 4}, Width{31, 8, 10},
                                           Width{32, 8, 10}, Width{33, 8, 10, 5}, Width{127, 8, 6, 31},
                                           Width{128, 8, 8}, Width{129, 8, 16, 17}, Width{255, 4, 20, 1},
                                           Width{256, 4, 20, 30}, Width{257, 4, 20}, Width{63, 32, 14, 21},
                                           Width{65, 32, 6, 3}, Width{511, 32, 6}, Width{513, 16, 6, 9},
                                           Width{4097, 8, 0, 2}, Width{1000, 1, 40, 23}, Width{1000, 2, 16, 11}));

TEST(CudaHarmonicSum, KeepsEveryCellWhenAllPass) {
  // Every cell of every stage above its threshold: whole warps take their places with one
  // atomic; the pool, sorted on the host, is the CPU's list cell for cell.
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  const int z_max = 12, numharm = 8;
  const std::int64_t i_begin = 100 * numharm + 64, i_end = i_begin + 3000;
  const std::vector<float> data = noise_plane(z_max, i_end - 100, 11);
  const PowerPlaneView plane{data.data(), z_max, 100, i_end - 100};
  const std::vector<float> powcut(4, -1.0F);
  std::vector<float> summed;
  const auto want = reference_cells(plane, i_begin, i_end, numharm, powcut, summed);
  ASSERT_EQ(total_cells(want), 4U * (z_max + 1) * 3000U);
  expect_same_cells(kernels::harmonic_detect_cuda(plane, i_begin, i_end, numharm, powcut, total_cells(want)), want);
}

TEST(CudaHarmonicSum, KeepsExactlyAsManyCellsAsItsCapacity) {
  // The pool's edge: as many cells above the thresholds as it holds are all returned; one more
  // cell than it holds is a RuntimeError that names every stage's count.
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  const int z_max = 20, numharm = 4;
  const std::int64_t i_begin = 100 * numharm + 64, i_end = i_begin + 5000;
  const std::vector<float> data = noise_plane(z_max, i_end - 100, 12);
  const PowerPlaneView plane{data.data(), z_max, 100, i_end - 100};
  const std::vector<float> powcut{2.0F, 3.5F, 6.0F};
  std::vector<float> summed;
  const auto want = reference_cells(plane, i_begin, i_end, numharm, powcut, summed);
  const std::size_t n = total_cells(want);
  ASSERT_GT(n, 10000U);
  expect_same_cells(kernels::harmonic_detect_cuda(plane, i_begin, i_end, numharm, powcut, n), want);
  try {
    kernels::harmonic_detect_cuda(plane, i_begin, i_end, numharm, powcut, n - 1);
    ADD_FAILURE() << "a pool one cell too small was accepted";
  } catch (const RuntimeError& e) {
    EXPECT_NE(std::string(e.what()).find(std::to_string(want[2].row.size()) + " of the 4-harmonic stage"),
              std::string::npos)
        << e.what();
  }
}

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
