#pragma once
// The spiir job's CUDA backend entry point, in plain C++: built in a CUDA build only; the job's
// backend factory (spiir_backend_factory.cpp) calls it when a rank runs on a GPU.
#include <memory>

#include "spiir_backend.hpp"

namespace astrosweep::spiir {

/// The CUDA backend for one rate's bank (copied to the device), on device node_local_rank mod
/// cuda_device_count() (device.hpp), in `precision`: the contract of SpiirBackend (chunks of any
/// length, states and input history carried on the device, reset()). Throws RuntimeError without a
/// device, or when a chunk's buffers exceed the rank's GPU memory budget.
std::unique_ptr<SpiirBackend> make_spiir_backend_cuda(const RateBank& bank, Precision precision,
                                                      const BackendOptions& options);

}  // namespace astrosweep::spiir
