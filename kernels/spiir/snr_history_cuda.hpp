#pragma once
// The SNR history's ring on a GPU, in plain C++: built in a CUDA build only; the job's factory
// (spiir_backend_factory.cpp, make_snr_history) makes it when a rank's backend resolves to CUDA.
#include <memory>

#include "core/backend.hpp"
#include "snr_history.hpp"

namespace astrosweep::spiir {

/// A ring of n_templates × length samples in `precision` on device node_local_rank mod
/// cuda_device_count() (the device of the CUDA backend and sky search of the same options), zeroed.
/// Throws RuntimeError without a device or when the ring exceeds the rank's GPU memory budget.
std::unique_ptr<SnrHistory> make_snr_history_cuda(std::size_t n_templates, std::size_t length, Precision precision,
                                                  const BackendOptions& options);

}  // namespace astrosweep::spiir
