#include "harmonic_sum_cuda.hpp"

#include <algorithm>
#include <numeric>
#include <tuple>

#include "core/error.hpp"
#include "cuda_memory.hpp"
#include "harmonic_sum_launch.hpp"

namespace astrosweep::fdas::kernels {

struct CudaHarmonicDetector::Device {
  cuda::Stream stream;
  cuda::Event start, stop, downloaded;
  cuda::DeviceMemory rows, counts, cells, powers, summed;
  int rows_z_max = -1, rows_numharm = 0;  ///< what `rows` holds
};

CudaHarmonicDetector::CudaHarmonicDetector() : device_(std::make_unique<Device>()) {}
CudaHarmonicDetector::~CudaHarmonicDetector() = default;

std::size_t CudaHarmonicDetector::device_bytes(int n_z, int numharm, std::size_t max_cells) {
  const auto stages = harmonic_stages(numharm).size();
  return static_cast<std::size_t>(numharm) * static_cast<std::size_t>(n_z) * sizeof(int) +
         (1 + stages) * sizeof(unsigned long long) +
         std::max<std::size_t>(max_cells, 1) * (sizeof(unsigned long long) + sizeof(float));
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
  const std::size_t capacity = std::max<std::size_t>(max_cells, 1);
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
  const std::size_t n_counts = 1 + stages.size();
  d.counts.reserve(n_counts * sizeof(unsigned long long));
  d.cells.reserve(capacity * sizeof(unsigned long long));
  d.powers.reserve(capacity * sizeof(float));
  if (summed != nullptr) d.summed.reserve(std::max<std::size_t>(n_rows * n_cols, 1) * sizeof(float));
  AS_CUDA_TRY(cudaMemsetAsync(d.counts.as<unsigned long long>(), 0, n_counts * sizeof(unsigned long long), s));

  HarmonicSumBuffers b;
  b.plane = plane.data;
  b.stride = static_cast<std::size_t>(plane.n_i);
  b.i_first = plane.i_first;
  b.rows = d.rows.as<int>();
  b.counts = d.counts.as<unsigned long long>();
  b.capacity = capacity;
  b.cells = d.cells.as<unsigned long long>();
  b.powers = d.powers.as<float>();
  b.summed = summed != nullptr ? d.summed.as<float>() : nullptr;
  d.start.record(d.stream);
  launch_harmonic_sum(plan, b, i_begin, n_rows, n_cols, s);
  d.stop.record(d.stream);

  std::vector<unsigned long long> counts(n_counts);
  AS_CUDA_TRY(
      cudaMemcpyAsync(counts.data(), b.counts, n_counts * sizeof(unsigned long long), cudaMemcpyDeviceToHost, s));
  d.stream.synchronize();
  last_ms_ = d.stop.since(d.start);
  static_assert(std::tuple_size_v<decltype(last_above_)> == max_stages);
  last_above_.fill(0);
  for (std::size_t st = 0; st < stages.size(); ++st) last_above_[st] = counts[1 + st];
  if (counts[0] > max_cells) {
    std::string per_stage;
    for (std::size_t st = 0; st < stages.size(); ++st)
      per_stage += (st ? ", " : "") + std::to_string(counts[1 + st]) + " of the " + std::to_string(stages[st].numharm) +
                   "-harmonic stage";
    throw RuntimeError(std::to_string(counts[0]) + " cells are above their stage's threshold (" + per_stage +
                           "), more than the " + std::to_string(max_cells) + " the GPU keeps",
                       "raise --sigma: the data is not normalised noise at this threshold");
  }
  const auto count = static_cast<std::size_t>(counts[0]);
  std::vector<unsigned long long> entries(count);
  std::vector<float> power(count);
  AS_CUDA_TRY(cudaMemcpyAsync(entries.data(), b.cells, count * sizeof(unsigned long long), cudaMemcpyDeviceToHost, s));
  AS_CUDA_TRY(cudaMemcpyAsync(power.data(), b.powers, count * sizeof(float), cudaMemcpyDeviceToHost, s));
  d.downloaded.record(d.stream);
  d.stream.synchronize();
  last_download_ms_ = d.downloaded.since(d.stop);
  // By stage, then z-major and r-ascending, as the CPU visits the cells.
  std::vector<std::size_t> order(count);
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t c) { return entries[a] < entries[c]; });
  std::vector<StageCells> result(stages.size());
  const unsigned long long cell_mask = (1ULL << stage_shift) - 1;
  for (const std::size_t c : order) {
    StageCells& cells = result[static_cast<std::size_t>(entries[c] >> stage_shift)];
    const unsigned long long flat = entries[c] & cell_mask;
    cells.row.push_back(static_cast<int>(flat / n_cols));
    cells.column.push_back(i_begin + static_cast<std::int64_t>(flat % n_cols));
    cells.power.push_back(power[c]);
  }
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
