// The CUDA sky search, host side: the pixel tables go up once per search (load), a bank's χ²
// tables once per bank (load_chisq, kept while the searches' key is theirs); per batch the
// windows' samples go up from the pinned buffer the caller wrote them into (host_samples), the
// tasks' window offsets, references, first pixels and tiles through one pinned staging buffer,
// and the per-task picks come down through another. Device and pinned
// buffers grow, never shrink. One stream: a batch's copies, kernel and copies back depend on each
// other in that order, and the staging buffers are free again once search() returns.

#include "coherent_sky_cuda.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "coherent_history_launch.hpp"
#include "coherent_sky_launch.hpp"
#include "coherent_sky_tile.hpp"
#include "core/error.hpp"
#include "cuda_device.hpp"
#include "cuda_memory.hpp"
#include "snr_history_device.hpp"

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

// Host bytes laid out for one batch's uploads, 16-byte aligned: parts already in pinned memory
// (the samples, written there by the caller through host_samples) go up as they are, the rest
// through the pinned staging buffer in one copy.
class Staging {
 public:
  /// A part the DMA reads where it is; every such part comes before the staged ones.
  template <class T>
  std::size_t add_pinned(std::span<const T> from) {
    AS_ASSERT(staged_from_ == no_staged);
    return add(from, true);
  }
  template <class T>
  std::size_t add(std::span<const T> from, bool pinned = false) {
    const std::size_t at = (bytes_ + 15) / 16 * 16;
    if (!pinned && staged_from_ == no_staged) staged_from_ = at;
    parts_.push_back({at, from.data(), from.size_bytes(), pinned});
    bytes_ = at + from.size_bytes();
    return at;
  }
  // Copies the staged parts into `pinned` (from its start: the pinned parts take none of it) and
  // sends every part to its place in `device` on `stream`: the pinned parts one copy each, the
  // staged ones in one.
  void send(cuda::PinnedMemory& pinned, cuda::DeviceMemory& device, const cuda::Stream& stream) {
    const std::size_t base = staged_from_ == no_staged ? bytes_ : staged_from_;
    pinned.reserve(std::max<std::size_t>(bytes_ - base, 1));
    device.reserve(std::max<std::size_t>(bytes_, 1));
    for (const Part& p : parts_)
      if (p.bytes > 0 && p.pinned)
        AS_CUDA_TRY(
            cudaMemcpyAsync(device.as<unsigned char>() + p.at, p.from, p.bytes, cudaMemcpyHostToDevice, stream.get()));
      else if (p.bytes > 0)
        std::memcpy(pinned.as<unsigned char>() + (p.at - base), p.from, p.bytes);
    if (bytes_ > base)
      AS_CUDA_TRY(cudaMemcpyAsync(device.as<unsigned char>() + base, pinned.as<void>(), bytes_ - base,
                                  cudaMemcpyHostToDevice, stream.get()));
  }

 private:
  static constexpr std::size_t no_staged = std::numeric_limits<std::size_t>::max();
  struct Part {
    std::size_t at;
    const void* from;
    std::size_t bytes;
    bool pinned;
  };
  std::vector<Part> parts_;
  std::size_t bytes_ = 0;
  std::size_t staged_from_ = no_staged;
};

class SkySearchCuda final : public SkySearchEngine {
 public:
  explicit SkySearchCuda(const BackendOptions& options) : device_(cuda::choose_device(options)) {}

  void load(const SkySearchTables<float>& tables) override { load_tables(tables); }
  void load(const SkySearchTables<double>& tables) override { load_tables(tables); }
  void search(const SkySearchBatch<float>& batch, std::span<SkyPick> out) override { run(batch, out); }
  void search(const SkySearchBatch<double>& batch, std::span<SkyPick> out) override { run(batch, out); }

  [[nodiscard]] std::size_t max_batch(std::size_t bytes_per_task) const override {
    // The samples at most bytes_per_task (windows shared between tasks take less), the window
    // offsets, reference and first pixel, the tiles' places (a task alone in its group takes a
    // whole tile) and the picks.
    const std::size_t per_task = bytes_per_task + static_cast<std::size_t>(n_det_) * sizeof(std::int64_t) +
                                 (2 + sky_tile::tile_tasks + 1) * sizeof(std::int32_t) + 2 * sizeof(double);
    const std::size_t held = table_bytes_ + chisq_bytes_;
    const std::size_t budget = device_.memory_budget > held ? device_.memory_budget - held : 0;
    const std::size_t n = std::min(budget, batch_bytes_cap) / std::max<std::size_t>(1, per_task);
    return std::clamp<std::size_t>(n, 1, std::numeric_limits<std::int32_t>::max());
  }
  [[nodiscard]] double kernel_ms() const override { return kernel_ms_; }
  std::span<std::byte> host_samples(std::size_t bytes) override {
    if (bytes > samples_pinned_.bytes()) {
      const cuda::DeviceScope scope(device_.index);
      samples_pinned_.reserve(bytes + bytes / 2);  // headroom: a chunk's batches vary in size
    }
    return {samples_pinned_.as<std::byte>(), bytes};
  }

