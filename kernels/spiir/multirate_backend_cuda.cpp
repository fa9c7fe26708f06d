// The multi-rate CUDA backend: host side, twin of MultirateStream (jobs/spiir/multirate_filter.cpp).
// Per chunk: the host decimates the strain (a chunk's samples: cheap, and the same code as the
// host stream's); every level's CUDA backend filters its input on its own stream, the levels
// running side by side, their SNRs left on the device (spiir_backend_cuda_device.hpp); on this
// backend's stream, from the lowest level up, each level's SNR plus the interpolation of the sum
// below it (spiir_multirate.cu) becomes that level's sum, in double as on the host; the top level's
// sum is what filter() brings down, what filter_max's per-sample maximum (spiir_sample_max.cu)
// reads, what snr_rows gathers and what append_snr writes into a CUDA SNR history on this device.
//
// Every call ends with this stream synchronised, after it waited for every level's work: so the
// levels' buffers and the histories are free when the next chunk starts (filter_on_device's
// contract). Device buffers grow with a longer chunk, never shrink.

#include "multirate_backend_cuda.hpp"

#include <algorithm>
#include <cstring>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "cuda_device.hpp"
#include "cuda_memory.hpp"
#include "snr_history_device.hpp"
#include "spiir_backend_cuda.hpp"
#include "spiir_backend_cuda_device.hpp"
#include "spiir_multirate_launch.hpp"
#include "spiir_sample_max_download.hpp"
#include "spiir_sample_max_launch.hpp"

namespace astrosweep::spiir {

namespace {

template <class Real>
class MultirateBackendCuda final : public MultirateBackend {
 public:
  MultirateBackendCuda(const SpiirBank& bank, Precision precision, const BackendOptions& options)
      : device_(cuda::choose_device(options)),
        layout_(bank),
        decimator_(layout_),
        levels_(layout_.levels.size()),
        filtered_(layout_.levels.size()),
        sums_(layout_.levels.size()),
        history_(layout_.levels.size()),
        next_history_(layout_.levels.size()) {
    for (std::size_t level = 0; level < levels_.size(); ++level)
      if (const auto& r = layout_.levels[level].bank) levels_[level] = make_spiir_backend_cuda(*r, precision, options);
    const std::size_t history_bytes = 2 * layout_.n_templates * (layout_.half_length + 1) * sizeof(double);
    for (std::size_t level = 0; level + 1 < levels_.size(); ++level) {
      history_[level].reserve(std::max<std::size_t>(1, history_bytes));
      next_history_[level].reserve(std::max<std::size_t>(1, history_bytes));
    }
    taps_.reserve(layout_.taps.size() * sizeof(double));
    AS_CUDA_TRY(cudaMemcpyAsync(taps_.as<double>(), layout_.taps.data(), layout_.taps.size() * sizeof(double),
                                cudaMemcpyHostToDevice, stream_.get()));
    stream_.synchronize();  // the layout's taps stay, but the copy is done before anything else
    reset();
  }

  [[nodiscard]] std::string describe() const override {
    std::string level;
    for (const auto& b : levels_)
      if (b) {
        level = b->describe();
        break;
      }
    return level + ", " + std::to_string(layout_.n_rates) + " rates (latency " + std::to_string(layout_.latency) +
           " samples), levels summed on the device";
  }
  [[nodiscard]] std::size_t n_templates() const override { return layout_.n_templates; }
  [[nodiscard]] std::size_t latency() const override { return layout_.latency; }
  [[nodiscard]] std::size_t chunk_multiple() const override { return layout_.chunk_multiple(); }

  void reset() override {
    const cuda::DeviceScope scope(device_.index);
    for (auto& b : levels_)
      if (b) b->reset();
    decimator_.reset();
    for (std::size_t level = 0; level + 1 < levels_.size(); ++level)
      if (history_[level].bytes() > 0)
        AS_CUDA_TRY(cudaMemsetAsync(history_[level].as<double>(), 0, history_[level].bytes(), stream_.get()));
    stream_.synchronize();
  }

 protected:
  void run(std::span<const double> x, std::span<std::complex<double>> z) override {
    const std::size_t n = x.size();
    if (!sum_on_device(x)) return;
    const std::size_t bytes = 2 * layout_.n_templates * n * sizeof(double);
    staged_.reserve(bytes);
    AS_CUDA_TRY(cudaMemcpyAsync(staged_.as<char>(), sums_[0].as<char>(), bytes, cudaMemcpyDeviceToHost, stream_.get()));
    stream_.synchronize();
    std::memcpy(static_cast<void*>(z.data()), staged_.as<char>(), bytes);  // double pairs are complex<double>
  }

