#include "harmonic_sum_cuda.hpp"

#include <algorithm>
#include <numeric>
#include <tuple>

#include "cell_pool_cuda.hpp"
#include "core/error.hpp"
#include "cuda_memory.hpp"
#include "harmonic_sum_launch.hpp"

namespace astrosweep::fdas::kernels {

struct CudaHarmonicDetector::Device {
  cuda::Stream stream;
  cuda::Event start, stop, downloaded;
  cuda::DeviceMemory rows, summed;
  CellPool pool;
  int rows_z_max = -1, rows_numharm = 0;  ///< what `rows` holds
};

CudaHarmonicDetector::CudaHarmonicDetector() : device_(std::make_unique<Device>()) {}
CudaHarmonicDetector::~CudaHarmonicDetector() = default;

std::size_t CudaHarmonicDetector::device_bytes(int n_z, int numharm, std::size_t max_cells) {
  const auto stages = harmonic_stages(numharm).size();
  return static_cast<std::size_t>(numharm) * static_cast<std::size_t>(n_z) * sizeof(int) +
         CellPool::device_bytes(stages, max_cells);
}

std::vector<StageCells> CudaHarmonicDetector::detect(const PowerPlaneView& plane, std::int64_t i_begin,
                                                     std::int64_t i_end, int numharm, const std::vector<float>& powcut,
                                                     std::size_t max_cells, std::vector<float>* summed) {
  const auto stages = harmonic_stages(numharm);
  AS_EXPECTS(powcut.size() == stages.size(), UsageError,
             "harmonic sum: " + std::to_string(stages.size()) + " stages need as many thresholds");
  AS_EXPECTS(i_begin >= plane.i_first && i_begin <= i_end && i_end <= plane.i_first + plane.n_i, UsageError,
             "harmonic sum: the columns are not in the plane");
  AS_EXPECTS(i_begin == i_end || sub_harmonic_index(i_begin, 1, numharm) >= plane.i_first, UsageError,
             "harmonic sum: the plane starts above the lowest sub-harmonic read");
  AS_EXPECTS(plane.n_z() <= 65535, UsageError, "harmonic sum: more than 65535 z rows");
  AS_EXPECTS(static_cast<std::uint64_t>(plane.n_z()) * static_cast<std::uint64_t>(i_end - i_begin) <
                 (std::uint64_t{1} << stage_shift),
             UsageError, "harmonic sum: more than 2^58 cells");
  const auto n_rows = static_cast<std::size_t>(plane.n_z());
  const auto n_cols = static_cast<std::size_t>(i_end - i_begin);
  Device& d = *device_;
  const cudaStream_t s = d.stream.get();

  HarmonicSumPlan plan;
  plan.numharm = numharm;
  std::copy(powcut.begin(), powcut.end(), plan.powcut);
  // In harmonic_stages' order, which the kernel's read_harmonic follows (test_harmonic_sum_cell).
  const std::vector<int> rows = harmonic_z_rows(plane.z_max, numharm);
  if (d.rows_z_max != plane.z_max || d.rows_numharm != numharm) {
    d.rows.reserve(std::max<std::size_t>(rows.size(), 1) * sizeof(int));
    AS_CUDA_TRY(cudaMemcpyAsync(d.rows.as<int>(), rows.data(), rows.size() * sizeof(int), cudaMemcpyHostToDevice, s));
    d.rows_z_max = plane.z_max;
    d.rows_numharm = numharm;
  }
  if (summed != nullptr) d.summed.reserve(std::max<std::size_t>(n_rows * n_cols, 1) * sizeof(float));

  HarmonicSumBuffers b;
  b.plane = plane.data;
  b.stride = static_cast<std::size_t>(plane.n_i);
  b.i_first = plane.i_first;
  b.rows = d.rows.as<int>();
  b.pool = d.pool.prepare(stages.size(), max_cells, s);
  b.summed = summed != nullptr ? d.summed.as<float>() : nullptr;
  d.start.record(d.stream);
  launch_harmonic_sum(plan, b, i_begin, n_rows, n_cols, s);
  d.stop.record(d.stream);

  std::vector<int> stage_numharm;
  for (const HarmonicStage& stage : stages) stage_numharm.push_back(stage.numharm);
  std::vector<StageCells> result = d.pool.collect(stage_numharm, max_cells, i_begin, n_cols, d.stream, d.downloaded);
  last_ms_ = d.stop.since(d.start);
  last_download_ms_ = d.downloaded.since(d.stop);
  last_above_ = d.pool.last_cells_above();
  if (summed != nullptr) {
    summed->resize(n_rows * n_cols);
    AS_CUDA_TRY(cudaMemcpyAsync(summed->data(), b.summed, summed->size() * sizeof(float), cudaMemcpyDeviceToHost, s));
    d.stream.synchronize();
  }
  return result;
}

std::vector<StageCells> harmonic_detect_cuda(const PowerPlaneView& plane, std::int64_t i_begin, std::int64_t i_end,
                                             int numharm, const std::vector<float>& powcut, std::size_t max_cells,
                                             std::vector<float>* summed) {
  const std::size_t n = static_cast<std::size_t>(plane.n_z()) * static_cast<std::size_t>(plane.n_i);
  cuda::DeviceMemory on_device;
  on_device.reserve(std::max<std::size_t>(n, 1) * sizeof(float));
  AS_CUDA_TRY(cudaMemcpy(on_device.as<float>(), plane.data, n * sizeof(float), cudaMemcpyHostToDevice));
  PowerPlaneView device_view = plane;
  device_view.data = on_device.as<float>();
  return CudaHarmonicDetector().detect(device_view, i_begin, i_end, numharm, powcut, max_cells, summed);
}

std::vector<StageCells> harmonic_detect_cuda_on_device(const PowerPlaneView& device_plane, std::int64_t i_begin,
                                                       std::int64_t i_end, int numharm,
                                                       const std::vector<float>& powcut, std::size_t max_cells,
                                                       std::vector<float>* summed) {
  return CudaHarmonicDetector().detect(device_plane, i_begin, i_end, numharm, powcut, max_cells, summed);
}

}  // namespace astrosweep::fdas::kernels
