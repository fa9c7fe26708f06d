#pragma once
// One cell of the GPU's fused harmonic sum (kernels/fdas/harmonic_sum.cu), shared through
// AS_HOST_DEVICE with the CPU tests that emulate the kernel's grid (test_harmonic_sum_cell): which
// cell a thread of a block sums, which plane cells it reads for every harmonic, and the float
// additions in harmonic_sum_reference's order (stage by stage, h ascending). No products, so
// nothing for nvcc to contract into an FMA: the sums are the CPU's bit for bit.
//
// Why this shape (docs/fdas.md, "the harmonic sum on the GPU"):
// - Blocks walk the rows of one narrow column tile before the next tile (row = block mod n_rows),
//   so the blocks resident together cover every row of a few tiles: the sub-harmonic rows that
//   neighbouring summed rows share come from L2, and DRAM sees each plane cell about once
//   (≈ 3.2 plane reads for 8 harmonics) instead of once per summed row that reads it.
// - A thread issues every read of its cell (all z rows of the table, then all plane values)
//   before it adds anything: the loads are independent and in flight together, where a loop that
//   reads, adds and tests stage by stage waits for each in turn.

#include <cstddef>
#include <cstdint>

#include "core/host_device.hpp"

// Loops over a cell's harmonics unrolled on the device (their count is a template argument), so
// that the values stay in registers.
#if defined(__CUDACC__)
#define AS_CELL_UNROLL _Pragma("unroll")
#else
#define AS_CELL_UNROLL
#endif

namespace astrosweep::fdas::cell {

/// Stages of a harmonic sum to `numharm` (a power of two): 1 + log₂ numharm.
AS_HOST_DEVICE constexpr int stage_count(int numharm) { return numharm <= 1 ? 1 : 1 + stage_count(numharm / 2); }

/// The a-th harmonic added after the fundamental (a = 0 … numharm − 2), in harmonic_stages'
/// order: stage s (H = 2^s) adds the odd h < H in ascending order, after the 2^(s−1) − 1 added
/// by the stages before it.
struct AddedHarmonic {
  int stage = 1;
  int h = 1;
};

AS_HOST_DEVICE constexpr AddedHarmonic added_harmonic(int a) {
  int stage = 1;
  while ((1 << stage) - 1 <= a) ++stage;  // stage s holds a = 2^(s−1) − 1 … 2^s − 2
  const int first = (1 << (stage - 1)) - 1;
  return AddedHarmonic{stage, 2 * (a - first) + 1};
}

/// The first added harmonic of stage s ≥ 1 (and, for s = stage_count, one past the last).
AS_HOST_DEVICE constexpr int first_added_of_stage(int stage) { return (1 << (stage - 1)) - 1; }

/// sub_harmonic_index in shifts: ⌊i·h/H + ½⌋ = (2ih + H) >> (s + 1) for i ≥ 0, H = 2^s.
AS_HOST_DEVICE inline std::int64_t added_column(std::int64_t i, AddedHarmonic added) {
  return (2 * i * added.h + (std::int64_t{1} << added.stage)) >> (added.stage + 1);
}

/// Where the sum reads: the plane (z-major, row stride `stride`, first half bin i_first) and the
/// tables of the z row read for each summed row (numharm − 1 tables of n_rows, in added order:
/// added_z_row_tables).
struct CellSource {
  const float* plane = nullptr;
  std::size_t stride = 0;
  std::int64_t i_first = 0;
  const int* rows = nullptr;
  std::size_t n_rows = 0;
};

/// The summed cell of thread `thread` of block `block`: blocks take the rows of column tile 0 in
/// turn, then those of tile 1, …; a tile is `block_size` consecutive columns.
struct CellPlace {
  std::size_t row = 0;
  std::size_t k = 0;  ///< column within the summed band
};

AS_HOST_DEVICE inline CellPlace cell_place(std::uint32_t block, std::uint32_t thread, std::uint32_t n_rows,
                                           std::uint32_t block_size) {
  // 32-bit division (blocks < 2^31, rows ≤ 65535): one per thread, cheaper than a 64-bit one.
  return CellPlace{block % n_rows, std::size_t{block / n_rows} * block_size + thread};
}

/// Blocks of a launch over n_rows × n_cols cells.
AS_HOST_DEVICE inline std::size_t block_count(std::size_t n_rows, std::size_t n_cols, std::size_t block_size) {
  return n_rows * ((n_cols + block_size - 1) / block_size);
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

/// Every value cell (row, i) sums, read before any is added: values[0] the fundamental, values[1 + a]
/// the a-th added harmonic. Numharm 1, 2, 4, … 32; i ≥ 0.
template <int Numharm>
AS_HOST_DEVICE inline void gather_cell(const CellSource& source, std::size_t row, std::int64_t i,
                                       float (&values)[Numharm]) {
  int z_rows[Numharm];
  AS_CELL_UNROLL
  for (int a = 0; a + 1 < Numharm; ++a)
    z_rows[a] = read_only(source.rows + static_cast<std::size_t>(a) * source.n_rows + row);
  values[0] = read_only(source.plane + row * source.stride + static_cast<std::size_t>(i - source.i_first));
  AS_CELL_UNROLL
  for (int a = 0; a + 1 < Numharm; ++a) {
    const std::int64_t column = added_column(i, added_harmonic(a));
    values[1 + a] = read_only(source.plane + static_cast<std::size_t>(z_rows[a]) * source.stride +
                              static_cast<std::size_t>(column - source.i_first));
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
