// The GPU harmonic sum's per-lane code (harmonic_sum_cell.hpp) run on the host: the kernel's grid
// emulated block by block, warp by warp and lane by lane (which cells each lane sums, which plane
// cells it reads, the additions in its order) must give every stage's summed plane of
// harmonic_sum_reference bit for bit, every cell summed exactly once, for widths around a warp's
// 128- and 64-column tiles (a lane's cells 32 columns apart), one column, row counts around the
// block's 8 rows, bands starting at every kind of half bin (mod 32) and numharm 1 … 32. The
// kernel's harmonic order, its split column rule and its row table against harmonic_stages,
// sub_harmonic_index and sub_harmonic_z_row_table, which define them.
#include <gtest/gtest.h>

#include <algorithm>
#include <ostream>
#include <random>
#include <span>
#include <vector>

#include "harmonic_sum_cell.hpp"
#include "harmonic_tables.hpp"

namespace astrosweep::fdas {
namespace {

TEST(HarmonicSumCell, ReadHarmonicsFollowTheStages) {
  EXPECT_EQ(cell::read_harmonic(0).stage, 0);
  EXPECT_EQ(cell::read_harmonic(0).h, 1);
  for (const int numharm : {1, 2, 4, 8, 16, 32}) {
    const auto stages = harmonic_stages(numharm);
    EXPECT_EQ(cell::stage_count(numharm), static_cast<int>(stages.size())) << numharm;
    int a = 0;
    for (const auto& stage : stages) {
      if (stage.stage > 0) {
        EXPECT_EQ(cell::first_added_of_stage(stage.stage), a) << numharm;
      }
      for (const int h : stage.harmonics) {
        const cell::Harmonic added = cell::added_harmonic(a);
        EXPECT_EQ(added.stage, stage.stage) << "added harmonic " << a;
        EXPECT_EQ(added.h, h) << "added harmonic " << a;
        EXPECT_EQ(cell::read_harmonic(a + 1).h, h) << "added harmonic " << a;
        ++a;
      }
    }
    EXPECT_EQ(a, numharm - 1);
    EXPECT_EQ(cell::first_added_of_stage(cell::stage_count(numharm)), numharm - 1) << numharm;
  }
}

TEST(HarmonicSumCell, AddedColumnIsTheSubHarmonicIndex) {
  for (int m = 0; m < 32; ++m) {
    const cell::Harmonic harmonic = cell::read_harmonic(m);
    const int H = 1 << harmonic.stage;
    for (std::int64_t i = 0; i < 20000; ++i)
      ASSERT_EQ(cell::added_column(i, harmonic), sub_harmonic_index(i, harmonic.h, H))
          << "h " << harmonic.h << " of " << H << ", i " << i;
    const std::int64_t big = std::int64_t{1} << 40;  // far past any spectrum: no overflow in 2ih + H
    EXPECT_EQ(cell::added_column(big + 3, harmonic), sub_harmonic_index(big + 3, harmonic.h, H));
  }
}

TEST(HarmonicSumCell, SplitColumnIsTheSubHarmonicIndex) {
  // The kernel's column of i = 32q + r + tile·T + lane + 32c (r = i_begin mod 32): a launch's part
  // 32q·h/H, a warp's tile·T·h/H, a lane's ⌊(r + lane)·h/H + ½⌋ and a cell's 32c·h/H.
  std::mt19937_64 rng(3);
  std::uniform_int_distribution<std::int64_t> launch(0, std::int64_t{1} << 36);
  std::uniform_int_distribution<std::uint32_t> tile(0, 1U << 24);
  for (int trial = 0; trial < 200; ++trial) {
    const std::int64_t q = launch(rng);
    const std::uint32_t t = tile(rng);
    for (int m = 0; m < 32; ++m) {
      const cell::Harmonic harmonic = cell::read_harmonic(m);
      for (const int columns : {2, 4}) {
        const std::uint32_t width = cell::tile_width(columns);
        for (std::uint32_t u = 0; u < 2 * cell::warp_size - 1; ++u)  // r + lane
          for (int c = 0; c < columns; ++c) {
            const std::int64_t i = 32 * q + std::int64_t{t} * width + u + std::int64_t{32} * c;
            const std::int64_t split =
                q * cell::column_step(32, harmonic) + std::int64_t{t} * cell::column_step(width, harmonic) +
                cell::lane_column(u, harmonic) + static_cast<std::int64_t>(c) * cell::column_step(32, harmonic);
            ASSERT_EQ(split, sub_harmonic_index(i, harmonic.h, 1 << harmonic.stage))
                << "h " << harmonic.h << " of " << (1 << harmonic.stage) << ", i " << i;
          }
      }
    }
  }
}

TEST(HarmonicSumCell, RowTableIsTheStagesTablesInOrder) {
  const int z_max = 40;
  const int numharm = 16;
  const auto table = harmonic_z_rows(z_max, numharm);
  ASSERT_EQ(table.size(), static_cast<std::size_t>(numharm) * (z_max + 1));
  for (int m = 0; m < numharm; ++m) {
    const cell::Harmonic harmonic = cell::read_harmonic(m);
    const auto want = sub_harmonic_z_row_table(z_max, harmonic.h, 1 << harmonic.stage);
    for (int j = 0; j <= z_max; ++j)
      EXPECT_EQ(table[static_cast<std::size_t>(j * numharm + m)], want[static_cast<std::size_t>(j)])
          << "row " << j << ", harmonic " << m;
  }
  const auto one = harmonic_z_rows(z_max, 1);
  ASSERT_EQ(one.size(), static_cast<std::size_t>(z_max + 1));
  for (int j = 0; j <= z_max; ++j) EXPECT_EQ(one[static_cast<std::size_t>(j)], j);
}

TEST(HarmonicSumCell, BlocksTakeEveryRowGroupOfATileBeforeTheNextTile) {
  // 17 rows: groups of 8, 8 and 1 (the last block's warps 1-7 idle); 300 columns in tiles of 128.
  EXPECT_EQ(cell::row_groups(17), 3U);
  EXPECT_EQ(cell::row_groups(8), 1U);
  EXPECT_EQ(cell::block_count(17, 300, 128), 9U);
  EXPECT_EQ(cell::block_count(17, 256, 128), 6U);
  EXPECT_EQ(cell::block_count(1, 1, 128), 1U);
  const cell::WarpPlace p = cell::warp_place(4, 5, 17);  // group 1 of tile 1
  EXPECT_EQ(p.row, 13U);
  EXPECT_EQ(p.tile, 1U);
  EXPECT_GE(cell::warp_place(2, 1, 17).row, 17U);  // past the last row: nothing to sum
  EXPECT_EQ(cell::lane_first_column(p, 7, 4), 128U + 7U);
  EXPECT_TRUE(cell::tile_is_whole(p, 256, 4));
  EXPECT_FALSE(cell::tile_is_whole(p, 255, 4));
  // Lane 7 of tile 1 (columns 135, 167, 199, 231) in bands of 135 … 300 columns.
  EXPECT_EQ(cell::cells_inside(135, 135, 4), 0);
  EXPECT_EQ(cell::cells_inside(135, 136, 4), 1);
  EXPECT_EQ(cell::cells_inside(135, 167, 4), 1);
  EXPECT_EQ(cell::cells_inside(135, 168, 4), 2);
  EXPECT_EQ(cell::cells_inside(135, 231, 4), 3);
  EXPECT_EQ(cell::cells_inside(135, 232, 4), 4);
  EXPECT_EQ(cell::cells_inside(135, 300, 4), 4);
}

/// Every stage's summed plane as the kernel's lanes make it, the grid walked as the GPU does.
template <int Numharm, bool Whole>
void sum_lane(const cell::BandSource<Numharm>& source, cell::WarpPlace place, std::uint32_t lane,
              std::vector<std::vector<float>>& planes, std::vector<int>& visits) {
  constexpr int columns = cell::columns_per_lane<Numharm>;
  constexpr int n_stages = cell::stage_count(Numharm);
  const std::uint32_t first = cell::lane_first_column(place, lane, columns);
  const int inside = cell::cells_inside(first, source.n_cols, columns);
  if (Whole) {
    EXPECT_EQ(inside, columns);
  }
  float values[columns][Numharm];
  cell::gather_lane<Numharm, columns, Whole>(source, place, lane, values);
  for (int c = 0; c < columns; ++c) {
    float sums[n_stages];
    cell::sum_stages<Numharm>(values[c], sums);
    if (c >= inside) {
      EXPECT_EQ(sums[n_stages - 1], 0.0F) << "a cell past the band was read";
      continue;
    }
    const std::size_t flat = std::size_t{place.row} * source.n_cols + first + 32U * static_cast<std::uint32_t>(c);
    for (int s = 0; s < n_stages; ++s) planes[static_cast<std::size_t>(s)][flat] = sums[s];
    ++visits[flat];
  }
}

template <int Numharm>
std::vector<std::vector<float>> emulate_grid(const PowerPlaneView& plane, std::int64_t i_begin, std::int64_t i_end,
                                             std::vector<int>& visits) {
  constexpr int columns = cell::columns_per_lane<Numharm>;
  const auto n_rows = static_cast<std::uint32_t>(plane.n_z());
  const auto n_cols = static_cast<std::uint32_t>(i_end - i_begin);
  const std::vector<int> rows = harmonic_z_rows(plane.z_max, Numharm);
  const auto source = cell::make_band_source<Numharm>(plane.data, static_cast<std::uint32_t>(plane.n_i), plane.i_first,
                                                      rows.data(), n_rows, i_begin, n_cols);
  std::vector<std::vector<float>> planes(cell::stage_count(Numharm), std::vector<float>(std::size_t{n_rows} * n_cols));
  visits.assign(std::size_t{n_rows} * n_cols, 0);
  const std::size_t blocks = cell::block_count(n_rows, n_cols, cell::tile_width(columns));
  for (std::size_t b = 0; b < blocks; ++b)
    for (std::uint32_t w = 0; w < cell::rows_per_block; ++w) {
      const cell::WarpPlace place = cell::warp_place(static_cast<std::uint32_t>(b), w, n_rows);
      if (place.row >= n_rows) continue;
      for (std::uint32_t lane = 0; lane < cell::warp_size; ++lane) {
        if (cell::tile_is_whole(place, n_cols, columns))
          sum_lane<Numharm, true>(source, place, lane, planes, visits);
        else
          sum_lane<Numharm, false>(source, place, lane, planes, visits);
      }
    }
  return planes;
}

std::vector<std::vector<float>> emulate(int numharm, const PowerPlaneView& plane, std::int64_t i_begin,
                                        std::int64_t i_end, std::vector<int>& visits) {
  switch (numharm) {
    case 1: return emulate_grid<1>(plane, i_begin, i_end, visits);
    case 2: return emulate_grid<2>(plane, i_begin, i_end, visits);
    case 4: return emulate_grid<4>(plane, i_begin, i_end, visits);
    case 8: return emulate_grid<8>(plane, i_begin, i_end, visits);
    case 16: return emulate_grid<16>(plane, i_begin, i_end, visits);
    default: return emulate_grid<32>(plane, i_begin, i_end, visits);
  }
}

struct Case {
  int z_max;
  std::int64_t width;  ///< summed columns
  int numharm;
  std::int64_t shift = 0;      ///< added to the band's first half bin (its place mod 32)
  std::int64_t i_first = 100;  ///< the plane's first half bin
};

void PrintTo(const Case& c, std::ostream* os) {
  *os << "z_max " << c.z_max << ", " << c.width << " columns, numharm " << c.numharm << ", shift " << c.shift
      << ", i_first " << c.i_first;
}

class HarmonicSumGrid : public ::testing::TestWithParam<Case> {};

TEST_P(HarmonicSumGrid, EmulatedKernelIsTheReferenceBitForBit) {
  const Case c = GetParam();
  // The band starts at or above the lowest i whose sub-harmonics lie in the plane, which ends at
  // the band's last column: a read past either end of `data` is a bug (and an ASan report).
  const std::int64_t i_first = c.i_first, i_begin = c.i_first * c.numharm + 64 + c.shift, i_end = i_begin + c.width;
  const std::int64_t n_i = i_end - i_first;
  std::mt19937_64 rng(static_cast<std::uint64_t>(std::int64_t{c.z_max} * 1000 + c.width * 40 + c.numharm + c.shift));
  std::exponential_distribution<float> noise(1.0F);
  std::vector<float> data(static_cast<std::size_t>(c.z_max + 1) * static_cast<std::size_t>(n_i));
  for (auto& v : data) v = noise(rng);
  const PowerPlaneView plane{data.data(), c.z_max, i_first, n_i};

  std::vector<std::vector<float>> want;
  harmonic_sum_reference(plane, i_begin, i_end, c.numharm, [&](const HarmonicStage&, std::span<const float> summed) {
    want.emplace_back(summed.begin(), summed.end());
  });
  std::vector<int> visits;
  const auto got = emulate(c.numharm, plane, i_begin, i_end, visits);
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t s = 0; s < got.size(); ++s) EXPECT_EQ(got[s], want[s]) << "stage " << s;
  EXPECT_EQ(std::count(visits.begin(), visits.end(), 1), static_cast<std::ptrdiff_t>(visits.size()))
      << "a cell summed twice or never";
}

// Tiles are 128 columns up to 16 harmonics, 64 for 32; rows 1, 7, 9, 17, 33, 201 (groups of 8).
INSTANTIATE_TEST_SUITE_P(Widths, HarmonicSumGrid,
                         ::testing::Values(Case{0, 1, 1}, Case{0, 1, 32}, Case{10, 1, 8}, Case{10, 31, 8},
                                           Case{10, 32, 8}, Case{10, 33, 8, 5}, Case{6, 127, 4, 31}, Case{6, 128, 4},
                                           Case{8, 129, 4, 17}, Case{20, 255, 4, 1}, Case{20, 256, 4, 30},
                                           Case{20, 257, 4, 3}, Case{6, 513, 2, 9}, Case{200, 300, 8, 13},
                                           Case{10, 700, 16, 7}, Case{16, 63, 32, 21}, Case{30, 257, 32, 11},
                                           Case{32, 1000, 1, 23}, Case{0, 5000, 8, 2}, Case{16, 640, 8, 31},
                                           // A plane far up the spectrum (one harmonic: its sub-harmonics would need a
                                           // plane from half its band): the launch's part of the columns needs 64 bits.
                                           Case{8, 300, 1, 7, (std::int64_t{1} << 33) + 5}));

}  // namespace
}  // namespace astrosweep::fdas
