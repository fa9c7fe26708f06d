// The fused harmonic sum (twin of jobs/fdas/harmonic_tables.cpp and candidates.cpp): each thread
// sums one cell through every stage in registers and keeps it at every stage whose threshold it
// passes. The per-cell code (which cell, which reads, which additions in which order) is
// harmonic_sum_cell.hpp's, shared with the CPU tests that emulate this grid. Blocks walk all rows
// of one column tile before the next tile, so the sub-harmonic rows that neighbouring summed rows
// share are read from L2, not DRAM (docs/fdas.md). The summed plane itself is never stored (only
// when a test asks for it).
#include <cstdint>

#include "core/error.hpp"
#include "cuda_memory.hpp"
#include "harmonic_sum_cell.hpp"
#include "harmonic_sum_launch.hpp"

namespace astrosweep::fdas::kernels {

namespace {

constexpr unsigned block = 256;  // whole warps: every lane reaches keep_cells' ballot
constexpr unsigned full_warp = 0xFFFFFFFFU;

// Few cells pass a threshold in normalised noise, but a low --sigma or strong interference can
// pass millions: each warp takes its cells' places with one atomic on each counter (the host
// sorts the pool, so the places' order is of no matter). Called by every lane of the warp.
__device__ void keep_cells(const HarmonicSumBuffers& b, int stage, bool above, unsigned long long entry, float power) {
  const unsigned hits = __ballot_sync(full_warp, above);
  if (hits == 0) return;
  const unsigned lane = threadIdx.x % 32;
  const unsigned leader = __ffs(hits) - 1;
  unsigned long long first = 0;
  if (lane == leader) {
    const auto n = static_cast<unsigned long long>(__popc(hits));
    atomicAdd(b.counts + 1 + stage, n);
    first = atomicAdd(b.counts, n);
  }
  first = __shfl_sync(full_warp, first, leader);
  if (!above) return;
  const unsigned long long slot = first + __popc(hits & ((1U << lane) - 1U));
  if (slot < b.capacity) {
    b.cells[slot] = entry;
    b.powers[slot] = power;
  }
}

template <int Numharm>
__global__ void __launch_bounds__(block) harmonic_sum(const HarmonicSumPlan plan, const HarmonicSumBuffers b,
                                                      std::int64_t i_begin, std::size_t n_rows, std::size_t n_cols) {
  constexpr int n_stages = cell::stage_count(Numharm);
  const cell::CellPlace place = cell::cell_place(blockIdx.x, threadIdx.x, static_cast<std::uint32_t>(n_rows), block);
  const bool inside = place.k < n_cols;
  const cell::CellSource source{b.plane, b.stride, b.i_first, b.rows, n_rows};
  float values[Numharm] = {};
  if (inside) cell::gather_cell<Numharm>(source, place.row, i_begin + static_cast<std::int64_t>(place.k), values);
  float sums[n_stages];
  cell::sum_stages<Numharm>(values, sums);
  const std::size_t flat = place.row * n_cols + place.k;
#pragma unroll
  for (int s = 0; s < n_stages; ++s)
    keep_cells(b, s, inside && sums[s] > plan.powcut[s], (static_cast<unsigned long long>(s) << stage_shift) | flat,
               sums[s]);
  if (inside && b.summed != nullptr) b.summed[flat] = sums[n_stages - 1];
}

template <int Numharm>
void launch(const HarmonicSumPlan& plan, const HarmonicSumBuffers& buffers, std::int64_t i_begin, std::size_t n_rows,
            std::size_t n_cols, cudaStream_t stream) {
  static_assert(cell::stage_count(Numharm) <= max_stages);
  const std::size_t blocks = cell::block_count(n_rows, n_cols, block);
  AS_EXPECTS(blocks <= 0x7FFFFFFFU, UsageError, "harmonic sum: more than 2^31 - 1 blocks of 256 cells");
  harmonic_sum<Numharm><<<static_cast<unsigned>(blocks), block, 0, stream>>>(plan, buffers, i_begin, n_rows, n_cols);
}

}  // namespace

void launch_harmonic_sum(const HarmonicSumPlan& plan, const HarmonicSumBuffers& buffers, std::int64_t i_begin,
                         std::size_t n_rows, std::size_t n_cols, cudaStream_t stream) {
  if (n_rows * n_cols == 0) return;
  switch (plan.numharm) {
    case 1: launch<1>(plan, buffers, i_begin, n_rows, n_cols, stream); break;
    case 2: launch<2>(plan, buffers, i_begin, n_rows, n_cols, stream); break;
    case 4: launch<4>(plan, buffers, i_begin, n_rows, n_cols, stream); break;
    case 8: launch<8>(plan, buffers, i_begin, n_rows, n_cols, stream); break;
    case 16: launch<16>(plan, buffers, i_begin, n_rows, n_cols, stream); break;
    case 32: launch<32>(plan, buffers, i_begin, n_rows, n_cols, stream); break;
    default: AS_EXPECTS(false, UsageError, "harmonic sum: numharm " + std::to_string(plan.numharm) + " is not 1 … 32");
  }
  AS_CUDA_TRY(cudaGetLastError());
}

}  // namespace astrosweep::fdas::kernels
