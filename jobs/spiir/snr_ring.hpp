#pragma once
// Where an SNR history (snr_history.hpp) keeps a sample: shared by the host ring and the CUDA
// kernels that read and write the device ring (plain C++, __host__ __device__ under nvcc).
#include <cstddef>
#include <cstdint>

#include "core/host_device.hpp"

namespace astrosweep::spiir {

/// The (re, im) pair index of absolute sample `s` (≥ 0) of template row `row` in a ring of
/// `length` samples per row (a power of two): rows one after the other, sample s at s mod length.
AS_HOST_DEVICE inline std::size_t ring_slot(std::size_t row, std::int64_t s, std::size_t length) {
  return row * length + (static_cast<std::size_t>(s) & (length - 1));
}

}  // namespace astrosweep::spiir
