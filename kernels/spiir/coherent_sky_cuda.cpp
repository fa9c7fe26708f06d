// The CUDA sky search, host side: the pixel tables go up once per search (load), each batch's SNR
// windows go up and the per-task picks come down (search). Device buffers grow, never shrink.
// One stream: a batch's upload, kernel and download depend on each other in that order.

#include "coherent_sky_cuda.hpp"

#include <algorithm>
#include <limits>
#include <vector>

#include "coherent_sky_launch.hpp"
#include "core/error.hpp"
#include "cuda_device.hpp"
#include "cuda_memory.hpp"

namespace astrosweep::spiir {
namespace {

// Host windows per batch at most: the batch is built on the host before it goes up.
constexpr std::size_t batch_bytes_cap = std::size_t{512} << 20;

template <class T>
void upload(cuda::DeviceMemory& to, std::span<const T> from, const cuda::Stream& stream) {
  to.reserve(std::max<std::size_t>(1, from.size()) * sizeof(T));
  if (!from.empty())
    AS_CUDA_TRY(cudaMemcpyAsync(to.as<T>(), from.data(), from.size_bytes(), cudaMemcpyHostToDevice, stream.get()));
}

class SkySearchCuda final : public SkySearchEngine {
 public:
  explicit SkySearchCuda(const BackendOptions& options) : device_(cuda::choose_device(options)) {}

  void load(const SkySearchTables<float>& tables) override { load_tables(tables); }
  void load(const SkySearchTables<double>& tables) override { load_tables(tables); }
  void search(const SkySearchBatch<float>& batch, std::span<SkyPick> out) override { run(batch, out); }
  void search(const SkySearchBatch<double>& batch, std::span<SkyPick> out) override { run(batch, out); }

  [[nodiscard]] std::size_t max_batch(std::size_t bytes_per_task) const override {
    const std::size_t per_task = bytes_per_task + 2 * sizeof(std::int32_t) + sizeof(std::int32_t) + 2 * sizeof(double);
    const std::size_t budget = device_.memory_budget > table_bytes_ ? device_.memory_budget - table_bytes_ : 0;
    const std::size_t n = std::min(budget, batch_bytes_cap) / std::max<std::size_t>(1, per_task);
    return std::clamp<std::size_t>(n, 1, std::numeric_limits<std::int32_t>::max());
  }
  [[nodiscard]] double kernel_ms() const override { return kernel_ms_; }

 private:
  template <class Real>
  void load_tables(const SkySearchTables<Real>& t) {
    const cuda::DeviceScope scope(device_.index);
    const bool subsample = !t.weights.empty();
    const std::size_t n_reads = t.n_det * t.n_pix * t.n_det;
    AS_EXPECTS(t.u01.size() == t.n_pix * 2 * t.n_det && t.reads.size() == n_reads, UsageError,
               "the sky search's tables do not fit its detectors and pixels");
    taps_ = subsample ? static_cast<int>(t.weights.size() / n_reads) : 1;
    AS_EXPECTS(!subsample || t.weights.size() == n_reads * static_cast<std::size_t>(taps_), UsageError,
               "the sky search's interpolation weights do not fit its reads");
    const auto [lo, hi] = std::minmax_element(t.reads.begin(), t.reads.end());
    read_min_ = *lo;
    read_max_ = *hi + taps_ - 1;  // the last sample a read reaches
    n_det_ = static_cast<int>(t.n_det);
    n_pix_ = static_cast<int>(t.n_pix);
    subsample_ = subsample;
    table_bytes_ = t.u01.size_bytes() + t.reads.size_bytes() + t.weights.size_bytes();
    AS_EXPECTS(table_bytes_ <= device_.memory_budget, RuntimeError,
               "the GPU memory budget of " + std::to_string(device_.memory_budget >> 20) +
                   " MiB cannot hold the sky search's pixel tables",
               "run fewer ranks per GPU, or use --backend cpu");
    upload(u01_, t.u01, stream_);
    upload(reads_, t.reads, stream_);
    if (subsample) upload(weights_, t.weights, stream_);
    stream_.synchronize();  // the caller's tables may go once load returns
  }