  [[nodiscard]] bool reads_histories(std::span<const SnrHistory* const> histories) const override {
    if (histories.empty()) return false;
    for (const SnrHistory* h : histories) {
      const auto* ring = dynamic_cast<const SnrHistoryCuda*>(h);
      if (ring == nullptr || ring->device() != device_.index || h->length() != histories[0]->length() ||
          h->n_templates() != histories[0]->n_templates() || h->precision() != histories[0]->precision())
        return false;
    }
    return true;
  }

  // The bank's tables, kept until the next load: a search refers to their rows by template.
  void load_chisq(const SkyChisqTables& t) override {
    const SkyChisqKey& key = t.key;
    AS_EXPECTS(key.length % 2 == 1 && t.r.size() == key.n_templates * key.n_det * key.length * 2 &&
                   t.norms.size() == key.n_templates * key.n_det && key.n_det == static_cast<std::size_t>(n_det_),
               UsageError, "the χ² tables do not fit their templates, detectors and lags");
    AS_EXPECTS(table_bytes_ + t.r.size_bytes() + t.norms.size_bytes() <= device_.memory_budget, RuntimeError,
               "the GPU memory budget of " + std::to_string(device_.memory_budget >> 20) +
                   " MiB cannot hold the sky search's tables and the bank's χ² tables (" +
                   std::to_string((t.r.size_bytes() + t.norms.size_bytes()) >> 20) + " MiB)",
               "run fewer ranks per GPU, or use --backend cpu");
    const cuda::DeviceScope scope(device_.index);
    chisq_key_ = {};  // none held should an upload fail
    upload(chisq_r_, t.r, stream_);
    upload(chisq_norms_, t.norms, stream_);
    stream_.synchronize();  // the caller's tables may go once this returns
    chisq_bytes_ = t.r.size_bytes() + t.norms.size_bytes();
    chisq_key_ = key;
  }
  [[nodiscard]] SkyChisqKey chisq_key() const override { return chisq_key_; }

  void search_histories(std::span<const SnrHistory* const> histories, const SkyHistoryBatch& batch,
                        const SkyHistoryOut& out) override {
    AS_EXPECTS(reads_histories(histories) && histories.size() == static_cast<std::size_t>(n_det_), UsageError,
               "the CUDA sky search reads only CUDA SNR histories on its device, one per detector");
    const Precision loaded = real_bytes_ == sizeof(float) ? Precision::fp32 : Precision::fp64;
    AS_EXPECTS(histories[0]->precision() == loaded && !subsample_, UsageError,
               "a history search needs rounded pixel tables of the histories' precision loaded");
    if (loaded == Precision::fp32)
      run_histories<float>(histories, batch, out);
    else
      run_histories<double>(histories, batch, out);
  }

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
    real_bytes_ = sizeof(Real);
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

  // A batch's tiles (sky_tile::plan_tiles) and tasks per tile.
  struct Tiles {
    std::vector<std::int32_t> tasks;
    int per_tile = 1;
    [[nodiscard]] std::size_t count() const { return tasks.size() / static_cast<std::size_t>(per_tile); }
  };

