// The rank's CPUs on mocked nodes: bound ranks keep their masks, unbound ranks share the node's
// cores (whole cores, contiguous, balanced), and overlap, idle CPUs, too many ranks or threads and
// OpenMP pinning on unbound ranks are reported. settle() on the real process: collective, and its
// CPUs lie in the mask the rank started with.
#include <gtest/gtest.h>
#include <mpi.h>
#include <sched.h>

#include <algorithm>
#include <string>

#include "core/cpu_affinity.hpp"

namespace astrosweep::affinity {
namespace {

CpuList range(int first, int last) {
  CpuList cpus;
  for (int c = first; c <= last; ++c) cpus.push_back(c);
  return cpus;
}

NodeView node_of(std::vector<CpuList> masks, int local_rank, CpuList job_cpus) {
  NodeView node;
  node.masks = std::move(masks);
  node.local_rank = local_rank;
  node.job_cpus = std::move(job_cpus);
  node.core_of = [](int cpu) { return cpu; };
  return node;
}

bool mentions(const Plan& p, const std::string& text) {
  return std::any_of(p.warnings.begin(), p.warnings.end(),
                     [&](const std::string& w) { return w.find(text) != std::string::npos; });
}

TEST(CpuAffinity, BoundRanksKeepTheirMasksAndUseEveryCpu) {
  const auto node = node_of({range(0, 3), range(4, 7)}, 1, range(0, 7));
  const Plan p = plan(node);
  EXPECT_EQ(p.cpus, range(4, 7));
  EXPECT_FALSE(p.restrict_to);
  EXPECT_EQ(p.threads, 4);
  EXPECT_TRUE(p.warnings.empty()) << p.warnings.front();
}

TEST(CpuAffinity, OneRankWithTheWholeNodeUsesIt) {
  const Plan p = plan(node_of({range(0, 15)}, 0, range(0, 15)));
  EXPECT_EQ(p.cpus, range(0, 15));
  EXPECT_FALSE(p.restrict_to);
  EXPECT_EQ(p.threads, 16);
  EXPECT_TRUE(p.warnings.empty());
}

TEST(CpuAffinity, UnboundRanksShareTheCoresOut) {
  // task/none, 2 ranks on 2 CPUs: one core each (not both on CPU 0).
  for (int r = 0; r < 2; ++r) {
    const Plan p = plan(node_of({range(0, 1), range(0, 1)}, r, range(0, 1)));
    EXPECT_TRUE(p.restrict_to);
    EXPECT_EQ(p.cpus, CpuList{r});
    EXPECT_EQ(p.threads, 1);
    EXPECT_TRUE(p.warnings.empty());
  }
  // 3 ranks on 8 cores: 2, 3, 3 contiguous cores; together every core once.
  CpuList together;
  for (int r = 0; r < 3; ++r) {
    const Plan p = plan(node_of({range(0, 7), range(0, 7), range(0, 7)}, r, range(0, 7)));
    EXPECT_GE(p.cpus.size(), 2U);
    EXPECT_LE(p.cpus.size(), 3U);
    EXPECT_EQ(p.cpus.back() - p.cpus.front() + 1, static_cast<int>(p.cpus.size()));
    together.insert(together.end(), p.cpus.begin(), p.cpus.end());
  }
  std::sort(together.begin(), together.end());
  EXPECT_EQ(together, range(0, 7));
}

TEST(CpuAffinity, UnboundRanksTakeWholeCoresWithTheirHardwareThreads) {
  // 4 cores x 2 threads numbered as Linux does (siblings n and n+4): 2 ranks get 2 cores each.
  auto node = node_of({range(0, 7), range(0, 7)}, 1, range(0, 7));
  node.core_of = [](int cpu) { return cpu % 4; };
  const Plan p = plan(node);
  EXPECT_EQ(p.cpus, (CpuList{2, 3, 6, 7}));
  EXPECT_EQ(p.threads, 4);
}

TEST(CpuAffinity, MoreUnboundRanksThanCoresShareCoresAndSaySo) {
  const std::vector<CpuList> masks(4, range(0, 1));
  const Plan p = plan(node_of(masks, 3, range(0, 1)));
  EXPECT_EQ(p.cpus, CpuList{1});
  EXPECT_TRUE(mentions(p, "4 ranks on this node's 2 core(s)")) << p.warnings.size();
}

TEST(CpuAffinity, OpenMpPinningOnUnboundRanksIsReported) {
  auto node = node_of({range(0, 1), range(0, 1)}, 0, range(0, 1));
  node.user_binds_threads = true;
  EXPECT_TRUE(mentions(plan(node), "OMP_PROC_BIND/OMP_PLACES are set"));
  // Bound ranks: pinning inside each rank's own cores is what the user wants.
  auto bound = node_of({CpuList{0}, CpuList{1}}, 0, range(0, 1));
  bound.user_binds_threads = true;
  EXPECT_TRUE(plan(bound).warnings.empty());
}

TEST(CpuAffinity, OverlappingMasksAreReported) {
  const Plan p = plan(node_of({range(0, 3), range(2, 5)}, 0, range(0, 5)));
  EXPECT_EQ(p.cpus, range(0, 3));
  EXPECT_FALSE(p.restrict_to);
  EXPECT_TRUE(mentions(p, "ranks 0 and 1 are bound to the same CPUs (2-3)"));
}

TEST(CpuAffinity, IdleCpusAreReported) {
  // mpirun -np 1 on a 2-core node binds the rank to core 0.
  const Plan p = plan(node_of({CpuList{0}}, 0, range(0, 1)));
  EXPECT_EQ(p.cpus, CpuList{0});
  EXPECT_EQ(p.threads, 1);
  EXPECT_TRUE(mentions(p, "compute on 1 of its 2 CPUs (1 idle)"));
}

TEST(CpuAffinity, UsersThreadCountIsKeptAndTooManyAreReported) {
  auto node = node_of({range(0, 1)}, 0, range(0, 1));
  node.user_threads = 2;
  Plan p = plan(node);
  EXPECT_EQ(p.threads, 0);  // OMP_NUM_THREADS stands
  EXPECT_TRUE(p.warnings.empty());
  node.user_threads = 8;
  p = plan(node);
  EXPECT_TRUE(mentions(p, "OMP_NUM_THREADS=8 threads per rank on 2 CPU(s)"));
}

TEST(CpuAffinity, FormatsCpuLists) {
  EXPECT_EQ(format_cpus({}), "");
  EXPECT_EQ(format_cpus({3}), "3");
  EXPECT_EQ(format_cpus({0, 1, 2, 3, 8, 10, 11}), "0-3,8,10-11");
}

TEST(CpuAffinity, SettleKeepsTheRankInsideItsMask) {
  cpu_set_t before;
  CPU_ZERO(&before);
  ASSERT_EQ(sched_getaffinity(0, sizeof before, &before), 0);
  const Plan p = settle(MPI_COMM_WORLD, "test");
  ASSERT_FALSE(p.cpus.empty());
  for (const int cpu : p.cpus) EXPECT_TRUE(CPU_ISSET(cpu, &before)) << cpu;
  cpu_set_t after;
  CPU_ZERO(&after);
  ASSERT_EQ(sched_getaffinity(0, sizeof after, &after), 0);
  EXPECT_EQ(CPU_COUNT(&after), static_cast<int>(p.restrict_to ? p.cpus.size() : CPU_COUNT(&before)));
  if (p.threads > 0) {
    EXPECT_EQ(default_threads(), p.threads);
  }
}

}  // namespace
}  // namespace astrosweep::affinity
