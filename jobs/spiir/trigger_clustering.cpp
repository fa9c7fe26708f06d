#include "trigger_clustering.hpp"

#include <algorithm>
#include <numeric>

#include "core/error.hpp"

namespace astrosweep::spiir {

std::vector<std::size_t> cluster_triggers(std::span<const std::int64_t> times, std::span<const double> values,
                                          std::int64_t window) {
  AS_EXPECTS(times.size() == values.size(), UsageError, "clustering needs one value per trigger");
  AS_EXPECTS(window >= 0, UsageError, "the clustering window must be ≥ 0");
  std::vector<std::size_t> by_time(times.size());
  std::iota(by_time.begin(), by_time.end(), std::size_t{0});
  std::stable_sort(by_time.begin(), by_time.end(), [&](std::size_t a, std::size_t b) { return times[a] < times[b]; });
  auto beats = [&](std::size_t j, std::size_t i) { return values[j] > values[i] || (values[j] == values[i] && j < i); };
  std::vector<std::size_t> kept;
  for (std::size_t k = 0; k < by_time.size(); ++k) {
    const std::size_t i = by_time[k];
    bool loudest = true;
    for (std::size_t m = k; loudest && m-- > 0 && times[i] - times[by_time[m]] <= window;)
      loudest = !beats(by_time[m], i);
    for (std::size_t m = k + 1; loudest && m < by_time.size() && times[by_time[m]] - times[i] <= window; ++m)
      loudest = !beats(by_time[m], i);
    if (loudest) kept.push_back(i);
  }
  std::sort(kept.begin(), kept.end());
  return kept;
}

}  // namespace astrosweep::spiir