  void run_max(std::span<const double> x, std::span<SampleMax> best) override {
    if (!sum_on_device(x)) {
      std::fill(best.begin(), best.end(), SampleMax{});  // no template to compare: the plain loop's answer
      return;
    }
    sample_max_.run(sums_[0].as<double>(), layout_.n_templates, best, stream_);
  }

  void copy_rows(std::span<const std::size_t> rows, std::size_t n, std::span<std::complex<double>> out) override {
    if (rows.empty() || n == 0) return;
    const cuda::DeviceScope scope(device_.index);
    const std::size_t rows_bytes = rows.size() * sizeof(std::int32_t);
    const std::size_t out_bytes = 2 * rows.size() * n * sizeof(double);
    check_budget(rows_.bytes() < out_bytes ? out_bytes - rows_.bytes() : 0,
                 std::to_string(rows.size()) + " SNR rows of " + std::to_string(n) + " samples",
                 "ask for fewer rows at a time, use shorter chunks or run fewer ranks per GPU");
    staged_rows_.reserve(rows_bytes);
    row_index_.reserve(rows_bytes);
    rows_.reserve(out_bytes);
    staged_.reserve(out_bytes);
    auto* index = staged_rows_.as<std::int32_t>();
    for (std::size_t r = 0; r < rows.size(); ++r) index[r] = static_cast<std::int32_t>(rows[r]);  // < n_templates
    AS_CUDA_TRY(
        cudaMemcpyAsync(row_index_.as<std::int32_t>(), index, rows_bytes, cudaMemcpyHostToDevice, stream_.get()));
    kernels::launch_spiir_gather_rows<double>(sums_[0].as<double>(), n, row_index_.as<std::int32_t>(), rows.size(),
                                              rows_.as<double>(), stream_.get());
    AS_CUDA_TRY(
        cudaMemcpyAsync(staged_.as<char>(), rows_.as<char>(), out_bytes, cudaMemcpyDeviceToHost, stream_.get()));
    stream_.synchronize();
    std::memcpy(static_cast<void*>(out.data()), staged_.as<char>(), out_bytes);
  }

  /// Into a CUDA history on this device straight from the top level's sum (double pairs, rounded
  /// to the ring's precision by the write kernel as the host append rounds them), after the sum on
  /// this stream: nothing crosses the bus. Any other history through the default (the rows down).
  void write_history(SnrHistory& history, std::size_t n) override {
    auto* ring = dynamic_cast<SnrHistoryCuda*>(&history);
    if (ring == nullptr || ring->device() != device_.index) {
      SpiirBackend::write_history(history, n);
      return;
    }
    const cuda::DeviceScope scope(device_.index);
    ring->append_device(sums_[0].as<double>(), Precision::fp64, n, stream_.get());
  }

 private:
  /// The chunk decimated, filtered level by level and summed on the device into sums_[0]; false
  /// when there is nothing to sum (no samples or no templates; the decimator still moves on).
  bool sum_on_device(std::span<const double> x) {
    AS_EXPECTS(x.size() % chunk_multiple() == 0, UsageError,
               "a multi-rate chunk must be a multiple of " + std::to_string(chunk_multiple()) + " samples");
    const std::size_t n = x.size(), nt = layout_.n_templates, k = layout_.half_length;
    const std::size_t seen = decimator_.seen();
    decimator_.next(x);
    if (n == 0 || nt == 0) return false;
    const cuda::DeviceScope scope(device_.index);
    reserve(n);
    // Every level's filters first, on the levels' own streams, so that they run side by side.
    std::vector<const void*> level_z(levels_.size(), nullptr);
    for (std::size_t level = 0; level < levels_.size(); ++level) {
      if (!levels_[level]) continue;
      const DeviceSnrs snrs = filter_on_device(*levels_[level], decimator_.inputs()[level]);
      level_z[level] = snrs.z;
      AS_CUDA_TRY(cudaEventRecord(filtered_[level].get(), snrs.stream));
    }
    // From the lowest level up on this stream: each level's SNR plus the interpolation from below.
    for (std::size_t level = levels_.size(); level-- > 0;) {
      if (levels_[level]) AS_CUDA_TRY(cudaStreamWaitEvent(stream_.get(), filtered_[level].get(), 0));
      const std::size_t n_level = n >> level;
      const bool lowest = level + 1 == levels_.size();
      const double* below = lowest ? nullptr : sums_[level + 1].as<double>();
      const double* history = lowest ? nullptr : history_[level].as<double>();
      double* out = sums_[level].as<double>();
      const std::size_t seen_level = seen >> level, start = layout_.levels[level].output_start;
      if constexpr (sizeof(Real) == sizeof(float))
        kernels::launch_multirate_upsample_add<float>(static_cast<const float*>(level_z[level]), below, history,
                                                      taps_.as<double>(), k, nt, n_level, seen_level, start, out,
                                                      stream_.get());
      else
        kernels::launch_multirate_upsample_add<double>(static_cast<const double*>(level_z[level]), below, history,
                                                       taps_.as<double>(), k, nt, n_level, seen_level, start, out,
                                                       stream_.get());
      if (!lowest) {
        kernels::launch_multirate_keep_history(history, below, k, nt, n_level / 2, next_history_[level].as<double>(),
                                               stream_.get());
        std::swap(history_[level], next_history_[level]);
      }
    }
    return true;
  }

