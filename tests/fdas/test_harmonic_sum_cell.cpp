// The GPU harmonic sum's per-thread code (harmonic_sum_cell.hpp) run on the host: the kernel's grid
// emulated block by block and thread by thread (which cell each thread sums, which plane cells it
// reads, the additions in its order) must give every stage's summed plane of
// harmonic_sum_reference bit for bit, every cell summed exactly once, for widths around the
// 256-column tile, one column, one row, and numharm 1 … 32. The kernel's added-harmonic order and
// column rule against harmonic_stages and sub_harmonic_index, which define them.
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

constexpr std::uint32_t block_size = 256;  // harmonic_sum.cu's block

TEST(HarmonicSumCell, AddedHarmonicsFollowTheStages) {
  for (const int numharm : {1, 2, 4, 8, 16, 32}) {
    const auto stages = harmonic_stages(numharm);
    EXPECT_EQ(cell::stage_count(numharm), static_cast<int>(stages.size())) << numharm;
    int a = 0;
    for (const auto& stage : stages) {
      if (stage.stage > 0) {
        EXPECT_EQ(cell::first_added_of_stage(stage.stage), a) << numharm;
      }
      for (const int h : stage.harmonics) {
        const cell::AddedHarmonic added = cell::added_harmonic(a);
        EXPECT_EQ(added.stage, stage.stage) << "added harmonic " << a;
        EXPECT_EQ(added.h, h) << "added harmonic " << a;
        ++a;
      }
    }
    EXPECT_EQ(a, numharm - 1);
    EXPECT_EQ(cell::first_added_of_stage(cell::stage_count(numharm)), numharm - 1) << numharm;
  }
}

TEST(HarmonicSumCell, AddedColumnIsTheSubHarmonicIndex) {
  for (int a = 0; a < 31; ++a) {
    const cell::AddedHarmonic added = cell::added_harmonic(a);
    for (std::int64_t i = 0; i < 20000; ++i)
      ASSERT_EQ(cell::added_column(i, added), sub_harmonic_index(i, added.h, 1 << added.stage))
          << "h " << added.h << " of " << (1 << added.stage) << ", i " << i;
    const std::int64_t big = std::int64_t{1} << 40;  // far past any spectrum: no overflow in 2ih + H
    EXPECT_EQ(cell::added_column(big + 3, added), sub_harmonic_index(big + 3, added.h, 1 << added.stage));
  }
}

TEST(HarmonicSumCell, TablesAreTheStagesTablesInOrder) {
  const int z_max = 40;
  const auto tables = added_z_row_tables(z_max, 16);
  ASSERT_EQ(tables.size(), 15U * (z_max + 1));
  for (int a = 0; a < 15; ++a) {
    const cell::AddedHarmonic added = cell::added_harmonic(a);
    const auto want = sub_harmonic_z_row_table(z_max, added.h, 1 << added.stage);
    const std::span<const int> got(tables.data() + static_cast<std::size_t>(a) * (z_max + 1), z_max + 1);
    EXPECT_TRUE(std::equal(got.begin(), got.end(), want.begin())) << "added harmonic " << a;
  }
  EXPECT_TRUE(added_z_row_tables(z_max, 1).empty());
}

TEST(HarmonicSumCell, BlocksTakeEveryRowOfATileBeforeTheNextTile) {
  // 3 rows, 300 columns: tiles of 256 and 44 columns, blocks 0-2 tile 0, blocks 3-5 tile 1.
  EXPECT_EQ(cell::block_count(3, 300, block_size), 6U);
  EXPECT_EQ(cell::block_count(3, 256, block_size), 3U);
  EXPECT_EQ(cell::block_count(3, 257, block_size), 6U);
  const cell::CellPlace p = cell::cell_place(4, 7, 3, block_size);
  EXPECT_EQ(p.row, 1U);
  EXPECT_EQ(p.k, 256U + 7U);
}

/// Every stage's summed plane as the kernel's threads make it, the grid walked as the GPU does.
template <int Numharm>
std::vector<std::vector<float>> emulate_grid(const PowerPlaneView& plane, std::int64_t i_begin, std::int64_t i_end,
                                             std::vector<int>& visits) {
  constexpr int n_stages = cell::stage_count(Numharm);
  const auto n_rows = static_cast<std::size_t>(plane.n_z());
  const auto n_cols = static_cast<std::size_t>(i_end - i_begin);
  const std::vector<int> rows = added_z_row_tables(plane.z_max, Numharm);
  const cell::CellSource source{plane.data, static_cast<std::size_t>(plane.n_i), plane.i_first, rows.data(), n_rows};
  std::vector<std::vector<float>> planes(n_stages, std::vector<float>(n_rows * n_cols));
  visits.assign(n_rows * n_cols, 0);
  const std::size_t blocks = cell::block_count(n_rows, n_cols, block_size);
  for (std::size_t b = 0; b < blocks; ++b)
    for (std::uint32_t t = 0; t < block_size; ++t) {
      const cell::CellPlace place =
          cell::cell_place(static_cast<std::uint32_t>(b), t, static_cast<std::uint32_t>(n_rows), block_size);
      EXPECT_LT(place.row, n_rows);
      if (place.k >= n_cols) continue;
      float values[Numharm];
      cell::gather_cell<Numharm>(source, place.row, i_begin + static_cast<std::int64_t>(place.k), values);
      float sums[n_stages];
      cell::sum_stages<Numharm>(values, sums);
      const std::size_t flat = place.row * n_cols + place.k;
      for (int s = 0; s < n_stages; ++s) planes[static_cast<std::size_t>(s)][flat] = sums[s];
      ++visits[flat];
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
};

void PrintTo(const Case& c, std::ostream* os) {
  *os << "z_max " << c.z_max << ", " << c.width << " columns, numharm " << c.numharm;
}

class HarmonicSumGrid : public ::testing::TestWithParam<Case> {};

TEST_P(HarmonicSumGrid, EmulatedKernelIsTheReferenceBitForBit) {
  const Case c = GetParam();
  // The plane starts at half bin 100 and the band at the lowest i whose sub-harmonics lie in it.
  const std::int64_t i_first = 100, i_begin = 100 * c.numharm + 64, i_end = i_begin + c.width;
  const std::int64_t n_i = i_end - i_first;
  std::mt19937_64 rng(static_cast<std::uint64_t>(std::int64_t{c.z_max} * 1000 + c.width * 40 + c.numharm));
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

INSTANTIATE_TEST_SUITE_P(Widths, HarmonicSumGrid,
                         ::testing::Values(Case{0, 1, 1}, Case{0, 1, 32}, Case{10, 1, 8}, Case{10, 31, 8},
                                           Case{10, 32, 8}, Case{10, 33, 8}, Case{20, 255, 4}, Case{20, 256, 4},
                                           Case{20, 257, 4}, Case{6, 513, 2}, Case{200, 300, 8}, Case{10, 700, 16},
                                           Case{30, 257, 32}, Case{0, 5000, 8}));

}  // namespace
}  // namespace astrosweep::fdas
