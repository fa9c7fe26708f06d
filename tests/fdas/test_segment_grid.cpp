// The correlation's segments on PRESTO's accelsearch grid (3ae6229, in-memory mode): which block
// makes each column of the plane, against a walk of accelsearch's own loops; and the plane's
// block medians against medians taken directly over the bins of PRESTO's blocks.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <numbers>
#include <optional>
#include <random>
#include <vector>

#include "core/error.hpp"
#include "correlation.hpp"
#include "segment_grid.hpp"
#include "series_search.hpp"
#include "template_bank.hpp"

namespace astrosweep::fdas {
namespace {

// accelsearch's in-memory plane, half-bin column by column: the bin where the block that last
// wrote it starts (nothing: never written). Its loops (accelsearch.c) written out: the low blocks
// from startr = 8 while startr < rlo, then the search's blocks from startr = rlo while
// startr + rstep < highestbin, each writing corr_uselen columns from 2·startr (fund_to_ffdotplane).
std::vector<std::optional<std::size_t>> presto_block_starts(std::size_t rlo, std::size_t highestbin,
                                                            const CorrelationLayout& layout) {
  const std::size_t U = layout.useful_outputs();
  const std::size_t rstep = U / 2;
  std::vector<std::optional<std::size_t>> start(2 * (highestbin + U));
  const auto write = [&](std::size_t startr) {
    for (std::size_t j = 0; j < U; ++j) start[2 * startr + j] = startr;
  };
  if (rlo > 8)  // `while (startr < obs.rlo)` from 8: nothing when rlo ≤ 8
    for (std::size_t startr = 8; startr < rlo; startr += rstep) write(startr);
  for (std::size_t startr = rlo; startr + rstep < highestbin; startr += rstep) write(startr);
  return start;
}

// The bin where the segment that makes plane column `column` (absolute, half bins) starts its kept
// outputs, by the grid; nothing where no run covers it.
std::optional<std::size_t> grid_block_start(const SegmentGrid& grid, std::size_t column,
                                            const CorrelationLayout& layout) {
  for (const SegmentRun& run : grid.runs) {
    const std::size_t first = 2 * run.first_bin;
    if (column >= first && column < first + run.columns)
      return run.first_bin + (column - first) / layout.segment_columns() * layout.step_bins();
  }
  return std::nullopt;
}

struct GridCase {
  std::size_t L, m;  // the layout
  std::size_t rlo, needed_lo, plane_hi;
};

TEST(PrestoSegmentGrid, EveryColumnComesFromPrestosBlock) {
  const GridCase cases[] = {
      {2048, 126, 134, 15, 20000},   // N = 2^21, z_max 200, numharm 8: the r 69 series
      {2048, 126, 16, 1, 5000},      // N = 2^18: rlo above 8 by less than a block
      {2048, 126, 20, 0, 3000},      // --flo 0.15 at N = 2^21 (series B), numharm 1
      {2048, 126, 2000, 999, 9000},  // numharm 2 from bin 2000: the plane starts in a low block
      {2048, 126, 788, 780, 4000},   // needed_lo on a low block's start, rlo one block above it
      {2048, 126, 780, 779, 4000},   // rlo where a low block would start: the low run ends on a block's end
      {2048, 126, 9, 0, 2000},       // one low bin
      {2048, 126, 8, 0, 2000},       // rlo = 8: no low blocks
      {2048, 126, 5, 0, 2000},       // rlo below 8, below the half-width: zeros under it
      {2048, 16, 3000, 1000, 9000},  // z_max 0: U = 1984
      {4096, 181, 300, 17, 9000},    // z_max 300: L = 4096, U = 3372
      {4096, 181, 50000, 3124, 60000},
      {64, 5, 50, 0, 300},  // a small layout: U = 44
      {64, 5, 51, 40, 300},
  };
  for (const GridCase& c : cases) {
    const CorrelationLayout layout{c.L, c.m, 2};
    const SegmentGrid grid = presto_segment_grid(c.rlo, c.needed_lo, c.plane_hi, layout);
    EXPECT_NO_THROW(check_segment_grid(grid));
    EXPECT_LE(grid.plane_lo, c.needed_lo) << "rlo " << c.rlo;
    EXPECT_EQ(grid.plane_hi, c.plane_hi);
    const auto presto = presto_block_starts(c.rlo, c.plane_hi + layout.step_bins() + 1, layout);
    for (std::size_t column = 2 * grid.plane_lo; column < 2 * grid.plane_hi; ++column)
      ASSERT_EQ(grid_block_start(grid, column, layout), presto[column])
          << "L " << c.L << ", rlo " << c.rlo << ", needed " << c.needed_lo << ", column " << column;
    // The plane starts no lower than it must: at needed_lo, or on the start of the low block that holds it.
    if (grid.plane_lo < c.needed_lo) {
      ASSERT_GT(c.rlo, presto_low_blocks_bin);
      EXPECT_EQ((grid.plane_lo - presto_low_blocks_bin) % layout.step_bins(), 0U);
      EXPECT_LT(c.needed_lo - grid.plane_lo, layout.step_bins());
    }
  }
}

TEST(PrestoSegmentGrid, LaysItsRunsFromRloAndFromBinEight) {
  const CorrelationLayout layout{2048, 126, 2};  // z_max 200: U = 1544, 772 bins a block
  SegmentGrid g = presto_segment_grid(134, 15, 20000, layout);
  EXPECT_EQ(g.plane_lo, 8U);
  ASSERT_EQ(g.runs.size(), 2U);
  EXPECT_EQ(g.runs[0].first_bin, 8U);
  EXPECT_EQ(g.runs[0].columns, 2U * 126);
  EXPECT_EQ(g.runs[1].first_bin, 134U);
  EXPECT_EQ(g.runs[1].columns, 2U * (20000 - 134));
  EXPECT_EQ(run_segments(g.runs[0], layout), 1U);
  EXPECT_EQ(run_segments(g.runs[1], layout), 26U);  // ⌈39732 / 1544⌉
  EXPECT_EQ(run_input_bins(g.runs[1], layout), 25U * 772 + 1024);
  EXPECT_EQ(grid_segments(g, layout), 27U);
  EXPECT_EQ(grid_input_bins(g, layout), 1024U + 25U * 772 + 1024);
  // Below 8 PRESTO computes nothing: the plane's bins 1 … 7 belong to no run.
  g = presto_segment_grid(16, 1, 5000, layout);
  EXPECT_EQ(g.plane_lo, 1U);
  ASSERT_EQ(g.runs.size(), 2U);
  EXPECT_EQ(g.runs[0].first_bin, 8U);
  // rlo ≤ 8: its blocks only, from rlo.
  g = presto_segment_grid(5, 0, 2000, layout);
  EXPECT_EQ(g.plane_lo, 0U);
  ASSERT_EQ(g.runs.size(), 1U);
  EXPECT_EQ(g.runs[0].first_bin, 5U);
  // What cannot be PRESTO's grid.
  EXPECT_THROW(presto_segment_grid(100, 101, 2000, layout), UsageError);
  EXPECT_THROW(presto_segment_grid(2000, 0, 2000, layout), UsageError);
  EXPECT_THROW(check_segment_grid(SegmentGrid{10, 100, {{5, 20}}}), UsageError);             // below the plane
  EXPECT_THROW(check_segment_grid(SegmentGrid{10, 100, {{20, 40}, {30, 10}}}), UsageError);  // overlapping
  EXPECT_THROW(check_segment_grid(SegmentGrid{10, 100, {{90, 40}}}), UsageError);            // past its end
}

// The search's geometry lays PRESTO's grid from ⌊r_lo⌋ (its obs.rlo = ⌊flo·T⌋): on 2^21 samples of
// 64 µs at -flo 1, rlo 134, numharm 8 (the series of the r 69 candidate), the low block from bin 8.
TEST(PrestoSegmentGrid, IsTheSearchGeometrys) {
  const TemplateBank bank = make_template_bank(200, 2, Accuracy::low);
  const std::size_t bins = std::size_t{1} << 20;
  SearchSettings s;
  s.numharm = 8;
  s.r_lo = 134.217728;
  s.r_hi = static_cast<double>(bins);
  const SearchGeometry g = search_geometry(bins, bank, s);
  EXPECT_EQ(g.i_begin, 269);
  ASSERT_EQ(g.grid.runs.size(), 2U);
  EXPECT_EQ(g.grid.plane_lo, 8U);
  EXPECT_EQ(g.grid.runs[0].first_bin, 8U);
  EXPECT_EQ(g.grid.runs[1].first_bin, 134U);
  // PRESTO's 1358 blocks from 134 (the next, from 134 + 1358·772, would end past bin 1048575).
  EXPECT_EQ(g.i_end, 2 * 134 + 1358 * 1544);
  EXPECT_EQ(g.grid.plane_hi, static_cast<std::size_t>((g.i_end + 1) / 2 + 1));
}

// GSL's median (PRESTO's since 394bc81): the middle value, or half the float sum of the two middle ones.
float gsl_median(std::vector<float> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return (v[(n - 1) / 2] + v[n / 2]) * 0.5F;
}

struct MedianCase {
  std::size_t L, m;
  std::size_t bins;  // of the spectrum
  std::size_t rlo, needed_lo, plane_hi;
};

// One template with the single tap g[0] = 1: the plane at whole bin r is |norm · F_r|², so each
// column's block normalisation reads back. Against PRESTO: the median of the fftlen/2 powers that
// subharm_fderivs_vol takes for the block from startr (bins startr − m … , zeros outside the
// spectrum, get_fourier_amplitudes), for the block presto_block_starts says made that column; zero
// power where PRESTO computes nothing.
TEST(PrestoSegmentGrid, TheBlockMediansArePrestos) {
  const MedianCase cases[] = {
      {64, 5, 300, 50, 0, 280},          // low blocks from 8, zeros below
      {64, 5, 300, 3, 0, 280},           // rlo below the half-width and 8: its first block reads zeros
      {64, 5, 300, 120, 60, 280},        // the plane from a low block's start
      {2048, 126, 6000, 134, 15, 5200},  // z_max 200's layout, the r 69 series' rlo: the low block reads 118 zeros
  };
  std::mt19937_64 rng(23);
  for (const MedianCase& c : cases) {
    const CorrelationLayout layout{c.L, c.m, 2};
    // Powers spread over two decades, so that a median over other bins shows.
    std::vector<std::complex<float>> spectrum(c.bins);
    std::uniform_real_distribution<float> level(0.1F, 10.0F);
    for (auto& v : spectrum) v = {level(rng), 0.5F * level(rng)};
    std::vector<std::vector<std::complex<double>>> taps(1, std::vector<std::complex<double>>(c.L));
    taps[0][0] = 1.0;
    const SegmentGrid grid = presto_segment_grid(c.rlo, c.needed_lo, c.plane_hi, layout);
    const PowerPlane plane = correlate(spectrum, transform_kernels<double>(taps, c.L), layout, grid, {true, 2});
    ASSERT_EQ(plane.first_bin, grid.plane_lo);
    ASSERT_EQ(plane.n_r, 2 * (c.plane_hi - grid.plane_lo));
    const auto presto = presto_block_starts(c.rlo, c.bins - 1, layout);
    std::size_t checked = 0;
    for (std::size_t r = grid.plane_lo; r < c.plane_hi; ++r) {
      const float got = plane.at(0, 2 * (r - grid.plane_lo));
      if (!presto[2 * r]) {
        EXPECT_EQ(got, 0.0F) << "r " << r << ": PRESTO computes nothing there";
        continue;
      }
      const auto lobin = static_cast<std::ptrdiff_t>(*presto[2 * r]) - static_cast<std::ptrdiff_t>(c.m);
      std::vector<float> powers;
      for (std::ptrdiff_t k = lobin; k < lobin + static_cast<std::ptrdiff_t>(c.L / 2); ++k)
        powers.push_back(k >= 0 && k < static_cast<std::ptrdiff_t>(c.bins)
                             ? std::norm(spectrum[static_cast<std::size_t>(k)])
                             : 0.0F);
      const double norm2 = std::numbers::ln2 / static_cast<double>(gsl_median(powers));
      EXPECT_NEAR(got / std::norm(spectrum[r]), norm2, 1e-5 * norm2) << "L " << c.L << ", rlo " << c.rlo << ", r " << r;
      ++checked;
    }
    EXPECT_GT(checked, (c.plane_hi - c.rlo) / 2);
  }
}

}  // namespace
}  // namespace astrosweep::fdas
