// The CUDA spiir backend: host side, twin of jobs/spiir/spiir_backend_cpu.cpp. The bank's
// coefficients (structure of arrays), the filter states and the input's history (the last
// max_delay samples) live on the device for the backend's life; per chunk only the new samples go
// up and the SNRs come down, through pinned staging buffers. Device and pinned buffers are grown
// when a longer chunk comes, never shrunk, so a run of equal chunks allocates once.
//
// One stream per backend: a chunk's upload, kernel, history copy and download depend on each other
// in that order and filter() returns the SNRs, so there is nothing within one call to overlap;
// ranks or lanes with backends of their own overlap on the GPU through their own streams.

#include "spiir_backend_cuda.hpp"

#include <algorithm>
#include <cstring>
#include <vector>

#include "core/error.hpp"
#include "cuda_device.hpp"
#include "cuda_memory.hpp"
#include "spiir_filter_launch.hpp"

namespace astrosweep::spiir {

namespace {

template <class T>
void upload(cuda::DeviceMemory& to, const std::vector<T>& from, const cuda::Stream& stream) {
  to.reserve(std::max<std::size_t>(1, from.size()) * sizeof(T));
  if (!from.empty())
    AS_CUDA_TRY(
        cudaMemcpyAsync(to.as<T>(), from.data(), from.size() * sizeof(T), cudaMemcpyHostToDevice, stream.get()));
}

template <class Real>
class SpiirBackendCuda final : public SpiirBackend {
 public:
  SpiirBackendCuda(const RateBank& bank, const BackendOptions& options)
      : device_(cuda::choose_device(options)),
        n_templates_(bank.n_templates),
        width_(bank.width),
        max_delay_(static_cast<std::size_t>(bank.max_delay())) {
    const std::size_t n = bank.a1.size();
    AS_EXPECTS(n == n_templates_ * width_, UsageError, "the rate bank's coefficients do not fit its shape");
    std::vector<Real> a_re(n), a_im(n), b_re(n), b_im(n);
    for (std::size_t i = 0; i < n; ++i) {
      a_re[i] = static_cast<Real>(bank.a1[i].real());
      a_im[i] = static_cast<Real>(bank.a1[i].imag());
      b_re[i] = static_cast<Real>(bank.b0[i].real());
      b_im[i] = static_cast<Real>(bank.b0[i].imag());
    }
    max_filters_ = bank.n_filters.empty() ? 0 : *std::max_element(bank.n_filters.begin(), bank.n_filters.end());
    fixed_bytes_ =
        n * (6 * sizeof(Real) + sizeof(std::int32_t)) + n_templates_ * sizeof(std::int32_t) + max_delay_ * sizeof(Real);
    AS_EXPECTS(fixed_bytes_ <= device_.memory_budget, RuntimeError,
               "the GPU memory budget of " + std::to_string(device_.memory_budget >> 20) +
                   " MiB cannot hold the bank's filters (" + std::to_string(fixed_bytes_ >> 20) + " MiB)",
               "run fewer ranks per GPU, or use --backend cpu");
    upload(a_re_, a_re, stream_);
    upload(a_im_, a_im, stream_);
    upload(b_re_, b_re, stream_);
    upload(b_im_, b_im, stream_);
    upload(delay_, bank.delay, stream_);
    upload(n_filters_, bank.n_filters, stream_);
    y_re_.reserve(std::max<std::size_t>(1, n) * sizeof(Real));
    y_im_.reserve(std::max<std::size_t>(1, n) * sizeof(Real));
    history_.reserve(std::max<std::size_t>(1, max_delay_) * sizeof(Real));
    stream_.synchronize();  // the host vectors go at the end of this scope
    reset();
  }

  [[nodiscard]] std::string describe() const override {
    return device_.describe(std::to_string(device_.memory_budget >> 20) + " MiB") + ", " +
           (sizeof(Real) == 4 ? "fp32" : "fp64") + ", tiles of " + std::to_string(kernels::spiir_tile<Real>) +
           " samples";
  }
  [[nodiscard]] std::size_t n_templates() const override { return n_templates_; }

  void reset() override {
    const cuda::DeviceScope scope(device_.index);
    const std::size_t n = n_templates_ * width_;
    if (n > 0) {
      AS_CUDA_TRY(cudaMemsetAsync(y_re_.as<Real>(), 0, n * sizeof(Real), stream_.get()));
      AS_CUDA_TRY(cudaMemsetAsync(y_im_.as<Real>(), 0, n * sizeof(Real), stream_.get()));
    }
    if (max_delay_ > 0) AS_CUDA_TRY(cudaMemsetAsync(history_.as<Real>(), 0, max_delay_ * sizeof(Real), stream_.get()));
  }

