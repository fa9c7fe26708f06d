#pragma once
// Which CPUs a rank computes on. A rank uses the CPUs its launcher bound it to (its affinity mask)
// with one OpenMP thread each. Where the launcher bound nothing (Slurm's TaskPlugin=task/none,
// `mpirun --bind-to none`, oversubscribed mpirun), every rank of a node sees the whole node: the
// ranks then share the node's cores out among themselves, whole cores each, instead of each
// starting a thread per CPU of the node (or, with OMP_PROC_BIND set, all on the first cores).
// Ranks that overlap or leave CPUs idle are reported, with what to change (docs/user-guide.md#threads).

#include <mpi.h>

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace astrosweep::affinity {

/// CPU numbers, ascending.
using CpuList = std::vector<int>;

/// What one rank does about its CPUs.
struct Plan {
  CpuList cpus;                       ///< the CPUs it computes on (its threads' mask)
  bool restrict_to = false;           ///< true: narrow the rank's mask to `cpus` (it had the whole node)
  int threads = 0;                    ///< OpenMP threads to start; 0 leaves the user's OMP_NUM_THREADS
  std::vector<std::string> warnings;  ///< about the node, the same on each of its ranks
};

/// What the plan is made from, for one node.
struct NodeView {
  std::vector<CpuList> masks;       ///< each node-local rank's affinity mask, by node-local rank
  int local_rank = 0;               ///< this rank's place in `masks`
  CpuList job_cpus;                 ///< CPUs the job has on the node (the launcher's and the ranks' masks)
  std::function<int(int)> core_of;  ///< the physical core of a CPU (hardware threads share it)
  std::optional<int> user_threads;  ///< OMP_NUM_THREADS when the user set it
  bool user_binds_threads = false;  ///< OMP_PROC_BIND set to something other than false
};

/// The plan for this rank; pure, so the tests give it any node.
Plan plan(const NodeView& node);

/// Reads this rank's mask and those of the other ranks of `comm` on its node (collective), applies
/// plan() to this process (mask, OpenMP threads) and prints the node's warnings from its first rank,
/// prefixed with `[astrosweep] <job>: warning: `. Returns the plan.
Plan settle(MPI_Comm comm, const std::string& job);

/// The OpenMP threads a rank computes with when the job's --threads is 0: settle()'s choice, else
/// omp_get_max_threads() (OMP_NUM_THREADS, or the CPUs of the mask).
int default_threads();

/// "0-3,8,10-11".
std::string format_cpus(const CpuList& cpus);

}  // namespace astrosweep::affinity
