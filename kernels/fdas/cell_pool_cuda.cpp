#include "cell_pool_cuda.hpp"

#include <algorithm>
#include <numeric>

#include "core/error.hpp"

namespace astrosweep::fdas::kernels {

std::size_t CellPool::device_bytes(std::size_t stages, std::size_t max_cells) {
  return (1 + stages) * sizeof(unsigned long long) +
         std::max<std::size_t>(max_cells, 1) * (sizeof(unsigned long long) + sizeof(float));
}

CellPoolView CellPool::prepare(std::size_t stages, std::size_t max_cells, cudaStream_t stream) {
  AS_EXPECTS(stages >= 1 && stages <= max_stages, UsageError, "a cell pool for 1 to 6 stages");
  const std::size_t capacity = std::max<std::size_t>(max_cells, 1);
  const std::size_t n_counts = 1 + stages;
  counts_.reserve(n_counts * sizeof(unsigned long long));
  cells_.reserve(capacity * sizeof(unsigned long long));
  powers_.reserve(capacity * sizeof(float));
  AS_CUDA_TRY(cudaMemsetAsync(counts_.as<unsigned long long>(), 0, n_counts * sizeof(unsigned long long), stream));
  return {counts_.as<unsigned long long>(), capacity, cells_.as<unsigned long long>(), powers_.as<float>()};
}

std::vector<StageCells> CellPool::collect(const std::vector<int>& stage_numharm, std::size_t max_cells,
                                          std::int64_t i_begin, std::size_t n_cols, cuda::Stream& stream,
                                          cuda::Event& downloaded) {
  const std::size_t stages = stage_numharm.size();
  const cudaStream_t s = stream.get();
  std::vector<unsigned long long> counts(1 + stages);
  AS_CUDA_TRY(cudaMemcpyAsync(counts.data(), counts_.as<unsigned long long>(),
                              counts.size() * sizeof(unsigned long long), cudaMemcpyDeviceToHost, s));
  stream.synchronize();
  last_above_.fill(0);
  for (std::size_t st = 0; st < stages; ++st) last_above_[st] = counts[1 + st];
  if (counts[0] > max_cells) {
    std::string per_stage;
    for (std::size_t st = 0; st < stages; ++st)
      per_stage += (st ? ", " : "") + std::to_string(counts[1 + st]) + " of the " + std::to_string(stage_numharm[st]) +
                   "-harmonic stage";
    throw RuntimeError(std::to_string(counts[0]) + " cells are above their stage's threshold (" + per_stage +
                           "), more than the " + std::to_string(max_cells) + " the GPU keeps",
                       "raise --sigma: the data is not normalised noise at this threshold");
  }
  const auto count = static_cast<std::size_t>(counts[0]);
  std::vector<unsigned long long> entries(count);
  std::vector<float> power(count);
  AS_CUDA_TRY(cudaMemcpyAsync(entries.data(), cells_.as<unsigned long long>(), count * sizeof(unsigned long long),
                              cudaMemcpyDeviceToHost, s));
  AS_CUDA_TRY(cudaMemcpyAsync(power.data(), powers_.as<float>(), count * sizeof(float), cudaMemcpyDeviceToHost, s));
  downloaded.record(stream);
  stream.synchronize();
  // By stage, then z-major and r-ascending, as the CPU visits the cells.
  std::vector<std::size_t> order(count);
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t c) { return entries[a] < entries[c]; });
  std::vector<StageCells> result(stages);
  const unsigned long long cell_mask = (1ULL << stage_shift) - 1;
  for (const std::size_t c : order) {
    StageCells& cells = result[static_cast<std::size_t>(entries[c] >> stage_shift)];
    const unsigned long long flat = entries[c] & cell_mask;
    cells.row.push_back(static_cast<int>(flat / n_cols));
    cells.column.push_back(i_begin + static_cast<std::int64_t>(flat % n_cols));
    cells.power.push_back(power[c]);
  }
  return result;
}

}  // namespace astrosweep::fdas::kernels
