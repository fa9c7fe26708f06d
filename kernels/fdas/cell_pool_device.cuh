#pragma once
// keep_cells: a warp's cells above a threshold into the pool (cell_pool_view.hpp). Few cells pass a
// threshold in normalised noise, but a low --sigma or strong interference can pass millions: each
// warp takes its cells' places with one atomic on each counter (the host sorts the pool, so the
// places' order is of no matter). Called by every lane of the warp (full mask), each with its own
// verdict; places past the capacity are counted, not written (the host refuses the search then).

#include "cell_pool_view.hpp"

namespace astrosweep::fdas::kernels {

__device__ inline void keep_cells(const CellPoolView& pool, int stage, bool above, unsigned long long entry,
                                  float power) {
  constexpr unsigned full_warp = 0xFFFFFFFFU;
  const unsigned hits = __ballot_sync(full_warp, above);
  if (hits == 0) return;
  const unsigned lane = threadIdx.x % 32U;
  const unsigned leader = __ffs(hits) - 1;
  unsigned long long first = 0;
  if (lane == leader) {
    const auto n = static_cast<unsigned long long>(__popc(hits));
    atomicAdd(pool.counts + 1 + stage, n);
    first = atomicAdd(pool.counts, n);
  }
  first = __shfl_sync(full_warp, first, leader);
  if (!above) return;
  const unsigned long long slot = first + __popc(hits & ((1U << lane) - 1U));
  if (slot < pool.capacity) {
    pool.cells[slot] = entry;
    pool.powers[slot] = power;
  }
}

}  // namespace astrosweep::fdas::kernels
