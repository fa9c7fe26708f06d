// A search of one harmonic straight from the shared-memory correlation (CudaCorrelator::
// correlate_keeping: no plane written or read) against the plane's stage 0 on the device
// (CudaHarmonicDetector, numharm 1): the same cells, rows, columns and power bits, for every
// shared-memory length, templates around the kernel's group of 8, one segment and thousands,
// thresholds that keep a few cells or most of them, bands narrower than the plane and empty; the
// spectrum on the host and on the device; the pool's capacity exactly filled and one cell short;
// the cuFFT method refused; on PRESTO's segment grid of two runs. Skipped without a GPU.
#include <gtest/gtest.h>

#include <bit>
#include <complex>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "correlation_cuda.hpp"
#include "correlation_launch.hpp"
#include "device.hpp"
#include "harmonic_sum_cuda.hpp"
#include "random_taps.hpp"

namespace astrosweep::fdas {
namespace {

using kernels::CudaCorrelator;
using test_support::Taps;

using test_support::random_taps;

std::vector<std::complex<float>> noisy_spectrum(std::size_t bins, std::mt19937_64& rng) {
  std::normal_distribution<float> g(0.0F, std::sqrt(0.5F));
  std::vector<std::complex<float>> spectrum(bins);
  for (auto& v : spectrum) v = {g(rng), g(rng)};
  spectrum[bins / 3] += std::complex<float>(30.0F, -10.0F);
  return spectrum;
}

void expect_same_cells(const kernels::StageCells& got, const kernels::StageCells& want, const std::string& what) {
  ASSERT_EQ(got.row.size(), want.row.size()) << what;
  for (std::size_t k = 0; k < want.row.size(); ++k) {
    ASSERT_EQ(got.row[k], want.row[k]) << what << ", cell " << k;
    ASSERT_EQ(got.column[k], want.column[k]) << what << ", cell " << k;
    ASSERT_EQ(std::bit_cast<std::uint32_t>(got.power[k]), std::bit_cast<std::uint32_t>(want.power[k]))
        << what << ", cell " << k;
  }
}

struct Case {
  std::size_t L, m, templates, bins;  // templates odd: the plane's z_max = templates − 1 is even
};

class CorrelationKeep : public ::testing::TestWithParam<Case> {};

TEST_P(CorrelationKeep, IsThePlanesFirstStageBitForBit) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  const Case c = GetParam();
  std::mt19937_64 rng(21);
  const Taps taps = random_taps(c.L, 2 * c.m, c.templates, rng);
  const std::vector<std::complex<float>> spectrum = noisy_spectrum(c.bins, rng);
  kernels::CudaSpectrum on_device;
  on_device.load(spectrum);
  CudaCorrelator gpu(CorrelationLayout{c.L, c.m, 2}, taps, 0, CudaCorrelator::Method::shared_memory);
  ASSERT_TRUE(gpu.keeps_cells());
  const std::size_t lo = 3, hi = c.bins + 5;
  const auto i_first = static_cast<std::int64_t>(2 * lo), n_i = static_cast<std::int64_t>(2 * (hi - lo));
  for (const float powcut : {0.25F, 4.0F, 12.0F}) {
    for (const auto& [from, to] : {std::pair<std::int64_t, std::int64_t>{0, n_i}, {5, n_i - 7}, {n_i / 2, n_i / 2}}) {
      for (const bool normalise : {false, true}) {
        const std::string what = "L " + std::to_string(c.L) + ", " + std::to_string(c.templates) +
                                 " templates, powcut " + std::to_string(powcut) + ", columns " + std::to_string(from) +
                                 " … " + std::to_string(to) + ", normalise " + std::to_string(normalise);
        const auto plane = gpu.correlate_on_device(on_device.on_device(), lo, hi, normalise);
        const PowerPlaneView view{plane.data, static_cast<int>(c.templates) - 1, i_first, n_i};
        const auto want =
            kernels::harmonic_detect_cuda_on_device(view, i_first + from, i_first + to, 1, {powcut}).front();
        const CudaCorrelator::KeepRule rule{i_first + from, i_first + to, powcut};
        expect_same_cells(gpu.correlate_keeping(on_device.on_device(), lo, hi, normalise, rule), want,
                          what + ", device spectrum");
        expect_same_cells(gpu.correlate_keeping(spectrum, lo, hi, normalise, rule), want, what + ", host spectrum");
      }
    }
  }
}

// On PRESTO's segment grid (runs from bin 8 and from rlo, zeros below bin 8): kept bands over the
// whole plane, from rlo up (a search's), and across the runs' boundary, the same cells as the
// plane's stage 0 (columns of no run hold zero, above no threshold).
// (Its own cases: a GPU binary with a test skipped on a GPU would read as skipped to ctest.)
class CorrelationKeepOnGrid : public CorrelationKeep {};

TEST_P(CorrelationKeepOnGrid, IsThePlanesFirstStageOnPrestosGrid) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  const Case c = GetParam();
  ASSERT_GE(c.bins, 200U) << "too few bins for a grid of two runs";
  std::mt19937_64 rng(22);
  const Taps taps = random_taps(c.L, 2 * c.m, c.templates, rng);
  const std::vector<std::complex<float>> spectrum = noisy_spectrum(c.bins, rng);
  kernels::CudaSpectrum on_device;
  on_device.load(spectrum);
  const CorrelationLayout layout{c.L, c.m, 2};
  CudaCorrelator gpu(layout, taps, 0, CudaCorrelator::Method::shared_memory);
  const std::size_t rlo = c.bins / 5;
  const SegmentGrid grid = presto_segment_grid(rlo, 0, c.bins + 5, layout);
  ASSERT_EQ(grid.runs.size(), 2U);
  const auto i_first = static_cast<std::int64_t>(2 * grid.plane_lo);
  const auto n_i = static_cast<std::int64_t>(2 * (grid.plane_hi - grid.plane_lo));
  const auto i_rlo = static_cast<std::int64_t>(2 * rlo) - i_first;
  for (const float powcut : {0.25F, 4.0F}) {
    for (const auto& [from, to] :
         {std::pair<std::int64_t, std::int64_t>{0, n_i}, {i_rlo, n_i - 3}, {i_rlo - 5, i_rlo + 7}}) {
      const std::string what = "L " + std::to_string(c.L) + ", powcut " + std::to_string(powcut) + ", columns " +
                               std::to_string(from) + " … " + std::to_string(to);
      const auto plane = gpu.correlate_on_device(on_device.on_device(), grid, true);
      const PowerPlaneView view{plane.data, static_cast<int>(c.templates) - 1, i_first, n_i};
      const auto want =
          kernels::harmonic_detect_cuda_on_device(view, i_first + from, i_first + to, 1, {powcut}).front();
      const CudaCorrelator::KeepRule rule{i_first + from, i_first + to, powcut};
      expect_same_cells(gpu.correlate_keeping(on_device.on_device(), grid, true, rule), want,
                        what + ", device spectrum");
      expect_same_cells(gpu.correlate_keeping(spectrum, grid, true, rule), want, what + ", host spectrum");
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Layouts, CorrelationKeep,
                         ::testing::Values(Case{256, 4, 1, 100}, Case{256, 4, 9, 40000}, Case{512, 8, 7, 3000},
                                           Case{1024, 16, 17, 5000}, Case{2048, 34, 97, 20000},
                                           Case{4096, 40, 9, 30000}, Case{2048, 34, 1, 500}));
INSTANTIATE_TEST_SUITE_P(Layouts, CorrelationKeepOnGrid,
                         ::testing::Values(Case{256, 4, 9, 40000}, Case{512, 8, 7, 3000}, Case{1024, 16, 17, 5000},
                                           Case{2048, 34, 97, 20000}, Case{4096, 40, 9, 30000},
                                           Case{2048, 34, 1, 500}));

// The kept-cells kernel's per-cell test and pool entry on the host (correlate_fused's Keep branch:
// column c of a run is kept where col_begin ≤ c < col_end, at entry t·n_cols + c + entry_offset
// modulo 2^64), with the window keep_in_run gives each run: every plane column of every run kept
// exactly where the plane's window [b, e) holds it, at the plane's entry t·(e − b) + column − b.
// Runs before, across, inside and after the window, a run that is the window, an empty window. No
// GPU needed.
TEST(CorrelationKeepWindow, EachRunKeepsThePlanesColumnsAtThePlanesEntries) {
  struct Window {
    std::size_t begin, end;
  };
  struct Run {
    std::size_t first, columns;
  };
  const Window windows[] = {{0, 100}, {37, 61}, {50, 50}, {10, 11}};
  const Run runs[] = {{0, 20}, {20, 30}, {50, 11}, {61, 39}, {37, 24}, {0, 100}, {95, 5}};
  for (const Window& w : windows) {
    const std::size_t n_cols = w.end - w.begin;
    const kernels::KeepAbove plane{{}, 1.0F, w.begin, w.end, n_cols, std::size_t{0} - w.begin};
    for (const Run& r : runs) {
      const kernels::KeepAbove k = kernels::keep_in_run(plane, r.first, r.columns);
      EXPECT_LE(k.col_begin, k.col_end);
      EXPECT_LE(k.col_end, r.columns);
      for (std::size_t t = 0; t < 3; ++t) {
        for (std::size_t c = 0; c < r.columns; ++c) {
          const std::size_t column = r.first + c;
          const bool want = column >= w.begin && column < w.end;
          const bool got = c >= k.col_begin && c < k.col_end;
          ASSERT_EQ(got, want) << "window " << w.begin << " … " << w.end << ", run from " << r.first << ", c " << c;
          if (want) {
            EXPECT_EQ(t * k.n_cols + c + k.entry_offset, t * n_cols + column - w.begin);
          }
        }
      }
    }
  }
}

TEST(CorrelationKeepPool, HoldsExactlyItsCapacity) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  std::mt19937_64 rng(22);
  const Taps taps = random_taps(256, 8, 9, rng);
  const std::vector<std::complex<float>> spectrum = noisy_spectrum(6000, rng);
  CudaCorrelator gpu(CorrelationLayout{256, 4, 2}, taps, 0, CudaCorrelator::Method::shared_memory);
  const auto i_end = static_cast<std::int64_t>(2 * spectrum.size());
  CudaCorrelator::KeepRule rule{0, i_end, 1.0F};
  const std::size_t count = gpu.correlate_keeping(spectrum, 0, spectrum.size(), true, rule).row.size();
  ASSERT_GT(count, 1000U);  // about a third of the 108,000 cells are above 1
  rule.max_cells = count;
  EXPECT_EQ(gpu.correlate_keeping(spectrum, 0, spectrum.size(), true, rule).row.size(), count);
  rule.max_cells = count - 1;
  try {
    (void)gpu.correlate_keeping(spectrum, 0, spectrum.size(), true, rule);
    FAIL() << "a pool one cell short was not refused";
  } catch (const RuntimeError& e) {
    EXPECT_NE(std::string(e.what()).find(std::to_string(count) + " cells are above"), std::string::npos) << e.what();
  }
}

TEST(CorrelationKeepPool, RefusesTheCufftMethodAndColumnsOutsideThePlane) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  std::mt19937_64 rng(23);
  const Taps taps = random_taps(256, 8, 3, rng);
  const std::vector<std::complex<float>> spectrum = noisy_spectrum(1000, rng);
  CudaCorrelator cufft(CorrelationLayout{256, 4, 2}, taps, 0, CudaCorrelator::Method::cufft);
  EXPECT_FALSE(cufft.keeps_cells());
  EXPECT_THROW((void)cufft.correlate_keeping(spectrum, 0, 1000, true, {0, 2000, 4.0F}), UsageError);
  CudaCorrelator shared(CorrelationLayout{256, 4, 2}, taps, 0, CudaCorrelator::Method::shared_memory);
  EXPECT_THROW((void)shared.correlate_keeping(spectrum, 10, 1000, true, {19, 2000, 4.0F}), UsageError);
  EXPECT_THROW((void)shared.correlate_keeping(spectrum, 10, 1000, true, {20, 2001, 4.0F}), UsageError);
  EXPECT_NO_THROW((void)shared.correlate_keeping(spectrum, 10, 1000, true, {20, 2000, 4.0F}));
}

}  // namespace
}  // namespace astrosweep::fdas
