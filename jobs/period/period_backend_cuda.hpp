#pragma once
// The CUDA backend's entry points, in plain C++: defined in kernels/ when astrosweep is built with
// CUDA, and as "not available" otherwise, so the job links either way.

#include <memory>

#include "period_backend.hpp"

namespace astrosweep::period {

/// CUDA devices this rank can use; 0 without a driver, a device, or a CUDA build.
int cuda_device_count() noexcept;

/// The backend on device node_local_rank mod cuda_device_count(); throws RuntimeError without one.
std::unique_ptr<PeriodBackend> make_cuda_backend(const BackendOptions& options);

}  // namespace astrosweep::period
