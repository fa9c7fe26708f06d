#pragma once
// Launcher of the fused harmonic-sum kernel (harmonic_sum.cu) for harmonic_sum_cuda.cpp.

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "cell_pool_view.hpp"

namespace astrosweep::fdas::kernels {

/// What the kernel sums: numharm harmonics, stage by stage in harmonic_stages' order
/// (harmonic_sum_cell.hpp's read_harmonic), each stage's sum tested against its powcut.
struct HarmonicSumPlan {
  int numharm = 1;  ///< 1, 2, 4, 8, 16 or 32
  float powcut[max_stages] = {};
};

/// The device memory the kernel reads and writes.
struct HarmonicSumBuffers {
  const float* plane = nullptr;  ///< z-major, row stride `stride` floats, first column i_first
  std::size_t stride = 0;
  std::int64_t i_first = 0;
  /// Per summed row, the z row each of its numharm harmonics reads (harmonic_z_rows' layout).
  const int* rows = nullptr;
  CellPoolView pool;        ///< the cells above their stage's threshold
  float* summed = nullptr;  ///< optional: the last stage's plane
};

/// For every cell (row, k) of columns i_begin + k, k < n_cols: sums the stages in order and keeps
/// the cells above each stage's threshold, in no order, in one pool. `pool.counts` (1 + stages) must be
/// zero on entry. Each lane sums a few cells of one row, 32 columns apart; blocks of 8 warps take 8
/// rows of a column tile, all rows of a tile before the next (harmonic_sum_cell.hpp). UsageError
/// for rows of 2^31 half bins or more, or more than 65535 rows.
void launch_harmonic_sum(const HarmonicSumPlan& plan, const HarmonicSumBuffers& buffers, std::int64_t i_begin,
                         std::size_t n_rows, std::size_t n_cols, cudaStream_t stream);

}  // namespace astrosweep::fdas::kernels