  /// Room for a chunk of n top-rate samples: every level's sum (double pairs), checked against
  /// the budget with the levels' own SNRs (Real pairs) before anything grows. The levels' backends
  /// check their own buffers; this check adds what the sums take on top of them.
  void reserve(std::size_t n) {
    std::size_t grow = 0;
    for (std::size_t level = 0; level < sums_.size(); ++level) {
      const std::size_t bytes = 2 * layout_.n_templates * (n >> level) * sizeof(double);
      if (bytes > sums_[level].bytes()) grow += bytes - sums_[level].bytes();
    }
    check_budget(grow,
                 "a " + std::to_string(n) + "-sample chunk of " + std::to_string(layout_.n_templates) +
                     " templates' summed levels",
                 "use shorter --chunk-seconds, run fewer ranks per GPU, or use --backend cpu");
    for (std::size_t level = 0; level < sums_.size(); ++level)
      sums_[level].reserve(2 * layout_.n_templates * (n >> level) * sizeof(double));
  }

  /// Throws when `grow` more bytes would take this backend's device memory (the sums, the
  /// histories, the maximum and rows, and the levels' SNRs: Real pairs as large as the sums' level
  /// for level) past the rank's budget.
  void check_budget(std::size_t grow, const std::string& what, const std::string& hint) const {
    if (grow == 0) return;
    std::size_t held = taps_.bytes() + sample_max_.device_bytes() + row_index_.bytes() + rows_.bytes();
    for (std::size_t level = 0; level < sums_.size(); ++level)
      held += with_level_snr(sums_[level].bytes()) + history_[level].bytes() + next_history_[level].bytes();
    const std::size_t need = held + with_level_snr(grow);
    AS_EXPECTS(need <= device_.memory_budget, RuntimeError,
               "the GPU memory budget of " + std::to_string(device_.memory_budget >> 20) + " MiB cannot hold " + what +
                   " (" + std::to_string(need >> 20) + " MiB)",
               hint);
  }

  /// Bytes of sums (double pairs) and of the levels' SNRs (Real pairs) of the same samples.
  static std::size_t with_level_snr(std::size_t sum_bytes) {
    return sum_bytes / sizeof(double) * (sizeof(double) + sizeof(Real));
  }

  const cuda::DeviceChoice device_;  ///< first: chosen and made current before any CUDA handle
  MultirateLayout layout_;
  MultirateDecimator decimator_;
  std::vector<std::unique_ptr<SpiirBackend>> levels_;  ///< per level; null: no filters at this rate
  cuda::Stream stream_;
  std::vector<cuda::Event> filtered_;     ///< per level: its chunk's SNRs are written
  std::vector<cuda::DeviceMemory> sums_;  ///< per level: its SNR plus the interpolated sum below (double pairs)
  /// Per level above the lowest: per template the last K + 1 samples of the sum below, and the
  /// next chunk's (written from the two, then swapped in).
  std::vector<cuda::DeviceMemory> history_, next_history_;
  cuda::DeviceMemory taps_;
  SampleMaxDownload<double> sample_max_;  ///< filter_max's per-sample z, |z|² and template
  cuda::DeviceMemory row_index_;          ///< snr_rows' templates
  cuda::DeviceMemory rows_;               ///< snr_rows' SNRs, packed
  cuda::PinnedMemory staged_, staged_rows_;
};

}  // namespace

std::unique_ptr<MultirateBackend> make_multirate_backend_cuda(const SpiirBank& bank, Precision precision,
                                                              const BackendOptions& options) {
  if (precision == Precision::fp32) return std::make_unique<MultirateBackendCuda<float>>(bank, precision, options);
  return std::make_unique<MultirateBackendCuda<double>>(bank, precision, options);
}

}  // namespace astrosweep::spiir
