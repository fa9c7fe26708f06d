#pragma once
// The period job's CUDA backend entry point, in plain C++: built in a CUDA build only; the job's
// backend factory (period_backend_factory.cpp) calls it when a rank runs on a GPU.
#include <memory>

#include "period_backend.hpp"

namespace astrosweep::period {

/// The backend on device node_local_rank mod cuda_device_count() (device.hpp); throws RuntimeError without one.
std::unique_ptr<PeriodBackend> make_period_backend_cuda(const BackendOptions& options);

}  // namespace astrosweep::period
