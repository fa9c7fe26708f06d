#pragma once
// The first distribution model, dynamic work units: contiguous ranges of independent items (a
// catalog's objects for period; time series, templates for jobs to come), each item with rows of
// input, sized by cost (sum over items of rows x cost per row, e.g. N_t x N_f) so every rank gets
// many units and the slowest unit is short against the whole run. work_dispatch.hpp hands them out.

#include <cstdint>
#include <vector>

namespace astrosweep {

struct WorkUnit {
  std::uint64_t id = 0;
  std::uint64_t first_item = 0;
  std::uint64_t n_items = 0;
  std::uint64_t first_row = 0;  ///< the input rows of items [first_item, first_item + n_items)
  std::uint64_t n_rows = 0;
  double cost = 0;  ///< sum over items of rows x cost_per_row
};

struct PlanLimits {
  double min_unit_cost = 2e8;          ///< below this a unit is mostly overhead (~0.1 s on a core)
  int units_per_rank = 16;             ///< target, for balance with dynamic hand-out
  std::uint64_t max_items = 1u << 16;  ///< bounds a unit's result rows in memory
  std::uint64_t max_rows = 1u << 24;   ///< bounds a unit's input rows in memory
};

/// Units over the items whose row counts are `counts`, in dispatch order: costliest first, so long
/// items start early and short units fill the tail. Items with zero rows still belong to a unit
/// (period gives them a status in its product).
std::vector<WorkUnit> plan_work_units(const std::vector<std::uint64_t>& counts, double cost_per_row, int n_ranks,
                                      const PlanLimits& limits = {});

/// The same over the items not marked in `done` (one flag per item; empty: none is done), for a
/// resumed run: no unit holds a done item, every other item is in exactly one unit, units
/// are sized by the remaining cost. Unit ids are 0..n-1 of this plan, unrelated to earlier ones.
std::vector<WorkUnit> plan_remaining_work_units(const std::vector<std::uint64_t>& counts, const std::vector<bool>& done,
                                                double cost_per_row, int n_ranks, const PlanLimits& limits = {});

}  // namespace astrosweep
