#pragma once
// Peak bookkeeping for a periodogram computed in chunks, possibly in parallel: each chunk keeps
// its strongest interior local maxima and its edge values; `select_peaks` joins them. The result
// depends only on the periodogram, never on how it was chunked or threaded.

#include <cstdint>
#include <span>
#include <vector>

#include "period_config.hpp"

namespace astrosweep::period {

struct Peak {
  std::uint64_t index = 0;  ///< grid index
  double power = 0;
};

/// Summary of the periodogram values at grid indices [k0, k0 + n).
struct ChunkPeaks {
  std::uint64_t k0 = 0;
  std::uint64_t n = 0;
  std::vector<Peak> interior;  ///< strongest local maxima strictly inside the chunk
  double edge[4] = {};         ///< p[k0], p[k0+1], p[k0+n-2], p[k0+n-1] (repeated when n < 2)
};

/// Local maxima keep the first index of a plateau: p[k] > p[k-1] and p[k] >= p[k+1] (outside the
/// grid counts as -inf). `keep` is how many interior maxima a chunk retains.
template <class T>
ChunkPeaks summarize_chunk(std::uint64_t k0, std::span<const T> power, std::size_t keep);

/// Strongest first; equal powers by lower index, so ties resolve like numpy's argmax.
inline bool stronger(const Peak& a, const Peak& b) {
  return a.power > b.power || (a.power == b.power && a.index < b.index);
}

/// The summary summarize_chunk would give, from a superset of the chunk's `keep` strongest
/// interior maxima (as a device backend finds them) and its edge values.
ChunkPeaks chunk_from_candidates(std::uint64_t k0, std::uint64_t n, const double (&edge)[4],
                                 std::vector<Peak> candidates, std::size_t keep);

struct PeakSelection {
  Peak best;                ///< the global maximum (first index among equal values)
  std::vector<Peak> peaks;  ///< up to top_k maxima, strongest first, at least `min_separation` apart
};

/// `chunks` in grid order covering [0, grid.n). min_separation is in frequency units (1/day).
PeakSelection select_peaks(const std::vector<ChunkPeaks>& chunks, const FrequencyGrid& grid, int top_k,
                           double min_separation);

/// How many interior maxima a chunk must keep so the selection of top_k is exact in practice.
inline std::size_t candidates_per_chunk(int top_k) { return static_cast<std::size_t>(32 + 8 * top_k); }

}  // namespace astrosweep::period
