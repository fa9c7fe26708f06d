#pragma once
// The coherent stage's sky search on the GPU, in plain C++: built in a CUDA build only; the job's
// backend factory (spiir_backend_factory.cpp) makes it when a rank's backend resolves to CUDA.
#include <memory>

#include "coherent_snr.hpp"
#include "core/backend.hpp"

namespace astrosweep::spiir {

/// A SkySearchEngine on device node_local_rank mod cuda_device_count() within the rank's memory
/// budget. Throws RuntimeError without a device.
std::unique_ptr<SkySearchEngine> make_sky_search_cuda(const BackendOptions& options);

}  // namespace astrosweep::spiir
