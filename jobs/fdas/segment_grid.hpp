#pragma once
// Where the correlation's segments lie (docs/fdas.md, "The segment grid"; spec §4): the runs of
// segments (of CorrelationLayout's geometry) that fill a power plane. A search lays them on PRESTO's
// accelsearch grid (presto_segment_grid), because each segment's block normalisation is the median
// of the bins it reads: the same bins as PRESTO's blocks give the same medians, and so the same
// powers. A plain plane is one run from its first bin (uniform_segment_grid).

#include <cstddef>
#include <vector>

#include "correlation.hpp"

namespace astrosweep::fdas {

/// Segments on one uniform grid: segment k (k = 0, 1, …) reads the input bins
/// first_bin + k·step − m … + input_bins − 1 (zeros outside the spectrum) and keeps the outputs of
/// bins first_bin + k·step …, i.e. the plane's half-bin columns 2·first_bin + k·C + j, j < C
/// (C = segment_columns()); the run fills `columns` columns from 2·first_bin, the last segment's
/// beyond them dropped.
struct SegmentRun {
  std::size_t first_bin = 0;
  std::size_t columns = 0;
};

/// The segments that make the plane of bins [plane_lo, plane_hi) (columns 2·plane_lo … 2·plane_hi − 1):
/// runs in ascending order, disjoint, inside the plane, each starting on a whole bin. A column of
/// no run holds zero power.
struct SegmentGrid {
  std::size_t plane_lo = 0;
  std::size_t plane_hi = 0;
  std::vector<SegmentRun> runs;
};

/// The segments of `run`: ⌈columns / segment_columns()⌉.
std::size_t run_segments(const SegmentRun& run, const CorrelationLayout& layout) noexcept;
/// The bins `run`'s segments read together, from first_bin − m: (segments − 1)·step + input_bins (0: none).
std::size_t run_input_bins(const SegmentRun& run, const CorrelationLayout& layout) noexcept;
/// All segments of `grid`, and all the bins they read (a bin read by two runs counted twice).
std::size_t grid_segments(const SegmentGrid& grid, const CorrelationLayout& layout) noexcept;
std::size_t grid_input_bins(const SegmentGrid& grid, const CorrelationLayout& layout) noexcept;

/// Throws UsageError unless `grid`'s runs lie in its plane, in ascending order, disjoint.
void check_segment_grid(const SegmentGrid& grid);

/// The plane of bins [r_lo, r_hi) as one run of segments from r_lo.
SegmentGrid uniform_segment_grid(std::size_t r_lo, std::size_t r_hi);

/// The bin where PRESTO's accelsearch starts the blocks below its searched band in in-memory mode
/// ("Choose a very low Fourier bin", accelsearch.c, 3ae6229).
inline constexpr std::size_t presto_low_blocks_bin = 8;

/// PRESTO's accelsearch grid (3ae6229, in-memory mode) for a plane that must hold bins
/// [needed_lo, plane_hi) of a search whose blocks start at bin `rlo` (PRESTO's obs.rlo, ⌊flo·T⌋):
///   - from rlo up, one run from rlo (accelsearch's search loop, startr = rlo, rlo + step, …);
///   - below rlo, when rlo > 8, one run from bin 8 up to rlo (its in-memory plane is filled from
///     startr = 8 in the same steps while startr < rlo; the search loop's blocks overwrite the part
///     of the last one from rlo up), its first segment the one that holds needed_lo;
///   - below bin 8 (below rlo when rlo ≤ 8) no run: PRESTO never computes those bins, and the
///     sub-harmonics that read them read the zeros of its freshly allocated plane.
/// The plane starts at needed_lo, or lower, at the start of the run's segment that holds it.
/// Throws UsageError unless needed_lo ≤ rlo < plane_hi.
SegmentGrid presto_segment_grid(std::size_t rlo, std::size_t needed_lo, std::size_t plane_hi,
                                const CorrelationLayout& layout);

}  // namespace astrosweep::fdas
