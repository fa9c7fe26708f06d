// The fused harmonic sum (twin of jobs/fdas/harmonic_tables.cpp and candidates.cpp): each lane
// sums a few cells of one row (32 columns apart) through every stage in registers and keeps them at
// every stage whose threshold they pass. The per-lane code (which cells, which reads, which
// additions in which order) is harmonic_sum_cell.hpp's, shared with the CPU tests that emulate
// this grid. A block is 8 warps on 8 consecutive rows of one column tile, and blocks walk all rows
// of a tile before the next, so the sub-harmonic rows that neighbouring summed rows share are read
// from L2, not DRAM (docs/fdas.md). The summed plane itself is never stored (only when a test asks
// for it).
#include <cstdint>

#include "cell_pool_device.cuh"
#include "core/error.hpp"
#include "cuda_memory.hpp"
#include "harmonic_sum_cell.hpp"
#include "harmonic_sum_launch.hpp"

namespace astrosweep::fdas::kernels {

namespace {

constexpr unsigned block = cell::warp_size * cell::rows_per_block;  // whole warps: every lane reaches the ballots
constexpr unsigned full_warp = 0xFFFFFFFFU;

// The lane's cells of a warp's tile: all inside the band (Whole) or those of the last tile.
template <int Numharm, bool Whole>
__device__ void sum_and_keep(const HarmonicSumPlan& plan, const HarmonicSumBuffers& b,
                             const cell::BandSource<Numharm>& source, cell::WarpPlace place, unsigned lane) {
  constexpr int columns = cell::columns_per_lane<Numharm>;
  constexpr int n_stages = cell::stage_count(Numharm);
  const std::uint32_t first = cell::lane_first_column(place, lane, columns);
  const int inside = Whole ? columns : cell::cells_inside(first, source.n_cols, columns);
  float values[columns][Numharm];
  cell::gather_lane<Numharm, columns, Whole>(source, place, lane, values);
  float sums[columns][n_stages];
#pragma unroll
  for (int c = 0; c < columns; ++c) cell::sum_stages<Numharm>(values[c], sums[c]);
  // One vote for the whole tile: in normalised noise almost no warp has a cell to keep.
  bool any_above = false;
#pragma unroll
  for (int c = 0; c < columns; ++c)
#pragma unroll
    for (int s = 0; s < n_stages; ++s) any_above = any_above || ((Whole || c < inside) && sums[c][s] > plan.powcut[s]);
  const std::size_t row_start = std::size_t{place.row} * source.n_cols;
  if (__any_sync(full_warp, any_above)) {
#pragma unroll
    for (int c = 0; c < columns; ++c) {
      const std::size_t flat = row_start + first + static_cast<std::uint32_t>(c) * cell::warp_size;
#pragma unroll
      for (int s = 0; s < n_stages; ++s)
        keep_cells(b.pool, s, (Whole || c < inside) && sums[c][s] > plan.powcut[s],
                   (static_cast<unsigned long long>(s) << stage_shift) | flat, sums[c][s]);
    }
  }
  if (b.summed != nullptr) {
#pragma unroll
    for (int c = 0; c < columns; ++c)
      if (Whole || c < inside)
        b.summed[row_start + first + static_cast<std::uint32_t>(c) * cell::warp_size] = sums[c][n_stages - 1];
  }
}

template <int Numharm>
__global__ void __launch_bounds__(block)
    harmonic_sum(const HarmonicSumPlan plan, const HarmonicSumBuffers b, const cell::BandSource<Numharm> source) {
  const cell::WarpPlace place = cell::warp_place(blockIdx.x, threadIdx.x / cell::warp_size, source.n_rows);
  if (place.row >= source.n_rows) return;  // the whole warp: the last row group's spare rows
  const unsigned lane = threadIdx.x % cell::warp_size;
  if (cell::tile_is_whole(place, source.n_cols, cell::columns_per_lane<Numharm>))
    sum_and_keep<Numharm, true>(plan, b, source, place, lane);
  else
    sum_and_keep<Numharm, false>(plan, b, source, place, lane);
}

template <int Numharm>
void launch(const HarmonicSumPlan& plan, const HarmonicSumBuffers& buffers, std::int64_t i_begin, std::size_t n_rows,
            std::size_t n_cols, cudaStream_t stream) {
  static_assert(cell::stage_count(Numharm) <= max_stages);
  const std::size_t blocks = cell::block_count(n_rows, n_cols, cell::tile_width(cell::columns_per_lane<Numharm>));
  AS_EXPECTS(blocks <= 0x7FFFFFFFU, UsageError, "harmonic sum: more than 2^31 - 1 blocks");
  const auto source = cell::make_band_source<Numharm>(buffers.plane, static_cast<std::uint32_t>(buffers.stride),
                                                      buffers.i_first, buffers.rows, static_cast<std::uint32_t>(n_rows),
                                                      i_begin, static_cast<std::uint32_t>(n_cols));
  harmonic_sum<Numharm><<<static_cast<unsigned>(blocks), block, 0, stream>>>(plan, buffers, source);
}

}  // namespace

void launch_harmonic_sum(const HarmonicSumPlan& plan, const HarmonicSumBuffers& buffers, std::int64_t i_begin,
                         std::size_t n_rows, std::size_t n_cols, cudaStream_t stream) {
  if (n_rows * n_cols == 0) return;
  // The lanes' 32-bit columns and the row offsets of harmonic_sum_cell.hpp.
  AS_EXPECTS(buffers.stride < (std::size_t{1} << 31) && n_rows <= 65535 && n_cols <= buffers.stride && i_begin >= 0,
             UsageError, "harmonic sum: the plane's rows are 2^31 half bins or longer, or it has more than 65535");
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
