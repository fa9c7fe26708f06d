#include "cuda_device.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>

#include "cuda_memory.hpp"

namespace astrosweep::cuda {

std::string DeviceChoice::describe(const std::string& budget) const {
  return "cuda (" + name + ", device " + std::to_string(index) + " of " + std::to_string(count) + ", " + budget +
         " budget)";
}

namespace {
/// The device this thread last chose (choose_device, DeviceScope), -1 before any: a thread the
/// runtime never saw reports device 0 without holding it, and switching "back" to that device would
/// open a context on a GPU the rank does not use.
thread_local int thread_device = -1;
}  // namespace

int ranks_sharing_device(int index, int count, int node_local_size) noexcept {
  return std::max(1, (node_local_size - index + count - 1) / count);
}

std::uint64_t memory_budget(const BackendOptions& options, std::size_t free_bytes, int sharing) noexcept {
  return options.device_memory_budget > 0
             ? options.device_memory_budget
             : static_cast<std::uint64_t>(free_memory_share * static_cast<double>(free_bytes) /
                                          (sharing * std::max(1, options.lanes)));
}

DeviceChoice choose_device(const BackendOptions& options) {
  DeviceChoice choice;
  choice.count = device_count();
  AS_EXPECTS(choice.count > 0, RuntimeError, "--backend cuda: no CUDA device is visible to this rank",
             "check nvidia-smi and CUDA_VISIBLE_DEVICES, or use --backend cpu or auto");
  choice.index = options.node_local_rank % choice.count;
  AS_CUDA_TRY(cudaSetDevice(choice.index));
  thread_device = choice.index;
  cudaDeviceProp prop{};
  AS_CUDA_TRY(cudaGetDeviceProperties(&prop, choice.index));
  choice.name = prop.name;
  const int sharing = ranks_sharing_device(choice.index, choice.count, options.node_local_size);
  choice.memory_budget = memory_budget(options, memory_info().first, sharing);
  return choice;
}

DeviceScope::DeviceScope(int device) : previous_(thread_device) {
  if (previous_ == device) return;
  AS_CUDA_TRY(cudaSetDevice(device));
  thread_device = device;
  switched_ = previous_ >= 0;  // a thread that had chosen none keeps this one (a lane's own thread)
}

DeviceScope::~DeviceScope() {
  if (!switched_) return;
  (void)cudaSetDevice(previous_);
  thread_device = previous_;
}

}  // namespace astrosweep::cuda
