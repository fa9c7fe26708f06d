// Work units cover every object exactly once, in contiguous ranges, costliest first.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "core/work_plan.hpp"

namespace astrosweep {
namespace {

void expect_exact_cover(const std::vector<WorkUnit>& units, const std::vector<std::uint64_t>& counts) {
  std::vector<WorkUnit> by_object = units;
  std::sort(by_object.begin(), by_object.end(),
            [](const WorkUnit& a, const WorkUnit& b) { return a.first_object < b.first_object; });
  std::uint64_t object = 0, row = 0;
  for (const auto& u : by_object) {
    EXPECT_EQ(u.first_object, object);
    EXPECT_EQ(u.first_row, row);
    EXPECT_GT(u.n_objects, 0u);
    std::uint64_t rows = 0;
    for (std::uint64_t i = 0; i < u.n_objects; ++i) rows += counts[u.first_object + i];
    EXPECT_EQ(u.n_rows, rows);
    object += u.n_objects;
    row += u.n_rows;
  }
  EXPECT_EQ(object, counts.size());
}

TEST(WorkPlan, EmptyCatalogHasNoUnits) { EXPECT_TRUE(plan_work_units({}, 1e5, 3).empty()); }

TEST(WorkPlan, OneObject) {
  const std::vector<std::uint64_t> counts{29};
  const auto units = plan_work_units(counts, 1e5, 1);
  ASSERT_EQ(units.size(), 1u);
  expect_exact_cover(units, counts);
}

TEST(WorkPlan, LogNormalLengthsBalanceAndOrder) {
  std::mt19937_64 rng(1);
  std::lognormal_distribution<double> len(4.5, 1.0);
  std::vector<std::uint64_t> counts(10000);
  for (auto& c : counts) c = static_cast<std::uint64_t>(len(rng));
  counts[1234] = 100000;  // one long light curve among short ones
  counts[17] = 0;         // an empty object still belongs to a unit
  for (int ranks : {1, 2, 3, 64}) {
    const auto units = plan_work_units(counts, 2e5, ranks);
    expect_exact_cover(units, counts);
    EXPECT_GE(units.size(), static_cast<std::size_t>(ranks));
    EXPECT_TRUE(std::is_sorted(units.begin(), units.end(),
                               [](const WorkUnit& a, const WorkUnit& b) { return a.cost > b.cost; }));
  }
}

TEST(WorkPlan, RespectsObjectLimit) {
  const std::vector<std::uint64_t> counts(1000, 1);
  PlanLimits limits;
  limits.max_objects = 33;
  const auto units = plan_work_units(counts, 1e12, 1, limits);
  expect_exact_cover(units, counts);
  for (const auto& u : units) EXPECT_LE(u.n_objects, 33u);
}

}  // namespace
}  // namespace astrosweep
