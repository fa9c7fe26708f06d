// The SNR history on a GPU, host side: the ring in device memory for the history's life (zeroed
// once); a chunk from the host goes up through a pinned buffer and into the ring by the write
// kernel, a chunk already on the device (a CUDA backend's SNRs, or the multi-rate backend's
// summed ones in double) only through the kernel, which rounds them to the ring's precision; reads
// for the host are gathered on the device and come down in one copy. Buffers grow, never shrink.
// One stream of its own for the host's writes and reads, each synchronized before it returns, so
// that whoever reads the ring next on another stream sees them.
#include <algorithm>
#include <vector>

#include "core/error.hpp"
#include "cuda_device.hpp"
#include "cuda_memory.hpp"
#include "snr_history_cuda.hpp"
#include "snr_history_device.hpp"
#include "snr_history_launch.hpp"

namespace astrosweep::spiir {
namespace {

template <class Real>
class SnrHistoryOnDevice final : public SnrHistoryCuda {
 public:
  SnrHistoryOnDevice(std::size_t n_templates, std::size_t length, Precision precision, const BackendOptions& options)
      : SnrHistoryCuda(n_templates, length, precision), device_(cuda::choose_device(options)) {
    const std::size_t bytes = n_templates * length * 2 * sizeof(Real);
    AS_EXPECTS(bytes <= device_.memory_budget, RuntimeError,
               "the GPU memory budget of " + std::to_string(device_.memory_budget >> 20) +
                   " MiB cannot hold an SNR history of " + std::to_string(n_templates) + " templates × " +
                   std::to_string(length) + " samples (" + std::to_string(bytes >> 20) + " MiB)",
               "keep a shorter history, run fewer ranks per GPU, or use --backend cpu");
    ring_.reserve(std::max<std::size_t>(bytes, 1));
    AS_CUDA_TRY(cudaMemsetAsync(ring_.as<void>(), 0, bytes, stream_.get()));
    stream_.synchronize();
  }

  [[nodiscard]] int device() const override { return device_.index; }
  [[nodiscard]] const void* ring() const override { return ring_.as<void>(); }

  void append_device(const void* z, Precision from, std::size_t n, cudaStream_t stream) override {
    check_chunk(n);
    if (n == 0 || n_templates() == 0) {
      advance(n);
      return;
    }
    const cuda::DeviceScope scope(device_.index);
    if (from == Precision::fp32)
      kernels::launch_ring_write(static_cast<const float*>(z), n_templates(), n, ring_.as<Real>(), length(), written(),
                                 stream);
    else
      kernels::launch_ring_write(static_cast<const double*>(z), n_templates(), n, ring_.as<Real>(), length(), written(),
                                 stream);
    AS_CUDA_TRY(cudaStreamSynchronize(stream));
    advance(n);
  }

 protected:
  void write(std::span<const std::complex<double>> z, std::size_t n) override {
    const cuda::DeviceScope scope(device_.index);
    const std::size_t values = z.size() * 2;
    staged_.reserve(values * sizeof(Real));
    chunk_.reserve(values * sizeof(Real));
    Real* staged = staged_.as<Real>();
    for (std::size_t i = 0; i < z.size(); ++i) {
      staged[2 * i] = static_cast<Real>(z[i].real());
      staged[2 * i + 1] = static_cast<Real>(z[i].imag());
    }
    AS_CUDA_TRY(
        cudaMemcpyAsync(chunk_.as<Real>(), staged, values * sizeof(Real), cudaMemcpyHostToDevice, stream_.get()));
    kernels::launch_ring_write(chunk_.as<Real>(), n_templates(), n, ring_.as<Real>(), length(), written(),
                               stream_.get());
    stream_.synchronize();
  }

  void gather(std::span<const HistoryRead> reads, std::size_t n, std::span<std::complex<double>> out) const override {
    const cuda::DeviceScope scope(device_.index);
    const std::size_t n_reads = reads.size(), index_bytes = 2 * n_reads * sizeof(std::int64_t);
    const std::size_t out_bytes = n_reads * n * 2 * sizeof(Real);
    staged_index_.reserve(index_bytes);
    index_.reserve(index_bytes);
    staged_out_.reserve(out_bytes);
    out_.reserve(out_bytes);
    auto* index = staged_index_.as<std::int64_t>();  // rows, then first samples
    for (std::size_t r = 0; r < n_reads; ++r) {
      index[r] = static_cast<std::int64_t>(reads[r].row);
      index[n_reads + r] = reads[r].first;
    }
    AS_CUDA_TRY(cudaMemcpyAsync(index_.as<void>(), index, index_bytes, cudaMemcpyHostToDevice, stream_.get()));
    kernels::launch_ring_gather<Real>(ring_.as<Real>(), length(), index_.as<std::int64_t>(),
                                      index_.as<std::int64_t>() + n_reads, n_reads, n, out_.as<Real>(), stream_.get());
    AS_CUDA_TRY(
        cudaMemcpyAsync(staged_out_.as<void>(), out_.as<void>(), out_bytes, cudaMemcpyDeviceToHost, stream_.get()));
    stream_.synchronize();
    const Real* v = staged_out_.as<Real>();
    for (std::size_t i = 0; i < n_reads * n; ++i)
      out[i] = {static_cast<double>(v[2 * i]), static_cast<double>(v[2 * i + 1])};
  }

 private:
  const cuda::DeviceChoice device_;  ///< first: chosen and made current before any CUDA handle
  cuda::Stream stream_;
  cuda::DeviceMemory ring_, chunk_;
  cuda::PinnedMemory staged_;
  // The reads' buffers: gather() is const (a read), its scratch is not the history's state.
  mutable cuda::DeviceMemory index_, out_;
  mutable cuda::PinnedMemory staged_index_, staged_out_;
};

}  // namespace

std::unique_ptr<SnrHistory> make_snr_history_cuda(std::size_t n_templates, std::size_t length, Precision precision,
                                                  const BackendOptions& options) {
  if (precision == Precision::fp32)
    return std::make_unique<SnrHistoryOnDevice<float>>(n_templates, length, precision, options);
  return std::make_unique<SnrHistoryOnDevice<double>>(n_templates, length, precision, options);
}

}  // namespace astrosweep::spiir
