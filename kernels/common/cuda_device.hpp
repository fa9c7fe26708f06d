#pragma once
// The GPU a CUDA backend runs on: which device a rank takes (by node-local rank), how much of its
// memory the rank may use, and making it current for a scope. CUDA side: the kernels/JOB backends
// include it; jobs ask device.hpp, which is plain C++.

#include <cstddef>
#include <cstdint>
#include <string>

#include "core/backend.hpp"

namespace astrosweep::cuda {

/// The share of a GPU's free memory that the ranks on it split when no budget is given.
inline constexpr double free_memory_share = 0.85;

/// The device a rank runs on and its share of it.
struct DeviceChoice {
  int index = 0;                    ///< node_local_rank mod count
  int count = 0;                    ///< devices visible to this rank
  std::string name;                 ///< the device's name (cudaDeviceProp::name)
  std::uint64_t memory_budget = 0;  ///< bytes of device memory this rank may use

  /// "cuda (NAME, device I of N, BUDGET budget)", the backends' describe(); `budget` as each job
  /// writes it ("1024 MiB", "1024.0 MiB").
  [[nodiscard]] std::string describe(const std::string& budget) const;
};

/// How many of a node's `node_local_size` ranks, dealt round-robin over `count` devices, run on
/// device `index`; at least 1.
int ranks_sharing_device(int index, int count, int node_local_size) noexcept;

/// options.device_memory_budget when set, else free_memory_share of `free_bytes` split among the
/// `sharing` ranks on the device and each rank's options.lanes.
std::uint64_t memory_budget(const BackendOptions& options, std::size_t free_bytes, int sharing) noexcept;

/// Picks device node_local_rank mod count, makes it this thread's current device, reads its name
/// and free memory, and sets the budget. The device stays current: a rank runs on one GPU, and
/// switching back could open a context on a GPU that the rank does not use (or fail, on a GPU in
/// exclusive-process mode that another rank holds). So a backend chooses its device first, before
/// it creates streams and events. Throws RuntimeError when no device is visible.
DeviceChoice choose_device(const BackendOptions& options);

/// Makes `device` this thread's current device for the scope, and the device this thread chose
/// before current again at its end. It switches only when they differ: in a job's main thread never
/// (choose_device left the rank's device current); in a process that holds backends on several
/// devices, each call runs on its own. A thread that had chosen no device (a lane's thread) keeps
/// `device` afterwards rather than going back to the runtime's default device 0.
class DeviceScope {
 public:
  explicit DeviceScope(int device);
  DeviceScope(const DeviceScope&) = delete;
  DeviceScope& operator=(const DeviceScope&) = delete;
  ~DeviceScope();

 private:
  int previous_ = 0;
  bool switched_ = false;
};

}  // namespace astrosweep::cuda
