#include "dist/work_plan.hpp"

#include <algorithm>

#include "core/error.hpp"

namespace astrosweep {

std::vector<WorkUnit> plan_work_units(const std::vector<std::uint64_t>& counts, double cost_per_row, int n_ranks,
                                      const PlanLimits& limits) {
  return plan_remaining_work_units(counts, {}, cost_per_row, n_ranks, limits);
}

std::vector<WorkUnit> plan_remaining_work_units(const std::vector<std::uint64_t>& counts, const std::vector<bool>& done,
                                                double cost_per_row, int n_ranks, const PlanLimits& limits) {
  AS_ASSERT(done.empty() || done.size() == counts.size());
  const bool skips = !done.empty();
  double total = 0;
  for (std::size_t i = 0; i < counts.size(); ++i)
    if (!skips || !done[i]) total += static_cast<double>(counts[i]) * cost_per_row;
  // Many units per rank, but never so many that each is mostly overhead; and at least one unit per
  // rank whenever there are enough items.
  double target = std::max(total / (static_cast<double>(n_ranks) * limits.units_per_rank), limits.min_unit_cost);
  target = std::min(target, total / std::max(1, n_ranks));

  std::vector<WorkUnit> units;
  WorkUnit current;
  std::uint64_t row = 0;
  auto close = [&] {
    if (current.n_items == 0) return;
    current.id = units.size();
    units.push_back(current);
    current = WorkUnit{};
  };
  for (std::size_t i = 0; i < counts.size(); ++i) {
    if (skips && done[i]) {  // a unit is a contiguous range: a done item ends it
      close();
      row += counts[i];
      continue;
    }
    const double cost = static_cast<double>(counts[i]) * cost_per_row;
    const bool full = current.n_items > 0 && (current.cost + cost > target || current.n_items + 1 > limits.max_items ||
                                              current.n_rows + counts[i] > limits.max_rows);
    if (full) close();
    if (current.n_items == 0) {
      current.first_item = i;
      current.first_row = row;
    }
    current.n_items += 1;
    current.n_rows += counts[i];
    current.cost += cost;
    row += counts[i];
  }
  close();
  std::stable_sort(units.begin(), units.end(), [](const WorkUnit& a, const WorkUnit& b) { return a.cost > b.cost; });
  return units;
}

}  // namespace astrosweep
