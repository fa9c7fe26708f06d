// The fused harmonic sum (twin of jobs/fdas/harmonic_tables.cpp and candidates.cpp): one pass over
// the summed plane's cells, each thread summing one cell through every stage in a register and
// keeping it at every stage whose threshold it passes. The fundamental is read coalesced; the
// sub-harmonics of neighbouring columns fall on the same or neighbouring half bins, so they come
// from cache. The summed plane itself is never stored (only when a test asks for it).
#include <cstdint>

#include "cuda_memory.hpp"
#include "harmonic_sum_launch.hpp"

namespace astrosweep::fdas::kernels {

namespace {

constexpr int block = 256;

__global__ void harmonic_sum(const HarmonicSumPlan plan, const HarmonicSumBuffers b, std::int64_t i_begin,
                             std::size_t n_rows, std::size_t n_cols) {
  const std::size_t k = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  const std::size_t row = blockIdx.y;
  if (k >= n_cols) return;
  const std::int64_t i = i_begin + static_cast<std::int64_t>(k);
  const std::size_t cell = row * n_cols + k;
  float acc = __ldg(b.plane + row * b.stride + static_cast<std::size_t>(i - b.i_first));
  int added = 0;
  for (int s = 0; s < plan.n_stages; ++s) {
    // Stage s adds harmonics h/2^s (odd h): half bin ⌊i·h/H + ½⌋ = (2ih + H) >> (s + 1), exactly
    // sub_harmonic_index, and the row from the host's table (sub_harmonic_z_row_table).
    for (; added < plan.n_added && plan.stage[added] == s; ++added) {
      const std::int64_t col = (2 * i * plan.h[added] + (std::int64_t{1} << s)) >> (s + 1);
      const int z_row = __ldg(b.rows + static_cast<std::size_t>(added) * n_rows + row);
      acc += __ldg(b.plane + static_cast<std::size_t>(z_row) * b.stride + static_cast<std::size_t>(col - b.i_first));
    }
    if (acc > plan.powcut[s]) {
      atomicAdd(b.counts + 1 + s, 1ULL);
      const unsigned long long slot = atomicAdd(b.counts, 1ULL);
      if (slot < b.capacity) {
        b.cells[slot] = (static_cast<unsigned long long>(s) << stage_shift) | cell;
        b.powers[slot] = acc;
      }
    }
  }
  if (b.summed != nullptr) b.summed[cell] = acc;
}

}  // namespace

void launch_harmonic_sum(const HarmonicSumPlan& plan, const HarmonicSumBuffers& buffers, std::int64_t i_begin,
                         std::size_t n_rows, std::size_t n_cols, cudaStream_t stream) {
  if (n_rows * n_cols == 0) return;
  const dim3 grid(static_cast<unsigned>((n_cols + block - 1) / block), static_cast<unsigned>(n_rows));
  harmonic_sum<<<grid, block, 0, stream>>>(plan, buffers, i_begin, n_rows, n_cols);
  AS_CUDA_TRY(cudaGetLastError());
}

}  // namespace astrosweep::fdas::kernels