  template <class Real>
  void run(const SkySearchBatch<Real>& b, std::span<SkyPick> out) {
    const std::size_t n = b.n_tasks;
    AS_EXPECTS(out.size() == n && b.ref.size() == n && b.first.size() == n &&
                   b.windows.size() == n * static_cast<std::size_t>(n_det_) * b.window_length * 2,
               UsageError, "the sky search's batch does not fit its tasks");
    // Every read inside its window: the window's centre and length cover the tables' reach.
    AS_EXPECTS(b.centre + read_min_ >= 0 && b.centre + read_max_ < static_cast<std::int64_t>(b.window_length) &&
                   b.stride >= 1 && b.stride <= n_pix_,
               UsageError, "the sky search's windows do not cover the pixels' reads");
    AS_EXPECTS(n <= static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max()), UsageError,
               "a sky search batch holds more than 2^31 - 1 tasks");
    if (n == 0) return;
    const cuda::DeviceScope scope(device_.index);
    upload(windows_, b.windows, stream_);
    upload(ref_, b.ref, stream_);
    upload(first_, b.first, stream_);
    pixel_.reserve(n * sizeof(std::int32_t));
    coh_.reserve(n * sizeof(Real));
    total_.reserve(n * sizeof(Real));
    kernels::SkyLaunch<Real> k;
    k.u01 = u01_.as<Real>();
    k.reads = reads_.as<std::int32_t>();
    k.weights = subsample_ ? weights_.as<Real>() : nullptr;
    k.taps = taps_;
    k.n_det = n_det_;
    k.n_pix = n_pix_;
    k.windows = windows_.as<Real>();
    k.window_length = b.window_length;
    k.centre = static_cast<int>(b.centre);
    k.stride = b.stride;
    k.ref = ref_.as<std::int32_t>();
    k.first = first_.as<std::int32_t>();
    k.n_tasks = n;
    k.resolution = statistic_resolution<Real>;
    k.pixel = pixel_.as<std::int32_t>();
    k.coh = coh_.as<Real>();
    k.total = total_.as<Real>();
    start_.record(stream_);
    kernels::launch_sky_search(k, stream_.get());
    stop_.record(stream_);
    std::vector<std::int32_t> pixel(n);
    std::vector<Real> coh(n), total(n);
    AS_CUDA_TRY(
        cudaMemcpyAsync(pixel.data(), k.pixel, n * sizeof(std::int32_t), cudaMemcpyDeviceToHost, stream_.get()));
    AS_CUDA_TRY(cudaMemcpyAsync(coh.data(), k.coh, n * sizeof(Real), cudaMemcpyDeviceToHost, stream_.get()));
    AS_CUDA_TRY(cudaMemcpyAsync(total.data(), k.total, n * sizeof(Real), cudaMemcpyDeviceToHost, stream_.get()));
    stream_.synchronize();
    kernel_ms_ += static_cast<double>(stop_.since(start_));
    for (std::size_t t = 0; t < n; ++t) out[t] = {pixel[t], static_cast<double>(coh[t]), static_cast<double>(total[t])};
  }

  cuda::DeviceChoice device_;
  cuda::Stream stream_;
  cuda::Event start_, stop_;
  cuda::DeviceMemory u01_, reads_, weights_, windows_, ref_, first_, pixel_, coh_, total_;
  int n_det_ = 0, n_pix_ = 0, taps_ = 1;
  bool subsample_ = false;
  std::int64_t read_min_ = 0, read_max_ = 0;
  std::size_t table_bytes_ = 0;
  double kernel_ms_ = 0;
};

}  // namespace

std::unique_ptr<SkySearchEngine> make_sky_search_cuda(const BackendOptions& options) {
  return std::make_unique<SkySearchCuda>(options);
}

}  // namespace astrosweep::spiir
