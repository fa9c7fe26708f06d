#include "cuda_device.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>

#include "cuda_memory.hpp"

namespace astrosweep::cuda {

std::string DeviceChoice::describe(const std::string& budget) const {
  return "cuda (" + name + ", device " + std::to_string(index) + " of " + std::to_string(count) + ", " + budget +
         " budget)";
}

int ranks_sharing_device(int index, int count, int node_local_size) noexcept {
  return std::max(1, (node_local_size - index + count - 1) / count);
}

std::uint64_t memory_budget(const BackendOptions& options, std::size_t free_bytes, int sharing) noexcept {
  return options.device_memory_budget > 0
             ? options.device_memory_budget
             : static_cast<std::uint64_t>(free_memory_share * static_cast<double>(free_bytes) / sharing);
}

DeviceChoice choose_device(const BackendOptions& options) {
  DeviceChoice choice;
  choice.count = device_count();
  AS_EXPECTS(choice.count > 0, RuntimeError, "--backend cuda: no CUDA device is visible to this rank",
             "check nvidia-smi and CUDA_VISIBLE_DEVICES, or use --backend cpu or auto");
  choice.index = options.node_local_rank % choice.count;
  AS_CUDA_TRY(cudaSetDevice(choice.index));
  cudaDeviceProp prop{};
  AS_CUDA_TRY(cudaGetDeviceProperties(&prop, choice.index));
  choice.name = prop.name;
  const int sharing = ranks_sharing_device(choice.index, choice.count, options.node_local_size);
  choice.memory_budget = memory_budget(options, memory_info().first, sharing);
  return choice;
}

DeviceScope::DeviceScope(int device) {
  AS_CUDA_TRY(cudaGetDevice(&previous_));
  if (previous_ == device) return;
  AS_CUDA_TRY(cudaSetDevice(device));
  switched_ = true;
}

DeviceScope::~DeviceScope() {
  if (switched_) (void)cudaSetDevice(previous_);
}

}  // namespace astrosweep::cuda