  // What both batch paths check of their tasks: each one's reference detector and first pixel, and
  // their count.
  void check_tasks(std::size_t n, std::span<const std::int32_t> ref, std::span<const std::int32_t> first,
                   int stride) const {
    for (std::size_t t = 0; t < n; ++t)
      AS_EXPECTS(ref[t] >= 0 && ref[t] < n_det_ && first[t] >= 0 && first[t] < stride, UsageError,
                 "a sky search task names a detector or first pixel that does not exist");
    AS_EXPECTS(n <= static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max()), UsageError,
               "a sky search batch holds more than 2^31 - 1 tasks");
  }

  // The tiles of n ≥ 1 tasks whose windows are window_length samples per detector, on the current
  // device.
  template <class Real>
  [[nodiscard]] Tiles plan(std::size_t n, std::span<const std::int32_t> ref, std::span<const std::int32_t> first,
                           int stride, std::int64_t window_length) const {
    Tiles tiles;
    tiles.per_tile = kernels::sky_tasks_per_tile<Real>(n_det_, static_cast<int>(window_length));
    AS_EXPECTS(tiles.per_tile > 0, UsageError,
               "a sky search window of " + std::to_string(window_length) +
                   " samples per detector does not fit the GPU's shared memory",
               "use a lower sample rate for the coherent stage, or --backend cpu");
    tiles.tasks = sky_tile::plan_tiles(ref.data(), first.data(), n, n_det_, stride, tiles.per_tile);
    AS_EXPECTS(tiles.count() <= static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max()), UsageError,
               "a sky search batch makes more than 2^31 - 1 tiles");
    return tiles;
  }

  // Where in down_ (and down_pinned_) a batch of n tasks' picks lie: pixels (int32) at 0, then ρ_coh²
  // and Σ|ζ|² (Real), 16-byte aligned; picks_bytes<Real>(n) in all.
  [[nodiscard]] static std::size_t coh_at(std::size_t n) { return (n * sizeof(std::int32_t) + 15) / 16 * 16; }
  template <class Real>
  [[nodiscard]] static std::size_t picks_bytes(std::size_t n) {
    return coh_at(n) + 2 * n * sizeof(Real);
  }

  // The sky search's launch of a batch of n tasks with tiles `tiles`: the tables loaded, the tasks'
  // references, first pixels and tiles at those offsets of up_, the picks into down_.
  template <class Real>
  [[nodiscard]] kernels::SkyLaunch<Real> sky_launch(std::size_t n, const Tiles& tiles, std::int64_t centre,
                                                    std::int64_t window_length, int stride, std::size_t ref_at,
                                                    std::size_t first_at, std::size_t tiles_at) const {
    const auto* up = up_.as<unsigned char>();
    kernels::SkyLaunch<Real> k;
    k.tables.u01 = u01_.as<Real>();
    k.tables.reads = reads_.as<std::int32_t>();
    k.tables.weights = subsample_ ? weights_.as<Real>() : nullptr;
    k.tables.taps = taps_;
    k.tables.n_pix = n_pix_;
    k.tables.centre = static_cast<int>(centre);
    k.n_det = n_det_;
    k.window_length = static_cast<int>(window_length);
    k.stride = stride;
    k.ref = reinterpret_cast<const std::int32_t*>(up + ref_at);
    k.first = reinterpret_cast<const std::int32_t*>(up + first_at);
    k.tiles = reinterpret_cast<const std::int32_t*>(up + tiles_at);
    k.n_tiles = tiles.count();
    k.per_tile = tiles.per_tile;
    k.resolution = statistic_resolution<Real>;
    k.pixel = down_.as<std::int32_t>();
    k.coh = reinterpret_cast<Real*>(down_.as<unsigned char>() + coh_at(n));
    k.total = k.coh + n;
    return k;
  }

  // `launch` (a batch's kernels on stream_) between the timing events, then the first `down_bytes`
  // of down_ into down_pinned_; returns once they are there.
  template <class Launch>
  void launch_and_download(std::size_t down_bytes, const Launch& launch) {
    start_.record(stream_);
    launch();
    stop_.record(stream_);
    AS_CUDA_TRY(
        cudaMemcpyAsync(down_pinned_.as<void>(), down_.as<void>(), down_bytes, cudaMemcpyDeviceToHost, stream_.get()));
    stream_.synchronize();
    kernel_ms_ += static_cast<double>(stop_.since(start_));
  }

  // The picks of n tasks from down_pinned_ (sky_launch's layout).
  template <class Real>
  void unpack_picks(std::size_t n, std::span<SkyPick> out) const {
    const auto* pixel = down_pinned_.as<std::int32_t>();
    const auto* coh = reinterpret_cast<const Real*>(down_pinned_.as<unsigned char>() + coh_at(n));
    const Real* total = coh + n;
    for (std::size_t t = 0; t < n; ++t) out[t] = {pixel[t], static_cast<double>(coh[t]), static_cast<double>(total[t])};
  }

  template <class Real>
  void run(const SkySearchBatch<Real>& b, std::span<SkyPick> out) {
    const std::size_t n = b.n_tasks, n_det = static_cast<std::size_t>(n_det_);
    AS_EXPECTS(out.size() == n && b.ref.size() == n && b.first.size() == n && b.window.size() == n * n_det &&
                   b.samples.size() % 2 == 0,
               UsageError, "the sky search's batch does not fit its tasks");
    // Every read inside its window: the window's centre and length cover the tables' reach, and
    // every window inside the samples.
    AS_EXPECTS(b.centre + read_min_ >= 0 && b.centre + read_max_ < static_cast<std::int64_t>(b.window_length) &&
                   b.window_length <= static_cast<std::size_t>(std::numeric_limits<int>::max() / 4) && b.stride >= 1 &&
                   b.stride <= n_pix_,
               UsageError, "the sky search's windows do not cover the pixels' reads");
    const auto stored = static_cast<std::int64_t>(b.samples.size() / 2);
    for (const std::int64_t w : b.window)
      AS_EXPECTS(w >= 0 && w + static_cast<std::int64_t>(b.window_length) <= stored, UsageError,
                 "a sky search window lies outside the batch's samples");
    check_tasks(n, b.ref, b.first, b.stride);
    if (n == 0) return;
    const cuda::DeviceScope scope(device_.index);
    const auto window_length = static_cast<std::int64_t>(b.window_length);
    const Tiles tiles = plan<Real>(n, b.ref, b.first, b.stride, window_length);
    // The samples go up from where they are when the caller wrote them into host_samples (pinned),
    // else through the staging buffer like the rest.
    const auto address = [](const void* p) { return reinterpret_cast<std::uintptr_t>(p); };
    const bool samples_pinned = !b.samples.empty() &&
                                address(b.samples.data()) >= address(samples_pinned_.as<void>()) &&
                                address(b.samples.data()) + b.samples.size_bytes() <=
                                    address(samples_pinned_.as<void>()) + samples_pinned_.bytes();
    Staging staging;
    const std::size_t samples_at = samples_pinned ? staging.add_pinned(b.samples) : staging.add(b.samples);
    const std::size_t window_at = staging.add(b.window);
    const std::size_t ref_at = staging.add(b.ref);
    const std::size_t first_at = staging.add(b.first);
    const std::size_t tiles_at = staging.add(std::span<const std::int32_t>(tiles.tasks));
    staging.send(up_pinned_, up_, stream_);
    const std::size_t down_bytes = picks_bytes<Real>(n);
    down_.reserve(down_bytes);
    down_pinned_.reserve(down_bytes);
    kernels::SkyLaunch<Real> k =
        sky_launch<Real>(n, tiles, b.centre, window_length, b.stride, ref_at, first_at, tiles_at);
    const auto* up = up_.as<unsigned char>();
    k.samples = reinterpret_cast<const Real*>(up + samples_at);
    k.window = reinterpret_cast<const std::int64_t*>(up + window_at);
    launch_and_download(down_bytes, [&] { kernels::launch_sky_search(k, stream_.get()); });
    unpack_picks<Real>(n, out);
  }

  // A batch over SNR histories (search_histories): the tasks' descriptors up, the sky search
  // staging its windows from the rings, the χ² kernel at the picked pixels, and picks, ζ and χ²
  // down in one copy.
  template <class Real>
  void run_histories(std::span<const SnrHistory* const> histories, const SkyHistoryBatch& b, const SkyHistoryOut& out) {
    const std::size_t n = b.n_tasks, n_det = static_cast<std::size_t>(n_det_);
    AS_EXPECTS(out.picks.size() == n && out.zeta.size() == n * n_det && out.chisq.size() == n * n_det &&
                   b.tmpl.size() == n && b.ref.size() == n && b.first.size() == n && b.base.size() == n * n_det,
               UsageError, "the history search's batch does not fit its tasks");
    const std::int64_t window_length = 2 * b.margin + 1;
    AS_EXPECTS(b.margin + read_min_ >= 0 && b.margin + read_max_ < window_length &&
                   window_length <= std::numeric_limits<int>::max() / 4 && b.stride >= 1 && b.stride <= n_pix_,
               UsageError, "the history search's margin does not cover the pixels' reads");
    check_tasks(n, b.ref, b.first, b.stride);
    if (n == 0) return;
    const std::size_t n_templates = histories[0]->n_templates();
    for (const std::int32_t j : b.tmpl)
      AS_EXPECTS(j >= 0 && static_cast<std::size_t>(j) < n_templates, UsageError,
                 "a history search task names a template that does not exist");
    AS_EXPECTS(chisq_key_.n_templates == n_templates && chisq_key_.n_det == n_det, UsageError,
               "the χ² tables held are not those of the SNR histories' bank (load_chisq)");
    const auto chisq_half = static_cast<std::int64_t>(chisq_key_.length / 2);
    for (const std::int64_t base : b.base)
      AS_EXPECTS(base - b.margin - chisq_half >= 0, UsageError, "a history search task reads before sample 0");
    const cuda::DeviceScope scope(device_.index);
    const Tiles tiles = plan<Real>(n, b.ref, b.first, b.stride, window_length);
    window_start_.resize(n * n_det);  // each window's first sample, absolute
    for (std::size_t i = 0; i < n * n_det; ++i) window_start_[i] = b.base[i] - b.margin;
    Staging staging;
    const std::size_t window_at = staging.add(std::span<const std::int64_t>(window_start_));
    const std::size_t base_at = staging.add(b.base);
    const std::size_t tmpl_at = staging.add(b.tmpl);
    const std::size_t ref_at = staging.add(b.ref);
    const std::size_t first_at = staging.add(b.first);
    const std::size_t tiles_at = staging.add(std::span<const std::int32_t>(tiles.tasks));
    staging.send(up_pinned_, up_, stream_);
    // Down: the picks (sky_launch's layout), then ζ (Real pairs) and χ² (double), each 16-byte
    // aligned.
    const auto align = [](std::size_t x) { return (x + 15) / 16 * 16; };
    const std::size_t zeta_at = align(picks_bytes<Real>(n));
    const std::size_t chisq_at = align(zeta_at + 2 * n * n_det * sizeof(Real));
    const std::size_t down_bytes = chisq_at + n * n_det * sizeof(double);
    down_.reserve(down_bytes);
    down_pinned_.reserve(down_bytes);
    auto* down = down_.as<unsigned char>();
    kernels::SkyLaunch<Real> k =
        sky_launch<Real>(n, tiles, b.margin, window_length, b.stride, ref_at, first_at, tiles_at);
    const auto* up = up_.as<unsigned char>();
    k.window = reinterpret_cast<const std::int64_t*>(up + window_at);
    for (std::size_t d = 0; d < n_det; ++d)
      k.ring[d] = static_cast<const Real*>(dynamic_cast<const SnrHistoryCuda&>(*histories[d]).ring());
    k.ring_length = histories[0]->length();
    k.ring_row = reinterpret_cast<const std::int32_t*>(up + tmpl_at);
    kernels::HistoryChisqLaunch<Real> c;
    for (std::size_t d = 0; d < n_det; ++d) c.ring[d] = k.ring[d];
    c.ring_length = k.ring_length;
    c.n_det = n_det_;
    c.n_pix = n_pix_;
    c.reads = reads_.as<std::int32_t>();
    c.n_tasks = n;
    c.tmpl = k.ring_row;
    c.ref = k.ref;
    c.base = reinterpret_cast<const std::int64_t*>(up + base_at);
    c.pixel = k.pixel;
    c.r = chisq_r_.as<double>();
    c.norms = chisq_norms_.as<double>();
    c.half = static_cast<int>(chisq_half);
    c.zeta = reinterpret_cast<Real*>(down + zeta_at);
    c.chisq = reinterpret_cast<double*>(down + chisq_at);
    launch_and_download(down_bytes, [&] {
      kernels::launch_sky_search(k, stream_.get());
      kernels::launch_history_chisq(c, stream_.get());
    });
    unpack_picks<Real>(n, out.picks);
    const auto* staged = down_pinned_.as<unsigned char>();
    const auto* zeta = reinterpret_cast<const Real*>(staged + zeta_at);
    const auto* chisq = reinterpret_cast<const double*>(staged + chisq_at);
    for (std::size_t i = 0; i < n * n_det; ++i) {
      out.zeta[i] = {static_cast<double>(zeta[2 * i]), static_cast<double>(zeta[2 * i + 1])};
      out.chisq[i] = chisq[i];
    }
  }

  cuda::DeviceChoice device_;
  cuda::Stream stream_;
  cuda::Event start_, stop_;
  cuda::DeviceMemory u01_, reads_, weights_, up_, down_, chisq_r_, chisq_norms_;
  cuda::PinnedMemory up_pinned_, down_pinned_, samples_pinned_;
  int n_det_ = 0, n_pix_ = 0, taps_ = 1;
  bool subsample_ = false;
  std::int64_t read_min_ = 0, read_max_ = 0;
  std::size_t table_bytes_ = 0;
  std::size_t real_bytes_ = 0;              ///< the loaded tables' precision
  SkyChisqKey chisq_key_;                   ///< the bank's χ² tables held in chisq_r_, chisq_norms_
  std::size_t chisq_bytes_ = 0;             ///< their size on the device
  std::vector<std::int64_t> window_start_;  ///< a history batch's window starts, kept from batch to batch
  double kernel_ms_ = 0;
};

}  // namespace

std::unique_ptr<SkySearchEngine> make_sky_search_cuda(const BackendOptions& options) {
  return std::make_unique<SkySearchCuda>(options);
}

}  // namespace astrosweep::spiir
