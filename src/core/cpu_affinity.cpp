#include "cpu_affinity.hpp"

#include <omp.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <set>
#include <utility>

#include "error.hpp"
#include "mpi.hpp"
#include "text.hpp"

namespace astrosweep::affinity {
namespace {

std::atomic<int> settled_threads{0};

// The CPUs of `cpus` grouped by physical core, cores in the order of their first CPU.
std::vector<CpuList> by_core(const CpuList& cpus, const std::function<int(int)>& core_of) {
  std::map<int, CpuList> cores;
  for (const int cpu : cpus) cores[core_of ? core_of(cpu) : cpu].push_back(cpu);
  std::vector<CpuList> grouped;
  for (auto& [core, members] : cores) grouped.push_back(std::move(members));
  std::sort(grouped.begin(), grouped.end(), [](const CpuList& a, const CpuList& b) { return a.front() < b.front(); });
  return grouped;
}

CpuList intersection(const CpuList& a, const CpuList& b) {
  CpuList both;
  std::set_intersection(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(both));
  return both;
}

// The CPUs node-local rank `rank` of `n` takes when all share one mask: whole cores, a contiguous
// block each (neighbouring cores share caches), sizes differing by at most one core.
CpuList share_of(const std::vector<CpuList>& cores, int rank, int n) {
  const auto n_cores = static_cast<long>(cores.size());
  CpuList cpus;
  if (n <= n_cores) {
    for (long c = rank * n_cores / n; c < (rank + 1) * n_cores / n; ++c)
      cpus.insert(cpus.end(), cores[static_cast<std::size_t>(c)].begin(), cores[static_cast<std::size_t>(c)].end());
  } else {
    const auto& core = cores[static_cast<std::size_t>(rank * n_cores / n)];
    cpus.assign(core.begin(), core.end());
  }
  std::sort(cpus.begin(), cpus.end());
  return cpus;
}

// Every CPU of `lists`, once, ascending.
CpuList union_of(const std::vector<CpuList>& lists) {
  CpuList all;
  for (const auto& cpus : lists) all.insert(all.end(), cpus.begin(), cpus.end());
  std::sort(all.begin(), all.end());
  all.erase(std::unique(all.begin(), all.end()), all.end());
  return all;
}

CpuList to_list(const cpu_set_t& set) {
  CpuList cpus;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
    if (CPU_ISSET(cpu, &set)) cpus.push_back(cpu);
  return cpus;
}

// The mask of `pid` (0: this thread); empty if it cannot be read.
CpuList mask_of(pid_t pid) {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(pid, sizeof set, &set) != 0) return {};
  return to_list(set);
}

// The physical core of a CPU from sysfs (package and core id); the CPU itself where not readable.
int core_from_sysfs(int cpu) {
  const std::string topology = "/sys/devices/system/cpu/cpu" + std::to_string(cpu) + "/topology/";
  int core = -1, package = 0;
  std::ifstream(topology + "core_id") >> core;
  std::ifstream(topology + "physical_package_id") >> package;
  if (core < 0) return cpu;
  return package * 1'000'000 + core;
}

std::optional<int> threads_from_environment() {
  const char* value = std::getenv("OMP_NUM_THREADS");
  if (value == nullptr || *value == '\0') return std::nullopt;
  const std::string text(value);  // "8" or a nested list "8,2": the outer level is ours
  const auto number = parse_number(text.substr(0, text.find(',')));
  if (!number || *number < 1) return std::nullopt;
  return static_cast<int>(*number);
}

bool binds_threads() {
  const char* bind = std::getenv("OMP_PROC_BIND");
  const char* places = std::getenv("OMP_PLACES");
  const bool bind_set =
      bind != nullptr && *bind != '\0' && std::string(bind) != "false" && std::string(bind) != "FALSE";
  return bind_set || (places != nullptr && *places != '\0');
}

}  // namespace

std::string format_cpus(const CpuList& cpus) {
  std::string text;
  for (std::size_t i = 0; i < cpus.size();) {
    std::size_t j = i;
    while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) ++j;
    if (!text.empty()) text += ',';
    text += std::to_string(cpus[i]);
    if (j > i) text += '-' + std::to_string(cpus[j]);
    i = j + 1;
  }
  return text;
}

