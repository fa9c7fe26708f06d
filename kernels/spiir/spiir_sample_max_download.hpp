#pragma once
// filter_max's way down, shared by the single-rate (spiir_backend_cuda.cpp) and the multi-rate
// (multirate_backend_cuda.cpp) CUDA backends: the per-sample maximum over the templates' SNRs on
// the device (launch_spiir_sample_max), its three per-sample results packed in one device buffer
// so that one copy brings them down into pinned memory, and unpacked there into SampleMax. Both
// buffers are grown with a longer chunk, never shrunk.

#include <span>

#include "core/error.hpp"
#include "cuda_memory.hpp"
#include "sample_max.hpp"
#include "spiir_sample_max_launch.hpp"

namespace astrosweep::spiir {

template <class Real>
class SampleMaxDownload {
 public:
  /// best[i] for samples i < best.size() of z (template-major, n_templates × best.size() Real
  /// pairs on the device, as launch_spiir_sample_max reads them), on `stream` of the current
  /// device; the stream is synchronised when this returns. n_templates ≥ 1.
  void run(const Real* z, std::size_t n_templates, std::span<SampleMax> best, const cuda::Stream& stream) {
    const std::size_t n = best.size();
    if (n == 0) return;
    // Per sample z (2 Real, first: 16-byte aligned for the kernel's pair stores), |z|² (double)
    // and template (int32).
    const std::size_t z_bytes = 2 * n * sizeof(Real), power_bytes = n * sizeof(double);
    const std::size_t bytes = z_bytes + power_bytes + n * sizeof(std::int32_t);
    packed_.reserve(bytes);
    staged_.reserve(bytes);
    char* packed = packed_.as<char>();
    kernels::launch_spiir_sample_max<Real>(z, n_templates, n, reinterpret_cast<double*>(packed + z_bytes),
                                           reinterpret_cast<std::int32_t*>(packed + z_bytes + power_bytes),
                                           reinterpret_cast<Real*>(packed), stream.get());
    AS_CUDA_TRY(cudaMemcpyAsync(staged_.as<char>(), packed, bytes, cudaMemcpyDeviceToHost, stream.get()));
    stream.synchronize();
    const char* staged = staged_.as<char>();
    const auto* v = reinterpret_cast<const Real*>(staged);
    const auto* p = reinterpret_cast<const double*>(staged + z_bytes);
    const auto* t = reinterpret_cast<const std::int32_t*>(staged + z_bytes + power_bytes);
    for (std::size_t i = 0; i < n; ++i)
      best[i] = {p[i], t[i], {static_cast<double>(v[2 * i]), static_cast<double>(v[2 * i + 1])}};
  }

  /// The device memory held, for the backends' budgets.
  [[nodiscard]] std::size_t device_bytes() const { return packed_.bytes(); }

 private:
  cuda::DeviceMemory packed_;
  cuda::PinnedMemory staged_;
};

}  // namespace astrosweep::spiir
