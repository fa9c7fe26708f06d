// The CUDA spiir backend: host side, twin of jobs/spiir/spiir_backend_cpu.cpp. The bank's
// coefficients (structure of arrays), the filter states and the input's history (the last
// max_delay samples) live on the device for the backend's life; per chunk only the new samples go
// up and the SNRs come down (filter), or per sample only the best template, its |z|² and z
// (filter_max: the SNRs stay on the device, where snr_rows gathers the rows asked for), through
// pinned staging buffers. Device and pinned buffers are grown
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
#include "snr_history_device.hpp"
#include "spiir_backend_cuda_device.hpp"
#include "spiir_filter_launch.hpp"
#include "spiir_sample_max_download.hpp"
#include "spiir_sample_max_launch.hpp"

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

  /// The chunk through the filters, its SNRs left in z_ (spiir_backend_cuda_device.hpp: a
  /// multi-rate level). The previous chunk's copies are waited for before its staging is rewritten.
  DeviceSnrs filter_kept_on_device(std::span<const double> x) {
    const cuda::DeviceScope scope(device_.index);
    stream_.synchronize();
    if (!x.empty() && n_templates_ > 0) filter_on_device(x);
    return {z_.as<Real>(), stream_.get()};
  }

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
    filter_on_device(x);
    const std::size_t n_out = n_templates_ * n;
    staged_z_.reserve(2 * n_out * sizeof(Real));
    AS_CUDA_TRY(cudaMemcpyAsync(staged_z_.as<Real>(), z_.as<Real>(), 2 * n_out * sizeof(Real), cudaMemcpyDeviceToHost,
                                stream_.get()));
    stream_.synchronize();
    to_complex(staged_z_.as<Real>(), n_out, z);
  }

  void run_max(std::span<const double> x, std::span<SampleMax> best) override {
    const std::size_t n = x.size();
    if (n == 0) return;
    if (n_templates_ == 0) {  // no template to compare: the plain loop's answer
      std::fill(best.begin(), best.end(), SampleMax{});
      return;
    }
    const cuda::DeviceScope scope(device_.index);
    filter_on_device(x);
    sample_max_.run(z_.as<Real>(), n_templates_, best, stream_);
  }

  void copy_rows(std::span<const std::size_t> rows, std::size_t n, std::span<std::complex<double>> out) override {
    if (rows.empty() || n == 0) return;
    const cuda::DeviceScope scope(device_.index);
    const std::size_t n_out = rows.size() * n;
    const std::size_t rows_bytes = rows.size() * sizeof(std::int32_t), out_bytes = 2 * n_out * sizeof(Real);
    if (rows_bytes > row_index_.bytes() || out_bytes > rows_.bytes()) {
      const std::size_t need = fixed_bytes_ + ext_.bytes() + shifted_.bytes() + z_.bytes() +
                               sample_max_.device_bytes() + std::max(rows_bytes, row_index_.bytes()) +
                               std::max(out_bytes, rows_.bytes());
      AS_EXPECTS(need <= device_.memory_budget, RuntimeError,
                 "the GPU memory budget of " + std::to_string(device_.memory_budget >> 20) + " MiB cannot hold " +
                     std::to_string(rows.size()) + " SNR rows of " + std::to_string(n) + " samples (" +
                     std::to_string(need >> 20) + " MiB)",
                 "ask for fewer rows at a time, use shorter chunks or run fewer ranks per GPU");
    }
    staged_rows_.reserve(rows_bytes);
    row_index_.reserve(rows_bytes);
    rows_.reserve(out_bytes);
    staged_z_.reserve(out_bytes);
    auto* index = staged_rows_.as<std::int32_t>();
    for (std::size_t r = 0; r < rows.size(); ++r) index[r] = static_cast<std::int32_t>(rows[r]);  // < n_templates
    AS_CUDA_TRY(
        cudaMemcpyAsync(row_index_.as<std::int32_t>(), index, rows_bytes, cudaMemcpyHostToDevice, stream_.get()));
    kernels::launch_spiir_gather_rows<Real>(z_.as<Real>(), n, row_index_.as<std::int32_t>(), rows.size(),
                                            rows_.as<Real>(), stream_.get());
    AS_CUDA_TRY(
        cudaMemcpyAsync(staged_z_.as<Real>(), rows_.as<Real>(), out_bytes, cudaMemcpyDeviceToHost, stream_.get()));
    stream_.synchronize();
    to_complex(staged_z_.as<Real>(), n_out, out);
  }

  /// Into a CUDA history on this device straight from the SNRs on the device (nothing crosses the
  /// bus; converted to the ring's precision there as the host append would); any other history
  /// through the default (the rows down).
  void write_history(SnrHistory& history, std::size_t n) override {
    auto* ring = dynamic_cast<SnrHistoryCuda*>(&history);
    if (ring == nullptr || ring->device() != device_.index) {
      SpiirBackend::write_history(history, n);
      return;
    }
    const cuda::DeviceScope scope(device_.index);
    const Precision mine = sizeof(Real) == sizeof(float) ? Precision::fp32 : Precision::fp64;
    ring->append_device(z_.as<Real>(), mine, n, stream_.get());
  }

 private:
  /// The chunk up and through the filters: its SNRs in z_, the states and history carried on.
  void filter_on_device(std::span<const double> x) {
    const std::size_t n = x.size();
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
  }

  /// Interleaved (re, im) pairs of Real, staged, to complex<double>.
  static void to_complex(const Real* from, std::size_t count, std::span<std::complex<double>> to) {
    if constexpr (sizeof(Real) == sizeof(double)) {
      std::memcpy(static_cast<void*>(to.data()), from, 2 * count * sizeof(Real));  // double2 is complex<double>
    } else {
      for (std::size_t i = 0; i < count; ++i)
        to[i] = {static_cast<double>(from[2 * i]), static_cast<double>(from[2 * i + 1])};
    }
  }

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
  /// aligned loads) and the SNRs on the device, the input's staging buffer on the host (the
  /// outputs' grow where they are used: the SNRs' only where they come down). Checked against the
  /// budget before anything grows.
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
  }

  const cuda::DeviceChoice device_;  ///< first: chosen and made current before any CUDA handle
  std::size_t n_templates_, width_, max_delay_;
  int max_filters_ = 0;
  std::size_t fixed_bytes_ = 0;
  cuda::Stream stream_;
  cuda::DeviceMemory a_re_, a_im_, b_re_, b_im_, delay_, n_filters_, y_re_, y_im_, history_, ext_, shifted_, z_;
  SampleMaxDownload<Real> sample_max_;  ///< filter_max's per-sample |z|², template and z
  cuda::DeviceMemory row_index_;        ///< snr_rows' templates
  cuda::DeviceMemory rows_;             ///< snr_rows' SNRs, packed
  cuda::PinnedMemory staged_x_, staged_z_, staged_rows_;
};

}  // namespace

DeviceSnrs filter_on_device(SpiirBackend& backend, std::span<const double> x) {
  if (auto* b = dynamic_cast<SpiirBackendCuda<float>*>(&backend)) return b->filter_kept_on_device(x);
  if (auto* b = dynamic_cast<SpiirBackendCuda<double>*>(&backend)) return b->filter_kept_on_device(x);
  throw UsageError("filter_on_device needs a CUDA backend");
}

std::unique_ptr<SpiirBackend> make_spiir_backend_cuda(const RateBank& bank, Precision precision,
                                                      const BackendOptions& options) {
  if (precision == Precision::fp32) return std::make_unique<SpiirBackendCuda<float>>(bank, options);
  return std::make_unique<SpiirBackendCuda<double>>(bank, options);
}

}  // namespace astrosweep::spiir
