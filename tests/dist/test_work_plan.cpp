// Work units cover every object exactly once, in contiguous ranges, costliest first.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "dist/work_plan.hpp"

namespace astrosweep {
namespace {

void expect_exact_cover(const std::vector<WorkUnit>& units, const std::vector<std::uint64_t>& counts) {
  std::vector<WorkUnit> by_object = units;
  std::sort(by_object.begin(), by_object.end(),
            [](const WorkUnit& a, const WorkUnit& b) { return a.first_item < b.first_item; });
  std::uint64_t object = 0, row = 0;
  for (const auto& u : by_object) {
    EXPECT_EQ(u.first_item, object);
    EXPECT_EQ(u.first_row, row);
    EXPECT_GT(u.n_items, 0u);
    std::uint64_t rows = 0;
    for (std::uint64_t i = 0; i < u.n_items; ++i) rows += counts[u.first_item + i];
    EXPECT_EQ(u.n_rows, rows);
    object += u.n_items;
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

// A resumed run: units cover exactly the objects not done, never cross a done one, and their rows
// are where the catalog has them.
TEST(WorkPlan, RemainingUnitsCoverExactlyTheObjectsNotDone) {
  std::mt19937_64 rng(7);
  std::lognormal_distribution<double> len(4.0, 1.0);
  std::vector<std::uint64_t> counts(3000);
  for (auto& c : counts) c = static_cast<std::uint64_t>(len(rng));
  std::vector<std::uint64_t> first_row(counts.size() + 1, 0);
  for (std::size_t i = 0; i < counts.size(); ++i) first_row[i + 1] = first_row[i] + counts[i];
  std::vector<bool> done(counts.size());
  for (std::size_t i = 0; i < counts.size(); ++i) done[i] = (i / 97) % 3 == 1 || i % 11 == 0 || i == counts.size() - 1;
  for (int ranks : {1, 2, 3}) {
    const auto units = plan_remaining_work_units(counts, done, 2e5, ranks);
    std::vector<int> covered(counts.size(), 0);
    for (const auto& u : units) {
      EXPECT_GT(u.n_items, 0u);
      EXPECT_EQ(u.first_row, first_row[u.first_item]);
      EXPECT_EQ(u.n_rows, first_row[u.first_item + u.n_items] - first_row[u.first_item]);
      for (std::uint64_t i = u.first_item; i < u.first_item + u.n_items; ++i) ++covered[i];
    }
    for (std::size_t i = 0; i < counts.size(); ++i) EXPECT_EQ(covered[i], done[i] ? 0 : 1) << "object " << i;
    std::vector<std::uint64_t> ids;
    for (const auto& u : units) ids.push_back(u.id);
    std::sort(ids.begin(), ids.end());
    for (std::size_t i = 0; i < ids.size(); ++i) EXPECT_EQ(ids[i], i);
  }
}

TEST(WorkPlan, NothingRemainsWhenAllAreDone) {
  const std::vector<std::uint64_t> counts{5, 0, 7};
  EXPECT_TRUE(plan_remaining_work_units(counts, std::vector<bool>(3, true), 1e5, 2).empty());
}

TEST(WorkPlan, NoObjectDoneIsTheFullPlan) {
  const std::vector<std::uint64_t> counts{5, 9, 0, 7, 30, 2};
  const auto a = plan_work_units(counts, 1e8, 2);
  const auto b = plan_remaining_work_units(counts, std::vector<bool>(counts.size(), false), 1e8, 2);
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].first_item, b[i].first_item);
    EXPECT_EQ(a[i].n_items, b[i].n_items);
  }
  expect_exact_cover(a, counts);
}

TEST(WorkPlan, RespectsObjectLimit) {
  const std::vector<std::uint64_t> counts(1000, 1);
  PlanLimits limits;
  limits.max_items = 33;
  const auto units = plan_work_units(counts, 1e12, 1, limits);
  expect_exact_cover(units, counts);
  for (const auto& u : units) EXPECT_LE(u.n_items, 33u);
}

}  // namespace
}  // namespace astrosweep