 protected:
  void run(std::span<const double> x, std::span<std::complex<double>> z) override {
    const std::size_t n = x.size();
    if (n == 0 || n_templates_ == 0) return;  // nothing to filter (no templates: no states or history to carry)
    const cuda::DeviceScope scope(device_.index);
    reserve(n);
    auto* staged_x = staged_x_.as<Real>();
    std::transform(x.begin(), x.end(), staged_x, [](double v) { return static_cast<Real>(v); });
    // ext = history | chunk, so that x[n0 − d] is ext[max_delay + n0 − d] for every delay d ≤ max_delay.
    Real* ext = ext_.as<Real>();
    if (max_delay_ > 0)
      AS_CUDA_TRY(cudaMemcpyAsync(ext, history_.as<Real>(), max_delay_ * sizeof(Real), cudaMemcpyDeviceToDevice,
                                  stream_.get()));
    AS_CUDA_TRY(cudaMemcpyAsync(ext + max_delay_, staged_x, n * sizeof(Real), cudaMemcpyHostToDevice, stream_.get()));
    kernels::launch_spiir_filter<Real>(view(), ext, n, shifted_.as<Real>(), z_.as<Real>(), stream_.get());
    // The next chunk's history: the last max_delay samples of ext (history and chunk together, so
    // a chunk shorter than max_delay keeps part of the old history).
    if (max_delay_ > 0)
      AS_CUDA_TRY(cudaMemcpyAsync(history_.as<Real>(), ext + n, max_delay_ * sizeof(Real), cudaMemcpyDeviceToDevice,
                                  stream_.get()));
    const std::size_t n_out = n_templates_ * n;
    AS_CUDA_TRY(cudaMemcpyAsync(staged_z_.as<Real>(), z_.as<Real>(), 2 * n_out * sizeof(Real), cudaMemcpyDeviceToHost,
                                stream_.get()));
    stream_.synchronize();
    const Real* out = staged_z_.as<Real>();
    if constexpr (sizeof(Real) == sizeof(double)) {
      std::memcpy(static_cast<void*>(z.data()), out, 2 * n_out * sizeof(Real));  // double2 is complex<double>
    } else {
      for (std::size_t i = 0; i < n_out; ++i)
        z[i] = {static_cast<double>(out[2 * i]), static_cast<double>(out[2 * i + 1])};
    }
  }

 private:
  [[nodiscard]] kernels::DeviceRateBank<Real> view() const {
    kernels::DeviceRateBank<Real> v;
    v.a_re = a_re_.as<Real>();
    v.a_im = a_im_.as<Real>();
    v.b_re = b_re_.as<Real>();
    v.b_im = b_im_.as<Real>();
    v.delay = delay_.as<std::int32_t>();
    v.n_filters = n_filters_.as<std::int32_t>();
    v.y_re = y_re_.as<Real>();
    v.y_im = y_im_.as<Real>();
    v.n_templates = n_templates_;
    v.width = width_;
    v.max_delay = max_delay_;
    v.max_filters = max_filters_;
    return v;
  }

  /// Room for a chunk of n samples: the extended input (and its shifted copies for the kernel's
  /// aligned loads) and the SNRs on the device, their staging
  /// buffers on the host. Checked against the budget before anything grows.
  void reserve(std::size_t n) {
    const std::size_t ext_bytes = (max_delay_ + n) * sizeof(Real);
    const std::size_t shifted_bytes = kernels::spiir_shifted_size<Real>(max_delay_ + n) * sizeof(Real);
    const std::size_t z_bytes = 2 * n_templates_ * n * sizeof(Real);
    if (ext_bytes > ext_.bytes() || shifted_bytes > shifted_.bytes() || z_bytes > z_.bytes()) {
      const std::size_t need = fixed_bytes_ + ext_bytes + shifted_bytes + z_bytes;
      AS_EXPECTS(need <= device_.memory_budget, RuntimeError,
                 "the GPU memory budget of " + std::to_string(device_.memory_budget >> 20) + " MiB cannot hold a " +
                     std::to_string(n) + "-sample chunk of " + std::to_string(n_templates_) + " templates' SNRs (" +
                     std::to_string(need >> 20) + " MiB)",
                 "use shorter --chunk-seconds, run fewer ranks per GPU, or use --backend cpu");
    }
    ext_.reserve(ext_bytes);
    shifted_.reserve(shifted_bytes);
    z_.reserve(z_bytes);
    staged_x_.reserve(n * sizeof(Real));
    staged_z_.reserve(z_bytes);
  }

  const cuda::DeviceChoice device_;  ///< first: chosen and made current before any CUDA handle
  std::size_t n_templates_, width_, max_delay_;
  int max_filters_ = 0;
  std::size_t fixed_bytes_ = 0;
  cuda::Stream stream_;
  cuda::DeviceMemory a_re_, a_im_, b_re_, b_im_, delay_, n_filters_, y_re_, y_im_, history_, ext_, shifted_, z_;
  cuda::PinnedMemory staged_x_, staged_z_;
};

}  // namespace

std::unique_ptr<SpiirBackend> make_spiir_backend_cuda(const RateBank& bank, Precision precision,
                                                      const BackendOptions& options) {
  if (precision == Precision::fp32) return std::make_unique<SpiirBackendCuda<float>>(bank, options);
  return std::make_unique<SpiirBackendCuda<double>>(bank, options);
}

}  // namespace astrosweep::spiir
