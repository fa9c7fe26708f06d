#include "peaks.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "core/error.hpp"

namespace astrosweep::period {

namespace {
constexpr double minus_inf = -std::numeric_limits<double>::infinity();
}  // namespace

template <class T>
ChunkPeaks summarize_chunk(std::uint64_t k0, std::span<const T> p, std::size_t keep) {
  ChunkPeaks c;
  c.k0 = k0;
  c.n = p.size();
  AS_ASSERT(!p.empty());
  const std::size_t n = p.size();
  c.edge[0] = static_cast<double>(p[0]);
  c.edge[1] = static_cast<double>(p[std::min<std::size_t>(1, n - 1)]);
  c.edge[2] = static_cast<double>(p[n >= 2 ? n - 2 : 0]);
  c.edge[3] = static_cast<double>(p[n - 1]);
  for (std::size_t i = 1; i + 1 < n; ++i) {
    if (!(p[i] > p[i - 1] && p[i] >= p[i + 1])) continue;
    const Peak peak{k0 + i, static_cast<double>(p[i])};
    if (c.interior.size() < keep) {
      c.interior.push_back(peak);
      std::push_heap(c.interior.begin(), c.interior.end(), stronger);  // weakest on top
    } else if (stronger(peak, c.interior.front())) {
      std::pop_heap(c.interior.begin(), c.interior.end(), stronger);
      c.interior.back() = peak;
      std::push_heap(c.interior.begin(), c.interior.end(), stronger);
    }
  }
  return c;
}

ChunkPeaks chunk_from_candidates(std::uint64_t k0, std::uint64_t n, const double (&edge)[4],
                                 std::vector<Peak> candidates, std::size_t keep) {
  ChunkPeaks c;
  c.k0 = k0;
  c.n = n;
  std::copy(std::begin(edge), std::end(edge), std::begin(c.edge));
  std::sort(candidates.begin(), candidates.end(), stronger);
  if (candidates.size() > keep) candidates.resize(keep);
  c.interior = std::move(candidates);
  return c;
}

PeakSelection select_peaks(const std::vector<ChunkPeaks>& chunks, const FrequencyGrid& grid, int top_k,
                           double min_separation) {
  // Values next to chunk edges, by grid index, to test the edge elements for being maxima.
  std::map<std::uint64_t, double> edge_value;
  for (const auto& c : chunks) {
    edge_value[c.k0] = c.edge[0];
    if (c.n >= 2) edge_value[c.k0 + 1] = c.edge[1];
    if (c.n >= 2) edge_value[c.k0 + c.n - 2] = c.edge[2];
    edge_value[c.k0 + c.n - 1] = c.edge[3];
  }
  auto value = [&](std::uint64_t k, bool before) {
    if ((before && k == 0) || (!before && k + 1 >= grid.n)) return minus_inf;
    const auto it = edge_value.find(before ? k - 1 : k + 1);
    AS_ASSERT(it != edge_value.end());
    return it->second;
  };
  std::vector<Peak> all;
  for (const auto& c : chunks) {
    all.insert(all.end(), c.interior.begin(), c.interior.end());
    for (std::uint64_t k : {c.k0, c.k0 + c.n - 1}) {
      const double v = edge_value[k];
      if (v > value(k, true) && v >= value(k, false)) all.push_back({k, v});
      if (c.n == 1) break;
    }
  }
  std::sort(all.begin(), all.end(), stronger);
  all.erase(std::unique(all.begin(), all.end(), [](const Peak& a, const Peak& b) { return a.index == b.index; }),
            all.end());

  PeakSelection sel;
  sel.best = {0, std::numeric_limits<double>::quiet_NaN()};
  if (all.empty()) return sel;
  sel.best = all.front();
  for (const auto& candidate : all) {
    if (static_cast<int>(sel.peaks.size()) >= top_k) break;
    const double f = grid.at(candidate.index);
    const bool distinct = std::all_of(sel.peaks.begin(), sel.peaks.end(), [&](const Peak& kept) {
      return std::abs(grid.at(kept.index) - f) >= min_separation;
    });
    if (distinct) sel.peaks.push_back(candidate);
  }
  return sel;
}

template ChunkPeaks summarize_chunk<float>(std::uint64_t, std::span<const float>, std::size_t);
template ChunkPeaks summarize_chunk<double>(std::uint64_t, std::span<const double>, std::size_t);

}  // namespace astrosweep::period
