#pragma once
// One lane of the GPU's fused harmonic sum (kernels/fdas/harmonic_sum.cu), shared through
// AS_HOST_DEVICE with the CPU tests that emulate the kernel's grid (test_harmonic_sum_cell): which
// cells a lane of a warp sums, which plane cells it reads for every harmonic, and the float
// additions in harmonic_sum_reference's order (stage by stage, h ascending). No products, so
// nothing for nvcc to contract into an FMA: the sums are the CPU's bit for bit.
//
// Why this shape (docs/fdas.md, "the harmonic sum on the GPU"):
// - The kernel was bound by instruction issue, not DRAM: one cell a thread cost ≈ 210 warp
//   instructions for 8 harmonics (a 64-bit column and address per harmonic, the block's row by a
//   division). A lane now sums `columns_per_lane` cells of one row, 32 columns apart: the row's
//   table reads and the address of each harmonic are made once for all of them, and since 32·h/H
//   is an integer the harmonic's column for the lane's c-th cell is its first one's plus 32·c·h/H,
//   a constant offset of the same load (no arithmetic). Every load of a warp still reads 32
//   consecutive columns of the fundamental (coalesced) and h/H of that of a sub-harmonic.
// - Columns are split into a part common to the launch (the band's first half bin rounded down
//   to a multiple of 32, its plane offset per harmonic made once on the host: BandSource::origin),
//   one to the warp's tile (tile · tile_width · h/H, exact) and a 32-bit one to the lane, so no
//   64-bit column arithmetic is left per lane.
// - A block is 8 warps on 8 consecutive rows of one column tile, and blocks take the row groups of
//   tile 0, then of tile 1, …: the blocks resident together cover every row of a few tiles, so the
//   sub-harmonic rows that neighbouring summed rows share (row z·h/H serves H/h of them) come from
//   L2 (or, within a block, L1), and DRAM sees each plane cell about once per harmonic region.
// - A lane issues every read (its row's table entries, then every harmonic of every cell) before
//   it adds anything: the loads are independent and in flight together.

#include <cstddef>
#include <cstdint>

#include "core/host_device.hpp"

// Loops over a cell's harmonics and a lane's cells unrolled on the device (their counts are
// template arguments), so that the values stay in registers.
#if defined(__CUDACC__)
#define AS_CELL_UNROLL _Pragma("unroll")
#else
#define AS_CELL_UNROLL
#endif

