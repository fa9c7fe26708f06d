#include "segment_grid.hpp"

#include <algorithm>
#include <string>

#include "core/error.hpp"

namespace astrosweep::fdas {

std::size_t run_segments(const SegmentRun& run, const CorrelationLayout& layout) noexcept {
  const std::size_t C = layout.segment_columns();
  return C == 0 ? 0 : (run.columns + C - 1) / C;
}

std::size_t run_input_bins(const SegmentRun& run, const CorrelationLayout& layout) noexcept {
  const std::size_t segments = run_segments(run, layout);
  return segments == 0 ? 0 : (segments - 1) * layout.step_bins() + layout.input_bins();
}

std::size_t grid_segments(const SegmentGrid& grid, const CorrelationLayout& layout) noexcept {
  std::size_t n = 0;
  for (const SegmentRun& run : grid.runs) n += run_segments(run, layout);
  return n;
}

std::size_t grid_input_bins(const SegmentGrid& grid, const CorrelationLayout& layout) noexcept {
  std::size_t n = 0;
  for (const SegmentRun& run : grid.runs) n += run_input_bins(run, layout);
  return n;
}

void check_segment_grid(const SegmentGrid& grid) {
  AS_EXPECTS(grid.plane_lo <= grid.plane_hi, UsageError, "empty or reversed bin range for the correlation");
  std::size_t column = 2 * grid.plane_lo;
  for (const SegmentRun& run : grid.runs) {
    AS_EXPECTS(2 * run.first_bin >= column && 2 * run.first_bin + run.columns <= 2 * grid.plane_hi, UsageError,
               "a run of segments from bin " + std::to_string(run.first_bin) + " lies outside the plane's bins [" +
                   std::to_string(grid.plane_lo) + ", " + std::to_string(grid.plane_hi) + ") or overlaps another");
    column = 2 * run.first_bin + run.columns;
  }
}

SegmentGrid uniform_segment_grid(std::size_t r_lo, std::size_t r_hi) {
  AS_EXPECTS(r_lo <= r_hi, UsageError, "empty or reversed bin range for the correlation");
  SegmentGrid grid{r_lo, r_hi, {}};
  if (r_hi > r_lo) grid.runs.push_back({r_lo, 2 * (r_hi - r_lo)});
  return grid;
}

SegmentGrid presto_segment_grid(std::size_t rlo, std::size_t needed_lo, std::size_t plane_hi,
                                const CorrelationLayout& layout) {
  layout.check();
  AS_EXPECTS(needed_lo <= rlo && rlo < plane_hi, UsageError,
             "PRESTO's grid: the plane's bins [" + std::to_string(needed_lo) + ", " + std::to_string(plane_hi) +
                 ") do not hold its first block's bin " + std::to_string(rlo));
  const std::size_t step = layout.step_bins();
  SegmentGrid grid{needed_lo, plane_hi, {}};
  if (rlo > presto_low_blocks_bin) {
    // The low blocks from bin 8; the plane starts at the one that holds needed_lo, so that every run
    // starts on a segment of its own grid (no segment is cut at its start).
    std::size_t first = presto_low_blocks_bin;
    if (needed_lo >= presto_low_blocks_bin) {
      first += (needed_lo - presto_low_blocks_bin) / step * step;
      grid.plane_lo = first;
    }
    if (first < rlo) grid.runs.push_back({first, 2 * (rlo - first)});
  }
  grid.runs.push_back({rlo, 2 * (plane_hi - rlo)});
  return grid;
}

}  // namespace astrosweep::fdas
