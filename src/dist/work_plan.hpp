#pragma once
// Work units: contiguous object ranges of a catalog, sized by cost (sum of N_t * N_f) so every
// rank gets many units and the slowest unit is short against the whole run.

#include <cstdint>
#include <vector>

namespace astrosweep {

struct WorkUnit {
  std::uint64_t id = 0;
  std::uint64_t first_object = 0;
  std::uint64_t n_objects = 0;
  std::uint64_t first_row = 0;
  std::uint64_t n_rows = 0;
  double cost = 0;  ///< sum over objects of rows x cost_per_row
};

struct PlanLimits {
  double min_unit_cost = 2e8;            ///< below this a unit is mostly overhead (~0.1 s on a core)
  int units_per_rank = 16;               ///< target, for balance with dynamic hand-out
  std::uint64_t max_objects = 1u << 16;  ///< bounds a unit's result rows in memory
  std::uint64_t max_rows = 1u << 24;     ///< bounds a unit's light-curve rows in memory
};

/// Units in dispatch order: costliest first, so long objects start early and short units fill
/// the tail. Objects with zero rows still belong to a unit (they get a status in the product).
std::vector<WorkUnit> plan_work_units(const std::vector<std::uint64_t>& counts, double cost_per_row, int n_ranks,
                                      const PlanLimits& limits = {});

/// The same over the objects not marked in `done` (one flag per object; empty: none is done), for
/// a resumed run: no unit holds a done object, every other object is in exactly one unit, units
/// are sized by the remaining cost. Unit ids are 0..n-1 of this plan, unrelated to earlier ones.
std::vector<WorkUnit> plan_remaining_work_units(const std::vector<std::uint64_t>& counts, const std::vector<bool>& done,
                                                double cost_per_row, int n_ranks, const PlanLimits& limits = {});

}  // namespace astrosweep
