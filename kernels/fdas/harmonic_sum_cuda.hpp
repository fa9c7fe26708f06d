#pragma once
// The harmonic sum and each stage's threshold on a GPU (twin of harmonic_sum_reference and
// detect_stage_candidates, jobs/fdas): the cells read are those of the tables that define them
// (the rows from sub_harmonic_z_row_table, the columns by sub_harmonic_index's integer rule), the
// same float additions in the same order per cell (so the summed powers are bit-identical to the
// CPU's), and per stage the cells above its threshold compacted on the device (one pool for all
// stages) and returned in
// z-major, r-ascending order for the host's candidate list. One fused pass: every stage is summed
// in registers, nothing but the cells above a threshold is written.
// Plain C++: the job includes this header without CUDA's.

#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include "harmonic_tables.hpp"

namespace astrosweep::fdas::kernels {

/// The cells of one stage above its threshold, z-major and r-ascending.
struct StageCells {
  std::vector<int> row;              ///< z row of the summed plane
  std::vector<std::int64_t> column;  ///< half-bin index i
  std::vector<float> power;
};

/// The harmonic sum on the current device, its buffers and stream kept from one series to the next.
class CudaHarmonicDetector {
 public:
  CudaHarmonicDetector();
  ~CudaHarmonicDetector();
  CudaHarmonicDetector(const CudaHarmonicDetector&) = delete;
  CudaHarmonicDetector& operator=(const CudaHarmonicDetector&) = delete;

  /// Sums columns [i_begin, i_end) of `device_plane` (its data a device pointer, e.g.
  /// CudaCorrelator::correlate_on_device's) to `numharm` harmonics and keeps, at every stage s,
  /// the cells above powcut[s]. Throws RuntimeError when the stages together have more than
  /// `max_cells` such cells (a threshold far too low for the data). `summed` (optional) receives
  /// the last stage's plane, for tests.
  std::vector<StageCells> detect(const PowerPlaneView& device_plane, std::int64_t i_begin, std::int64_t i_end,
                                 int numharm, const std::vector<float>& powcut, std::size_t max_cells,
                                 std::vector<float>* summed = nullptr);

  /// Device milliseconds of the last detect's kernel.
  [[nodiscard]] float last_device_ms() const noexcept { return last_ms_; }

  /// Milliseconds (events on the detector's stream) from the end of the last detect's kernel to
  /// its kept cells on the host: the counters' copy, the host's wait for them, the cells' copies.
  [[nodiscard]] float last_download_ms() const noexcept { return last_download_ms_; }

  /// Cells above each stage's threshold in the last detect (stage s at [s]; zero past its stages).
  [[nodiscard]] const std::array<unsigned long long, 6>& last_cells_above() const noexcept { return last_above_; }

  /// Device bytes detect allocates for `n_z` rows, `numharm` and `max_cells` (beside the plane).
  static std::size_t device_bytes(int n_z, int numharm, std::size_t max_cells);

 private:
  struct Device;
  std::unique_ptr<Device> device_;
  float last_ms_ = 0;
  float last_download_ms_ = 0;
  std::array<unsigned long long, 6> last_above_{};
};

/// The same on a plane in host memory (uploaded first), for tests.
std::vector<StageCells> harmonic_detect_cuda(const PowerPlaneView& plane, std::int64_t i_begin, std::int64_t i_end,
                                             int numharm, const std::vector<float>& powcut,
                                             std::size_t max_cells = std::size_t{1} << 22,
                                             std::vector<float>* summed = nullptr);

/// One detect on a plane in device memory with a detector of its own, for tests.
std::vector<StageCells> harmonic_detect_cuda_on_device(const PowerPlaneView& device_plane, std::int64_t i_begin,
                                                       std::int64_t i_end, int numharm,
                                                       const std::vector<float>& powcut,
                                                       std::size_t max_cells = std::size_t{1} << 22,
                                                       std::vector<float>* summed = nullptr);

}  // namespace astrosweep::fdas::kernels
