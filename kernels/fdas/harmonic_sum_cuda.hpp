#pragma once
// The harmonic sum and each stage's threshold on a GPU (twin of harmonic_sum_reference and
// detect_stage_candidates, jobs/fdas): the same lookup tables, made on the host by the functions
// that define them, the same float additions in the same order per cell (so the summed powers
// are bit-identical to the CPU's), and per stage the cells above its threshold compacted on the
// device and returned in z-major, r-ascending order for the host's candidate list.
// Plain C++: the job includes this header without CUDA's.

#include <cstdint>
#include <vector>

#include "harmonic_tables.hpp"

namespace astrosweep::fdas::kernels {

/// The cells of one stage above its threshold, z-major and r-ascending.
struct StageCells {
  std::vector<int> row;              ///< z row of the summed plane
  std::vector<std::int64_t> column;  ///< half-bin index i
  std::vector<float> power;
};

/// Sums columns [i_begin, i_end) of `plane` to `numharm` harmonics on the device and keeps, at
/// every stage s, the cells above powcut[s]. Throws RuntimeError when a stage has more than
/// `max_cells` such cells (a threshold far too low for the data). `summed` (optional) receives
/// the last stage's plane, for tests.
std::vector<StageCells> harmonic_detect_cuda(const PowerPlaneView& plane, std::int64_t i_begin, std::int64_t i_end,
                                             int numharm, const std::vector<float>& powcut,
                                             std::size_t max_cells = std::size_t{1} << 22,
                                             std::vector<float>* summed = nullptr);

/// The same on a plane already in device memory (`device_plane.data` is a device pointer, e.g.
/// CudaCorrelator::correlate_on_device's), so the plane never crosses to the host.
std::vector<StageCells> harmonic_detect_cuda_on_device(const PowerPlaneView& device_plane, std::int64_t i_begin,
                                                       std::int64_t i_end, int numharm,
                                                       const std::vector<float>& powcut,
                                                       std::size_t max_cells = std::size_t{1} << 22,
                                                       std::vector<float>* summed = nullptr);

}  // namespace astrosweep::fdas::kernels
