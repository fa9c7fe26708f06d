#pragma once
// The backend vocabulary every job shares: which kind of backend a rank runs (--backend), and the
// resources it may use (--threads, --memory-budget-mb, --gpu-memory-mb, its GPU by node-local
// rank). A job's backend factory takes BackendOptions; kernels/common/device.hpp answers which
// GPUs there are. Plain C++.

#include <cstdint>
#include <string>

namespace astrosweep {

enum class BackendKind { automatic, cpu, cuda };

/// "auto", "cpu" or "cuda" (the --backend values); throws UsageError otherwise.
BackendKind parse_backend(const std::string& name);
/// The --backend value of `kind`.
const char* to_string(BackendKind kind) noexcept;

struct BackendOptions {
  BackendKind kind = BackendKind::automatic;
  int threads = 0;                         ///< OpenMP threads; 0: OMP_NUM_THREADS or all cores
  std::uint64_t host_memory_budget = 0;    ///< bytes of host work buffers a rank may hold; 0: no limit
  std::uint64_t device_memory_budget = 0;  ///< bytes of GPU memory a rank may use; 0: its share of free
  int node_local_rank = 0;                 ///< picks the GPU: node_local_rank mod device count
  int node_local_size = 1;                 ///< ranks on this node, which share its GPUs
  int lanes = 1;  ///< backends this rank runs at once (units in flight), which share its GPU's free memory
};

}  // namespace astrosweep
