#include "harmonic_sum_cuda.hpp"

#include <algorithm>

#include "core/error.hpp"
#include "cuda_memory.hpp"
#include "harmonic_sum_launch.hpp"

namespace astrosweep::fdas::kernels {

namespace {

std::vector<StageCells> detect(const PowerPlaneView& plane, const float* host_plane, std::int64_t i_begin,
                               std::int64_t i_end, int numharm, const std::vector<float>& powcut, std::size_t max_cells,
                               std::vector<float>* summed) {
  const auto stages = harmonic_stages(numharm);
  AS_EXPECTS(powcut.size() == stages.size(), UsageError,
             "harmonic sum: " + std::to_string(stages.size()) + " stages need as many thresholds");
  AS_EXPECTS(i_begin >= plane.i_first && i_begin <= i_end && i_end <= plane.i_first + plane.n_i, UsageError,
             "harmonic sum: the columns are not in the plane");
  AS_EXPECTS(i_begin == i_end || sub_harmonic_index(i_begin, 1, numharm) >= plane.i_first, UsageError,
             "harmonic sum: the plane starts above the lowest sub-harmonic read");
  const auto n_rows = static_cast<std::size_t>(plane.n_z());
  const auto n_cols = static_cast<std::size_t>(i_end - i_begin);
  const auto stride = static_cast<std::size_t>(plane.n_i);
  const std::size_t n = n_rows * n_cols;

  cuda::Stream stream;
  cuda::DeviceMemory d_plane, d_summed, d_rows, d_cols, d_count, d_cells, d_powers;
  // A host plane is uploaded; a device plane is read where it is.
  if (host_plane != nullptr) d_plane.reserve(n_rows * stride * sizeof(float));
  const float* plane_on_device = host_plane != nullptr ? d_plane.as<float>() : plane.data;
  d_summed.reserve(std::max<std::size_t>(n, 1) * sizeof(float));
  d_rows.reserve(n_rows * sizeof(int));
  d_cols.reserve(std::max<std::size_t>(n_cols, 1) * sizeof(std::int64_t));
  d_count.reserve(sizeof(unsigned long long));
  d_cells.reserve(std::max<std::size_t>(max_cells, 1) * sizeof(unsigned long long));
  d_powers.reserve(std::max<std::size_t>(max_cells, 1) * sizeof(float));
  const cudaStream_t s = stream.get();
  if (host_plane != nullptr)
    AS_CUDA_TRY(
        cudaMemcpyAsync(d_plane.as<float>(), host_plane, n_rows * stride * sizeof(float), cudaMemcpyHostToDevice, s));
  launch_copy_columns(plane_on_device, stride, i_begin - plane.i_first, d_summed.as<float>(), n_rows, n_cols, s);

  std::vector<StageCells> result;
  std::vector<unsigned long long> flat;
  for (std::size_t st = 0; st < stages.size(); ++st) {
    for (const int h : stages[st].harmonics) {
      // The tables from the functions that define them (harmonic_tables.hpp), uploaded verbatim.
      const auto cols = sub_harmonic_index_table(i_begin, static_cast<std::int64_t>(n_cols), h, stages[st].numharm);
      const auto rows = sub_harmonic_z_row_table(plane.z_max, h, stages[st].numharm);
      AS_CUDA_TRY(cudaMemcpyAsync(d_cols.as<std::int64_t>(), cols.data(), n_cols * sizeof(std::int64_t),
                                  cudaMemcpyHostToDevice, s));
      AS_CUDA_TRY(cudaMemcpyAsync(d_rows.as<int>(), rows.data(), n_rows * sizeof(int), cudaMemcpyHostToDevice, s));
      launch_add_harmonic(plane_on_device, stride, plane.i_first, d_rows.as<int>(), d_cols.as<std::int64_t>(),
                          d_summed.as<float>(), n_rows, n_cols, s);
      stream.synchronize();  // the tables' host vectors are reused next round
    }
    AS_CUDA_TRY(cudaMemsetAsync(d_count.as<unsigned long long>(), 0, sizeof(unsigned long long), s));
    launch_above_threshold(d_summed.as<float>(), n, powcut[st], d_count.as<unsigned long long>(), max_cells,
                           d_cells.as<unsigned long long>(), d_powers.as<float>(), s);
    unsigned long long count = 0;
    AS_CUDA_TRY(cudaMemcpyAsync(&count, d_count.as<unsigned long long>(), sizeof count, cudaMemcpyDeviceToHost, s));
    stream.synchronize();
    AS_EXPECTS(count <= max_cells, RuntimeError,
               std::to_string(count) + " cells of the " + std::to_string(stages[st].numharm) +
                   "-harmonic stage are above its threshold, more than the " + std::to_string(max_cells) +
                   " the GPU keeps",
               "raise --sigma: the data is not normalised noise at this threshold");
    flat.resize(count);
    std::vector<float> power(count);
    AS_CUDA_TRY(cudaMemcpyAsync(flat.data(), d_cells.as<unsigned long long>(), count * sizeof(unsigned long long),
                                cudaMemcpyDeviceToHost, s));
    AS_CUDA_TRY(cudaMemcpyAsync(power.data(), d_powers.as<float>(), count * sizeof(float), cudaMemcpyDeviceToHost, s));
    stream.synchronize();
    // z-major, r-ascending, as the CPU visits the cells.
    std::vector<std::size_t> order(count);
    for (std::size_t c = 0; c < count; ++c) order[c] = c;
    std::sort(order.begin(), order.end(), [&](std::size_t a_, std::size_t b_) { return flat[a_] < flat[b_]; });
    StageCells cells;
    for (std::size_t c : order) {
      cells.row.push_back(static_cast<int>(flat[c] / n_cols));
      cells.column.push_back(i_begin + static_cast<std::int64_t>(flat[c] % n_cols));
      cells.power.push_back(power[c]);
    }
    result.push_back(std::move(cells));
  }
  if (summed != nullptr) {
    summed->resize(n);
    AS_CUDA_TRY(cudaMemcpyAsync(summed->data(), d_summed.as<float>(), n * sizeof(float), cudaMemcpyDeviceToHost, s));
    stream.synchronize();
  }
  return result;
}

}  // namespace

std::vector<StageCells> harmonic_detect_cuda(const PowerPlaneView& plane, std::int64_t i_begin, std::int64_t i_end,
                                             int numharm, const std::vector<float>& powcut, std::size_t max_cells,
                                             std::vector<float>* summed) {
  return detect(plane, plane.data, i_begin, i_end, numharm, powcut, max_cells, summed);
}

std::vector<StageCells> harmonic_detect_cuda_on_device(const PowerPlaneView& device_plane, std::int64_t i_begin,
                                                       std::int64_t i_end, int numharm,
                                                       const std::vector<float>& powcut, std::size_t max_cells,
                                                       std::vector<float>* summed) {
  return detect(device_plane, nullptr, i_begin, i_end, numharm, powcut, max_cells, summed);
}

}  // namespace astrosweep::fdas::kernels
