#pragma once
// Kernels-internal: a CUDA backend's chunk filtered with its SNRs left on the device, for the
// multi-rate backend (multirate_backend_cuda.cpp), which interpolates and sums its levels' SNRs
// there. Not for the jobs: it names CUDA types.
#include <cuda_runtime_api.h>

#include <span>

#include "spiir_backend.hpp"

namespace astrosweep::spiir {

/// A chunk's SNRs on the device: template-major, (re, im) pairs of the backend's precision
/// (float or double), n_templates × the chunk's samples, written by work queued on `stream`.
struct DeviceSnrs {
  const void* z = nullptr;
  cudaStream_t stream = nullptr;
};

/// Filters x through `backend` (made by make_spiir_backend_cuda) as filter() would, states and
/// history carried alike, but leaves the SNRs on the device: those filter() would bring down, bit
/// for bit. Returns once the work is queued. They stay valid until the backend's next call; the
/// caller must have finished reading them (its work synchronised) before that call, which may
/// reuse or grow their buffer. Throws UsageError for a backend of another kind.
DeviceSnrs filter_on_device(SpiirBackend& backend, std::span<const double> x);

}  // namespace astrosweep::spiir
