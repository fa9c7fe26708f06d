#pragma once
// The pool of cells above a stage's threshold as a kernel sees it (device pointers), shared by the
// fused harmonic sum and the shared-memory correlation's one-harmonic search; made ready and
// read back by CellPool (cell_pool_cuda.hpp), written by keep_cells (cell_pool_device.cuh).

namespace astrosweep::fdas::kernels {

/// At most log2(32) + 1 stages.
constexpr int max_stages = 6;

/// Where a kept cell's stage sits in its 64-bit entry (the flat index stays below 2^58).
constexpr int stage_shift = 58;

struct CellPoolView {
  /// [0]: cells above their stage's threshold, all stages; [1 + s]: those of stage s.
  unsigned long long* counts = nullptr;
  unsigned long long capacity = 0;      ///< cells kept, all stages together
  unsigned long long* cells = nullptr;  ///< (stage << stage_shift) | (row·n_cols + k)
  float* powers = nullptr;              ///< their (summed) powers
};

}  // namespace astrosweep::fdas::kernels
