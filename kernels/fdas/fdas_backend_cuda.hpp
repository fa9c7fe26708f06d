#pragma once
// The fdas job's CUDA backend entry point, in plain C++: built in a CUDA build only; the job's
// backend factory (fdas_backend_factory.cpp) calls it when a rank runs on a GPU.
#include <memory>

#include "fdas_backend.hpp"

namespace astrosweep::fdas {

/// The backend on device node_local_rank mod cuda_device_count() (device.hpp) for `bank`'s
/// templates (the bank must outlive it): the cuFFT correlation, the harmonic sum and the
/// thresholds on the device, the candidates merged on the host by the CPU's own insertion
/// (series_search.hpp). Throws RuntimeError without a device.
std::unique_ptr<FdasBackend> make_fdas_backend_cuda(const TemplateBank& bank, const BackendOptions& options);

}  // namespace astrosweep::fdas