Plan plan(const NodeView& node) {
  Plan p;
  const auto& masks = node.masks;
  const int n = static_cast<int>(masks.size());
  const CpuList& mine = masks.at(static_cast<std::size_t>(node.local_rank));
  const bool unbound = n > 1 && std::all_of(masks.begin(), masks.end(), [&](const CpuList& m) { return m == mine; });

  // Each rank's CPUs under the plan: what the launcher gave, or a share of the common mask.
  std::vector<CpuList> used(masks.begin(), masks.end());
  if (unbound) {
    const auto cores = by_core(mine, node.core_of);
    for (int r = 0; r < n; ++r) used[static_cast<std::size_t>(r)] = share_of(cores, r, n);
    p.restrict_to = true;
    if (n > static_cast<int>(cores.size()))
      p.warnings.push_back(std::to_string(n) + " ranks on this node's " + std::to_string(cores.size()) +
                           " core(s): ranks share cores; run at most one rank per core");
    if (node.user_binds_threads)
      p.warnings.push_back(
          "OMP_PROC_BIND/OMP_PLACES are set, but the launcher did not bind the ranks: OpenMP then pins every rank's "
          "threads to the same first cores; unset both (each rank keeps its threads on its own cores)");
  } else {
    for (int a = 0; a < n; ++a)
      for (int b = a + 1; b < n; ++b) {
        const CpuList both = intersection(masks[static_cast<std::size_t>(a)], masks[static_cast<std::size_t>(b)]);
        if (both.empty()) continue;
        p.warnings.push_back("node-local ranks " + std::to_string(a) + " and " + std::to_string(b) +
                             " are bound to the same CPUs (" + format_cpus(both) +
                             "): bind ranks to separate cores (srun --cpu-bind=cores; mpirun --map-by "
                             "slot:PE=<cores per rank> --bind-to core)");
        a = b = n;  // one example is enough
      }
  }
  p.cpus = used[static_cast<std::size_t>(node.local_rank)];

  const CpuList all_used = union_of(used);
  CpuList idle;
  std::set_difference(node.job_cpus.begin(), node.job_cpus.end(), all_used.begin(), all_used.end(),
                      std::back_inserter(idle));
  if (!idle.empty())
    p.warnings.push_back("the ranks on this node compute on " + std::to_string(all_used.size()) + " of its " +
                         std::to_string(node.job_cpus.size()) + " CPUs (" + format_cpus(idle) +
                         " idle): the launcher bound each rank to fewer cores than there are (mpirun binds each of "
                         "2 or fewer ranks to one core); give ranks more (mpirun --map-by slot:PE=<cores per rank> "
                         "--bind-to core, or --bind-to none) or run more ranks");

  if (node.user_threads) {
    if (*node.user_threads > static_cast<int>(p.cpus.size()))
      p.warnings.push_back("OMP_NUM_THREADS=" + std::to_string(*node.user_threads) + " threads per rank on " +
                           std::to_string(p.cpus.size()) + " CPU(s) each: threads share CPUs");
  } else {
    p.threads = static_cast<int>(p.cpus.size());
  }
  return p;
}

Plan settle(MPI_Comm comm, const std::string& job) {
  cpu_set_t own;
  CPU_ZERO(&own);
  AS_EXPECTS(sched_getaffinity(0, sizeof own, &own) == 0, RuntimeError, "cannot read this process's CPU affinity");

  MPI_Comm node_comm = MPI_COMM_NULL;
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  AS_MPI_TRY(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node_comm));
  int local_rank = 0, local_size = 1;
  MPI_Comm_rank(node_comm, &local_rank);
  MPI_Comm_size(node_comm, &local_size);
  // cpu_set_t is a plain bit array: gathered as bytes (nodes of up to CPU_SETSIZE = 1024 CPUs).
  std::vector<cpu_set_t> sets(static_cast<std::size_t>(local_size));
  const int rc = MPI_Allgather(&own, sizeof own, MPI_BYTE, sets.data(), sizeof own, MPI_BYTE, node_comm);
  MPI_Comm_free(&node_comm);
  AS_MPI_TRY(rc);

  NodeView node;
  for (const auto& set : sets) node.masks.push_back(to_list(set));
  node.local_rank = local_rank;
  // The CPUs the job may use here: what the launcher itself runs on (mpirun's daemon, slurmstepd
  // in the job's cgroup) and what any rank was given.
  std::vector<CpuList> seen = node.masks;
  seen.push_back(mask_of(getppid()));
  node.job_cpus = union_of(seen);
  node.core_of = core_from_sysfs;
  node.user_threads = threads_from_environment();
  node.user_binds_threads = binds_threads();

  Plan p = plan(node);
  if (p.restrict_to) {
    cpu_set_t narrowed;
    CPU_ZERO(&narrowed);
    for (const int cpu : p.cpus) CPU_SET(cpu, &narrowed);
    // This thread only; every thread it starts from now on (OpenMP's, the dispatcher) inherits it.
    if (sched_setaffinity(0, sizeof narrowed, &narrowed) != 0)
      p.warnings.push_back("cannot narrow this rank's CPU affinity to " + format_cpus(p.cpus));
  }
  if (p.threads > 0) {
    omp_set_num_threads(p.threads);
    settled_threads = p.threads;
  }
  if (local_rank == 0)
    for (const auto& warning : p.warnings)
      std::fprintf(stderr, "[astrosweep] %s: warning: %s\n", job.c_str(), warning.c_str());
  std::fflush(stderr);
  return p;
}

int default_threads() {
  const int settled = settled_threads.load();
  return settled > 0 ? settled : omp_get_max_threads();
}

}  // namespace astrosweep::affinity
