#pragma once
// The spiir job's multi-rate CUDA backend entry point, in plain C++: built in a CUDA build only; the
// job's backend factory (spiir_backend_factory.cpp) calls it when a rank with a multi-rate bank
// runs on a GPU.
#include <memory>

#include "multirate_filter.hpp"

namespace astrosweep::spiir {

/// The multi-rate bank's stream on the device of make_spiir_backend_cuda, in `precision`: the
/// strain decimated on the host (a chunk's samples, MultirateDecimator), each level filtered by a
/// CUDA backend on its own stream, the levels interpolated and summed on the device (the host
/// stream's arithmetic bit for bit over the same levels' SNRs), then for filter_max the per-sample
/// maximum there too; only what is asked comes down (the maximum, the rows, or every SNR), and
/// append_snr writes a CUDA SNR history on the same device from the sum where it lies.
std::unique_ptr<MultirateBackend> make_multirate_backend_cuda(const SpiirBank& bank, Precision precision,
                                                              const BackendOptions& options);

}  // namespace astrosweep::spiir
