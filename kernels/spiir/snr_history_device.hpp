#pragma once
// The CUDA SNR history as the CUDA backend (which writes a chunk into it on the device) and the
// CUDA sky search (which reads it there) see it: kernels/spiir only; jobs see SnrHistory.
#include <cuda_runtime_api.h>

#include <cstddef>

#include "snr_history.hpp"

namespace astrosweep::spiir {

class SnrHistoryCuda : public SnrHistory {
 public:
  using SnrHistory::SnrHistory;
  /// The device the ring lives on.
  [[nodiscard]] virtual int device() const = 0;
  /// The ring in device memory, (re, im) pairs of the history's precision (snr_ring.hpp's layout).
  [[nodiscard]] virtual const void* ring() const = 0;
  /// Appends `n` samples of every template from device memory `z` (template-major, n_templates ×
  /// n, (re, im) pairs of precision `from`: a backend's as the filter kernel writes them, or the
  /// multi-rate sum's double) on `stream`, after the work already queued there (which wrote z),
  /// each value converted to the history's precision as append() converts it from the host, so the
  /// ring is bit for bit what append() of the same values would leave; returns once the ring holds them.
  virtual void append_device(const void* z, Precision from, std::size_t n, cudaStream_t stream) = 0;
};

}  // namespace astrosweep::spiir
