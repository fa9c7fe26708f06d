#pragma once
// The device pool of cells above their stage's threshold, shared by the two kernels that keep
// them: the fused harmonic sum (harmonic_sum.cu, every stage) and, for a search of one harmonic,
// the shared-memory correlation (correlation_fused.cu, stage 0, no plane written). A kernel takes
// its places with one atomic a warp (keep_cells in cell_pool_device.cuh); the host brings the
// counters and the cells down and sorts them by stage, then z-major and r-ascending, as the CPU
// visits them. Host code of the kernels/fdas folder (includes CUDA's runtime header).

#include <cuda_runtime_api.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "cell_pool_view.hpp"
#include "cuda_memory.hpp"
#include "harmonic_sum_cuda.hpp"

namespace astrosweep::fdas::kernels {

class CellPool {
 public:
  /// Device bytes of a pool of `max_cells` for `stages` stages.
  static std::size_t device_bytes(std::size_t stages, std::size_t max_cells);

  /// The counters of `stages` stages zeroed on `stream`, room for `max(max_cells, 1)` cells.
  CellPoolView prepare(std::size_t stages, std::size_t max_cells, cudaStream_t stream);

  /// After the kernel (queued on `stream` after prepare): the counters down, RuntimeError when the
  /// stages together kept more than `max_cells` (naming each stage by `stage_numharm`), else the
  /// cells down and sorted. Cell k of a row is column i_begin + k of an n_cols-wide band. Records
  /// `downloaded` on `stream` when the cells have arrived.
  std::vector<StageCells> collect(const std::vector<int>& stage_numharm, std::size_t max_cells, std::int64_t i_begin,
                                  std::size_t n_cols, cuda::Stream& stream, cuda::Event& downloaded);

  /// Cells above each stage's threshold in the last collect (stage s at [s]; zero past its stages).
  [[nodiscard]] const std::array<unsigned long long, max_stages>& last_cells_above() const noexcept {
    return last_above_;
  }

 private:
  cuda::DeviceMemory counts_, cells_, powers_;
  std::array<unsigned long long, max_stages> last_above_{};
};

}  // namespace astrosweep::fdas::kernels