namespace astrosweep::fdas::cell {

/// Lanes of a warp, and the columns between a lane's consecutive cells.
inline constexpr std::uint32_t warp_size = 32;
/// Warps of a block, each on its own summed row.
inline constexpr std::uint32_t rows_per_block = 8;

/// Cells a lane sums: 4 up to 16 harmonics, 2 for 32 (at most 64 values in registers; no spills,
/// 48 registers for 8 harmonics, 80 for 16 and 32). More cells a lane share more of the row's
/// table reads and address arithmetic but hold more registers: for 8 harmonics, 8 cells would take
/// ≈ 35 instructions a cell instead of ≈ 52 at 80 registers instead of 48 (docs/fdas.md).
template <int Numharm>
inline constexpr int columns_per_lane = Numharm <= 16 ? 4 : 2;

/// Columns of a warp's tile: its lanes' cells, 32 apart.
AS_HOST_DEVICE constexpr std::uint32_t tile_width(int columns) {
  return warp_size * static_cast<std::uint32_t>(columns);
}

/// Stages of a harmonic sum to `numharm` (a power of two): 1 + log₂ numharm.
AS_HOST_DEVICE constexpr int stage_count(int numharm) { return numharm <= 1 ? 1 : 1 + stage_count(numharm / 2); }

/// Harmonic h of H = 2^stage read by a summed cell.
struct Harmonic {
  int stage = 0;
  int h = 1;
};

/// The a-th harmonic added after the fundamental (a = 0 … numharm − 2), in harmonic_stages'
/// order: stage s (H = 2^s) adds the odd h < H in ascending order, after the 2^(s−1) − 1 added
/// by the stages before it.
AS_HOST_DEVICE constexpr Harmonic added_harmonic(int a) {
  int stage = 1;
  while ((1 << stage) - 1 <= a) ++stage;  // stage s holds a = 2^(s−1) − 1 … 2^s − 2
  const int first = (1 << (stage - 1)) - 1;
  return Harmonic{stage, 2 * (a - first) + 1};
}

/// The m-th value a cell reads: m = 0 the fundamental (1 of 1), m ≥ 1 the (m − 1)-th added.
AS_HOST_DEVICE constexpr Harmonic read_harmonic(int m) { return m == 0 ? Harmonic{0, 1} : added_harmonic(m - 1); }

/// The first added harmonic of stage s ≥ 1 (and, for s = stage_count, one past the last).
AS_HOST_DEVICE constexpr int first_added_of_stage(int stage) { return (1 << (stage - 1)) - 1; }

/// sub_harmonic_index in shifts: ⌊i·h/H + ½⌋ = (2ih + H) >> (s + 1) for i ≥ 0, H = 2^s.
AS_HOST_DEVICE inline std::int64_t added_column(std::int64_t i, Harmonic harmonic) {
  return (2 * i * harmonic.h + (std::int64_t{1} << harmonic.stage)) >> (harmonic.stage + 1);
}

/// The same for i = 32q + u, split where 32q·h/H is exact: 32q·h/H + ⌊u·h/H + ½⌋ (u ≥ 0 small).
AS_HOST_DEVICE constexpr std::uint32_t lane_column(std::uint32_t u, Harmonic harmonic) {
  return (2 * u * static_cast<std::uint32_t>(harmonic.h) + (1U << harmonic.stage)) >> (harmonic.stage + 1);
}

/// How far a harmonic's column moves when the summed column moves by `step`, a multiple of 32.
AS_HOST_DEVICE constexpr std::uint32_t column_step(std::uint32_t step, Harmonic harmonic) {
  return (step >> harmonic.stage) * static_cast<std::uint32_t>(harmonic.h);
}

/// Where the sum of a band of columns reads. The plane is z-major with row stride `stride`; the
/// band is n_cols columns of half-bin index i_begin + k. With i_begin = 32q + r, the cell at band
/// column k reads, for harmonic m (read_harmonic), plane column origin[m] + lane_column(r + k, m)
/// (offsets from the row's start), origin[m] = 32q·h/H − i_first: make_band_source.
template <int Numharm>
struct BandSource {
  const float* plane = nullptr;
  std::uint32_t stride = 0;  ///< < 2^31 (harmonic_sum_cuda checks), so row·stride fits 47 bits
  /// Per summed row, the z row each of its Numharm harmonics reads (harmonic_z_rows: row-major,
  /// in read_harmonic's order; 16-byte aligned).
  const int* rows = nullptr;
  std::uint32_t n_rows = 0;
  std::uint32_t n_cols = 0;
  std::uint32_t first_lane_column = 0;  ///< r = i_begin mod 32
  std::int64_t origin[Numharm] = {};
};

template <int Numharm>
AS_HOST_DEVICE inline BandSource<Numharm> make_band_source(const float* plane, std::uint32_t stride,
                                                           std::int64_t i_first, const int* rows, std::uint32_t n_rows,
                                                           std::int64_t i_begin, std::uint32_t n_cols) {
  BandSource<Numharm> source;
  source.plane = plane;
  source.stride = stride;
  source.rows = rows;
  source.n_rows = n_rows;
  source.n_cols = n_cols;
  source.first_lane_column = static_cast<std::uint32_t>(i_begin % warp_size);
  const std::int64_t q = i_begin / warp_size;  // i_begin ≥ 0
  for (int m = 0; m < Numharm; ++m) {
    const Harmonic harmonic = read_harmonic(m);
    source.origin[m] = q * static_cast<std::int64_t>(column_step(warp_size, harmonic)) - i_first;
  }
  return source;
}

/// The summed row and column tile of warp `warp` of block `block`: blocks take the row groups of
/// tile 0 in turn, then those of tile 1, …; a group is rows_per_block consecutive rows. A warp
/// whose row is ≥ n_rows (the last group's) has nothing to sum.
struct WarpPlace {
  std::uint32_t row = 0;
  std::uint32_t tile = 0;
};

AS_HOST_DEVICE inline std::uint32_t row_groups(std::uint32_t n_rows) {
  return (n_rows + rows_per_block - 1) / rows_per_block;
}

AS_HOST_DEVICE inline WarpPlace warp_place(std::uint32_t block, std::uint32_t warp, std::uint32_t n_rows) {
  // 32-bit division (blocks < 2^31, rows ≤ 65535): once a warp for all its lanes' cells.
  const std::uint32_t groups = row_groups(n_rows);
  return WarpPlace{(block % groups) * rows_per_block + warp, block / groups};
}

/// Blocks of a launch over n_rows × n_cols cells, tiles of `tile` columns.
AS_HOST_DEVICE inline std::size_t block_count(std::size_t n_rows, std::size_t n_cols, std::size_t tile) {
  return row_groups(static_cast<std::uint32_t>(n_rows)) * ((n_cols + tile - 1) / tile);
}

/// Band column of lane `lane`'s first cell; its c-th is 32·c further.
AS_HOST_DEVICE inline std::uint32_t lane_first_column(WarpPlace place, std::uint32_t lane, int columns) {
  return place.tile * tile_width(columns) + lane;
}

/// Whether every cell of the warp's tile lies in the band (all but the last tile).
AS_HOST_DEVICE inline bool tile_is_whole(WarpPlace place, std::uint32_t n_cols, int columns) {
  return (std::uint64_t{place.tile} + 1) * tile_width(columns) <= n_cols;
}

/// How many of a lane's cells (first, first + 32, …) lie in the band.
AS_HOST_DEVICE inline int cells_inside(std::uint32_t first, std::uint32_t n_cols, int columns) {
  if (first >= n_cols) return 0;
  const std::uint32_t inside = (n_cols - first + warp_size - 1) / warp_size;
  return inside < static_cast<std::uint32_t>(columns) ? static_cast<int>(inside) : columns;
}

/// A read of memory the kernel never writes: through the read-only cache on the device.
template <class T>
AS_HOST_DEVICE inline T read_only(const T* p) {
#if defined(__CUDA_ARCH__)
  return __ldg(p);
#else
  return *p;
#endif
}

/// The z rows that summed row `row` reads, its table entries (harmonic_z_rows) but the first:
/// the fundamental's is the row itself, known without a read. On the device a row's entries come
/// in 16-byte loads (the same address across the warp: one transaction).
template <int Numharm>
AS_HOST_DEVICE inline void read_z_rows(const int* rows, std::uint32_t row, std::uint32_t (&z_rows)[Numharm]) {
  const int* entries = rows + std::size_t{row} * Numharm;
#if defined(__CUDA_ARCH__)
  if constexpr (Numharm % 4 == 0) {
    AS_CELL_UNROLL
    for (int q = 0; q < Numharm / 4; ++q) {
      const int4 four = __ldg(reinterpret_cast<const int4*>(entries) + q);
      z_rows[4 * q] = static_cast<std::uint32_t>(four.x);
      z_rows[4 * q + 1] = static_cast<std::uint32_t>(four.y);
      z_rows[4 * q + 2] = static_cast<std::uint32_t>(four.z);
      z_rows[4 * q + 3] = static_cast<std::uint32_t>(four.w);
    }
    z_rows[0] = row;
    return;
  }
#endif
  z_rows[0] = row;
  AS_CELL_UNROLL
  for (int m = 1; m < Numharm; ++m) z_rows[m] = static_cast<std::uint32_t>(read_only(entries + m));
}

/// Every value the lane's cells sum, read before any is added: values[c][0] the fundamental of
/// its c-th cell, values[c][m] its m-th harmonic (read_harmonic). With Whole false (the last
/// tile) the cells past the band are not read and their values are 0. Numharm 1, 2, 4, … 32.
template <int Numharm, int Columns, bool Whole>
AS_HOST_DEVICE inline void gather_lane(const BandSource<Numharm>& source, WarpPlace place, std::uint32_t lane,
                                       float (&values)[Columns][Numharm]) {
  const int inside = Whole ? Columns : cells_inside(lane_first_column(place, lane, Columns), source.n_cols, Columns);
  std::uint32_t z_rows[Numharm];
  read_z_rows<Numharm>(source.rows, place.row, z_rows);
  const std::uint32_t u = source.first_lane_column + lane;
  AS_CELL_UNROLL
  for (int m = 0; m < Numharm; ++m) {
    const Harmonic harmonic = read_harmonic(m);
    const std::uint32_t column = place.tile * column_step(tile_width(Columns), harmonic) + lane_column(u, harmonic);
    // Where the lane's first cell reads, from the plane's start (≥ 0 for a cell in the band).
    const std::int64_t first =
        static_cast<std::int64_t>(std::uint64_t{z_rows[m]} * source.stride) + source.origin[m] + column;
    AS_CELL_UNROLL
    for (int c = 0; c < Columns; ++c) {
      const std::uint32_t offset = static_cast<std::uint32_t>(c) * column_step(warp_size, harmonic);
      values[c][m] = (Whole || c < inside) ? read_only(source.plane + (first + offset)) : 0.0F;
    }
  }
}

/// The cell's sum after every stage, in harmonic_sum_reference's order: the fundamental, then per
/// stage its harmonics with h ascending, one float addition each. One flat loop over the added
/// harmonics (stage s ends where a + 2 = 2^s), which nvcc unrolls whole, keeping every value in a
/// register.
template <int Numharm>
AS_HOST_DEVICE inline void sum_stages(const float (&values)[Numharm], float (&sums)[stage_count(Numharm)]) {
  float sum = values[0];
  sums[0] = sum;
  int stage = 1;
  AS_CELL_UNROLL
  for (int a = 0; a + 1 < Numharm; ++a) {
    sum += values[1 + a];
    if (a + 2 == 1 << stage) sums[stage++] = sum;
  }
}

}  // namespace astrosweep::fdas::cell
