// The CUDA period backend: host side. A work unit's computable objects go to the device in groups
// that fit the memory budget; each group's periodograms are computed in passes of whole chunks
// that alternate between two slots (stream, device buffers, pinned staging), so the device
// computes pass p while pass p-1's candidates and periodograms cross PCIe and the host turns them
// into peaks and sink writes. Objects on the fast method (lomb_scargle_fast_cuda.hpp) go the same
// way, a pass being one piece of the grid for a batch of objects.

#include <cuda_runtime_api.h>
#include <omp.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>

#include "core/error.hpp"
#include "cuda_device.hpp"
#include "cuda_memory.hpp"
#include "cufft_plan.hpp"
#include "fast_layout_cuda.hpp"
#include "kernel_timer.hpp"
#include "lomb_scargle.hpp"
#include "lomb_scargle_cuda.hpp"
#include "lomb_scargle_fast_cuda.hpp"
#include "peaks.hpp"
#include "peaks_cuda.hpp"
#include "period_backend_common.hpp"
#include "period_backend_cuda.hpp"

namespace astrosweep::period {

namespace {

constexpr std::size_t align_up(std::size_t n) { return (n + 255) / 256 * 256; }

/// Byte offsets of consecutive arrays in one allocation, each 256-byte aligned.
class Carve {
 public:
  template <class T>
  std::size_t add(std::size_t count) {
    const std::size_t at = bytes_;
    bytes_ = align_up(bytes_ + count * sizeof(T));
    return at;
  }
  [[nodiscard]] std::size_t bytes() const { return bytes_; }

 private:
  std::size_t bytes_ = 0;
};

/// The array of T at `offset` bytes into a device or pinned allocation.
template <class T, class Memory>
T* at(const Memory& m, std::size_t offset) {
  return reinterpret_cast<T*>(m.template as<char>() + offset);
}

/// Adds the seconds from construction to stop() (or destruction) to `total`.
class Stopwatch {
 public:
  explicit Stopwatch(double& total) : total_(&total), t0_(std::chrono::steady_clock::now()) {}
  Stopwatch(const Stopwatch&) = delete;
  Stopwatch& operator=(const Stopwatch&) = delete;
  ~Stopwatch() { stop(); }
  void stop() {
    if (total_) *total_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
    total_ = nullptr;
  }

 private:
  double* total_;
  std::chrono::steady_clock::time_point t0_;
};

struct CandidateLayout {
  CandidateLayout(std::size_t chunks, std::uint32_t capacity) {
    count = carve.add<std::uint32_t>(chunks);
    edge = carve.add<double>(4 * chunks);
    offset = carve.add<std::uint32_t>(chunks * capacity);
    power = carve.add<double>(chunks * capacity);
  }
  Carve carve;
  std::size_t count, edge, offset, power;
};

/// One pass: whole chunks of one or more objects, evaluated by one launch of each kernel.
struct Pass {
  std::vector<kernels::Segment> segments;
  std::vector<kernels::BlockItem> items;
  std::vector<kernels::BlockItem> combine_items;
  std::vector<kernels::ChunkRef> chunks;
  std::uint64_t n_values = 0;
  std::uint64_t n_scratch = 0;  ///< partial sums of split objects
  // The fast method: piece `piece` of the group's objects [first_object, first_object + n_objects).
  std::uint32_t first_object = 0, n_objects = 0;
  std::uint64_t piece = 0;
};

// A pass's buffers and the stream that copies its results to the host. Kernels of all passes run
// in order on the backend's one compute stream (so the kernel timer's spans time kernels alone);
// the copy stream of a slot waits for the end of its pass's kernels and then overlaps the next
// pass's compute.
struct Slot {
  cuda::Stream copy;
  cuda::DeviceMemory tables, power, candidates;
  cuda::PinnedMemory candidates_host, staging;
  const Pass* pass = nullptr;
};

class CudaBackend final : public PeriodBackend {
 public:
  explicit CudaBackend(const BackendOptions& options)
      : device_(cuda::choose_device(options)),
        threads_(options.threads > 0 ? options.threads : 0),
        host_budget_(periodogram_buffer_budget(options)) {
    for (auto& s : slots_) s = std::make_unique<Slot>();
    compute_ = std::make_unique<cuda::Stream>();
  }

  [[nodiscard]] std::string describe() const override {
    return device_.describe(std::to_string(device_.memory_budget >> 20) + " MiB");
  }

  [[nodiscard]] std::string usage() const override {
    char line[256];
    std::snprintf(line, sizeof line, "GPU %d: %.0f MiB device and %.0f MiB pinned memory at most, kernels %.3f s",
                  device_.index, static_cast<double>(peak_device_bytes_) / (1 << 20),
                  static_cast<double>(peak_pinned_bytes_) / (1 << 20), total_kernel_ms_ / 1e3);
    char host[200];
    std::snprintf(host, sizeof host, "; host s: prepare %.3f, upload %.3f, wait %.3f, peaks %.3f, select %.3f",
                  total_profile_[0], total_profile_[1], total_profile_[2], total_profile_[3], total_profile_[4]);
    return std::string(line) + (host_summaries_ ? ", " + std::to_string(host_summaries_) + " chunks on host" : "") +
           host;
  }

  [[nodiscard]] double last_kernel_seconds() const override { return last_kernel_ms_ / 1e3; }

  /// --method fast whose grids cannot fit the device budget stops before the product exists (auto
  /// may still pick direct for every object, so it is checked per unit).
  void check(const PeriodConfig& cfg) const override {
    if (cfg.method != Method::fast) return;
    const auto layout = cfg.precision == Precision::fp32 ? kernels::gpu_fast_layout<float>(cfg.grid, cfg.model)
                                                         : kernels::gpu_fast_layout<double>(cfg.grid, cfg.model);
    const std::uint64_t need = layout.grid_bytes() + layout.shape.modes * sizeof(double);
    AS_EXPECTS(need < device_.memory_budget, RuntimeError,
               "the fast method's grids for " + std::to_string(cfg.grid.n) + " frequencies need " +
                   std::to_string(need >> 20) + " MiB, more than the GPU memory budget of " +
                   std::to_string(device_.memory_budget >> 20) + " MiB",
               "raise --gpu-memory-mb, or use --method direct");
  }

  /// Where the host's time went in the last search (seconds), for the benchmark.
  [[nodiscard]] std::string last_host_profile() const override {
    char line[200];
    std::snprintf(line, sizeof line, "prepare %.4f, upload %.4f, wait %.4f, peaks+sink %.4f, select %.4f", profile_[0],
                  profile_[1], profile_[2], profile_[3], profile_[4]);
    return line;
  }

  void search(const io::LightCurveBlock& block, const PeriodConfig& cfg, std::span<ObjectResult> results,
              PeriodogramSink* sink) override {
    const cuda::DeviceScope scope(device_.index);
    std::fill(std::begin(profile_), std::end(profile_), 0.0);
    Stopwatch watch(profile_[0]);
    host_threads_ = threads_ > 0 ? threads_ : omp_get_max_threads();
    const auto series = prepare_block(block, cfg.model, host_threads_);
    init_results(block, series, cfg, results);
    watch.stop();
    kernel_timer_.reset();
    if (cfg.precision == Precision::fp32)
      run<float>(series, cfg, results, sink);
    else
      run<double>(series, cfg, results, sink);
    last_kernel_ms_ = kernel_timer_.milliseconds();  // every pass's span is collected by now
    for (std::size_t i = 0; i < std::size(profile_); ++i) total_profile_[i] += profile_[i];
    total_kernel_ms_ += last_kernel_ms_;
    std::size_t device = points_.bytes() + scratch_.bytes() + fast_factor_.bytes() + fast_grids_.bytes(),
                pinned = points_host_.bytes();
    for (const auto& s : slots_) {
      device += s->tables.bytes() + s->power.bytes() + s->candidates.bytes();
      pinned += s->candidates_host.bytes() + s->staging.bytes();
    }
    peak_device_bytes_ = std::max(peak_device_bytes_, device);
    peak_pinned_bytes_ = std::max(peak_pinned_bytes_, pinned);
  }

 private:
  template <class T>
  void run(const std::vector<PreparedSeries>& series, const PeriodConfig& cfg, std::span<ObjectResult> results,
           PeriodogramSink* sink) {
    // Computable objects by method (each object's own estimate), longest first: heavy blocks start first.
    std::vector<std::uint32_t> order, fast;
    for (std::uint32_t i = 0; i < series.size(); ++i)
      if (series[i].computable()) {
        const bool is_fast =
            kernels::gpu_choose_method<T>(cfg.method, series[i].n_used(), cfg.grid, cfg.model) == Method::fast;
        (is_fast ? fast : order).push_back(i);
      }
    std::stable_sort(order.begin(), order.end(),
                     [&](std::uint32_t a, std::uint32_t b) { return series[a].n_used() > series[b].n_used(); });
    const std::uint64_t chunks_per_object = (cfg.grid.n + chunk_freqs - 1) / chunk_freqs;
    std::vector<std::vector<ChunkPeaks>> peaks(series.size());
    for (auto i : fast) peaks[i].resize(chunks_per_object);
    run_fast<T>(series, fast, cfg, peaks, sink);
    // Objects in groups whose point tables take at most half the budget.
    const std::uint64_t point_budget = device_.memory_budget / 2;
    for (std::size_t g0 = 0; g0 < order.size();) {
      std::size_t g1 = g0;
      std::uint64_t points = 0;
      while (g1 < order.size() &&
             (g1 == g0 || (points + series[order[g1]].n_used()) * kernels::bytes_per_point<T> <= point_budget))
        points += series[order[g1++]].n_used();
      AS_EXPECTS(points * kernels::bytes_per_point<T> <= point_budget, RuntimeError,
                 "an object of " + std::to_string(points) + " points does not fit the GPU memory budget of " +
                     std::to_string(device_.memory_budget >> 20) + " MiB",
                 "raise --gpu-memory-mb, or use --backend cpu");
      const std::span<const std::uint32_t> group(order.data() + g0, g1 - g0);
      for (auto i : group) peaks[i].resize(chunks_per_object);
      run_group<T>(series, group, points, cfg, peaks, sink);
      g0 = g1;
    }
    Stopwatch watch(profile_[4]);
    order.insert(order.end(), fast.begin(), fast.end());
#pragma omp parallel for schedule(dynamic, 4) num_threads(host_threads_)
    for (std::size_t o = 0; o < order.size(); ++o)
      fill_from_peaks(results[order[o]], series[order[o]], peaks[order[o]], cfg);
  }

  // The fast method: objects in groups whose points fit a quarter of the budget, each group's
  // objects in batches of layout.batch, each batch piece by piece, a pass per batch and piece.
  template <class T>
  void run_fast(const std::vector<PreparedSeries>& series, std::span<const std::uint32_t> fast, const PeriodConfig& cfg,
                std::vector<std::vector<ChunkPeaks>>& peaks, PeriodogramSink* sink) {
    if (fast.empty()) return;
    const kernels::GpuFastLayout layout = kernels::gpu_fast_layout<T>(cfg.grid, cfg.model);
    prepare_fast_shape(layout);
    constexpr std::uint64_t bytes_per_point = 3 * sizeof(double) + sizeof(std::uint32_t);
    const std::uint64_t point_budget = device_.memory_budget / 4;
    for (std::size_t g0 = 0; g0 < fast.size();) {
      std::size_t g1 = g0;
      std::uint64_t points = 0;
      while (g1 < fast.size() && (g1 == g0 || (points + series[fast[g1]].n_used()) * bytes_per_point <= point_budget))
        points += series[fast[g1++]].n_used();
      const std::span<const std::uint32_t> group(fast.data() + g0, g1 - g0);
      const std::uint64_t per_pass = std::uint64_t{layout.batch} * layout.piece * sizeof(T);
      const std::uint64_t need =
          layout.grid_bytes() + fast_factor_.bytes() + points * bytes_per_point + 2 * per_pass + (sink ? 0 : per_pass);
      AS_EXPECTS(need <= device_.memory_budget, RuntimeError,
                 "the fast method's grids for " + std::to_string(cfg.grid.n) + " frequencies (" +
                     std::to_string(need >> 20) + " MiB with the points) do not fit the GPU memory budget of " +
                     std::to_string(device_.memory_budget >> 20) + " MiB",
                 "raise --gpu-memory-mb, or use --method direct");
      run_fast_group<T>(series, group, points, cfg, layout, peaks, sink);
      g0 = g1;
    }
  }

  /// The deconvolution factors on the device and the cuFFT plan of `layout`'s shape and batch.
  void prepare_fast_shape(const kernels::GpuFastLayout& layout) {
    const std::uint64_t transforms = std::uint64_t{layout.batch} * static_cast<std::uint64_t>(layout.sums);
    if (fast_plan_ && fast_plan_->fits(layout.shape.grid, transforms) && fast_modes_ == layout.shape.modes &&
        fast_width_ == layout.shape.width)
      return;
    compute_->synchronize();  // earlier passes may still read the factors
    fast_plan_.reset();
    const std::vector<double> factor = nufft_deconvolution(layout.shape);
    fast_factor_.reserve(factor.size() * sizeof(double));
    AS_CUDA_TRY(
        cudaMemcpy(fast_factor_.as<double>(), factor.data(), factor.size() * sizeof(double), cudaMemcpyHostToDevice));
    // Zeroed once: a short batch leaves the grids past its objects as they are (finite values).
    fast_grids_.reserve(layout.grid_bytes());
    AS_CUDA_TRY(cudaMemset(fast_grids_.as<void>(), 0, fast_grids_.bytes()));
    fast_plan_ = std::make_unique<cuda::FftPlan>(layout.shape.grid, transforms, CUFFT_Z2Z, compute_->get());
    fast_modes_ = layout.shape.modes;
    fast_width_ = layout.shape.width;
  }

  template <class T>
  void run_fast_group(const std::vector<PreparedSeries>& series, std::span<const std::uint32_t> group,
                      std::uint64_t n_points, const PeriodConfig& cfg, const kernels::GpuFastLayout& layout,
                      std::vector<std::vector<ChunkPeaks>>& peaks, PeriodogramSink* sink) {
    Stopwatch watch(profile_[1]);
    const kernels::FastLaunch base = upload_fast_points(series, group, n_points, cfg, layout);
    watch.stop();
    const std::uint32_t keep = static_cast<std::uint32_t>(candidates_per_chunk(cfg.top_k));
    const std::uint32_t capacity = std::max<std::uint32_t>(256, 2 * keep);
    std::vector<Pass> passes;
    const std::uint64_t n_pieces = layout.pieces(cfg.grid.n);
    for (std::uint32_t b0 = 0; b0 < group.size(); b0 += layout.batch) {
      const auto nb = static_cast<std::uint32_t>(std::min<std::size_t>(layout.batch, group.size() - b0));
      for (std::uint64_t piece = 0; piece < n_pieces; ++piece) {
        Pass& pass = passes.emplace_back();
        pass.first_object = b0;
        pass.n_objects = nb;
        pass.piece = piece;
        const std::uint64_t k0 = piece * layout.piece, len = std::min(layout.piece, cfg.grid.n - k0);
        for (std::uint32_t o = 0; o < nb; ++o) {
          pass.segments.push_back({b0 + o, k0, len, o * len, 0});
          for (std::uint64_t c = 0; c * chunk_freqs < len; ++c)
            pass.chunks.push_back({o, static_cast<std::uint32_t>(c)});
        }
        pass.n_values = nb * len;
      }
    }
    for (std::size_t p = 0; p < passes.size(); ++p) {
      Slot& slot = *slots_[p % 2];
      launch_fast_pass<T>(base, layout, passes[p], cfg, keep, capacity, slot, sink != nullptr);
      if (p > 0) finish_pass<T>(*slots_[(p - 1) % 2], group, keep, capacity, peaks, sink);
    }
    if (!passes.empty()) finish_pass<T>(*slots_[(passes.size() - 1) % 2], group, keep, capacity, peaks, sink);
  }

  // The group's points (t, w, y in double, each point's object) and objects, packed into pinned
  // memory by the rank's threads and copied without waiting, as upload_points does.
  kernels::FastLaunch upload_fast_points(const std::vector<PreparedSeries>& series,
                                         std::span<const std::uint32_t> group, std::uint64_t n, const PeriodConfig& cfg,
                                         const kernels::GpuFastLayout& layout) {
    fast_first_.assign(group.size() + 1, 0);
    for (std::size_t g = 0; g < group.size(); ++g) fast_first_[g + 1] = fast_first_[g] + series[group[g]].n_used();
    AS_ASSERT(fast_first_.back() == n);
    Carve carve;
    const auto o_t = carve.add<double>(n), o_w = carve.add<double>(n), o_y = carve.add<double>(n);
    const auto o_obj = carve.add<std::uint32_t>(n), o_objects = carve.add<kernels::FastObject>(group.size());
    uploaded_.synchronize();
    points_host_.reserve(carve.bytes());
    double* t = at<double>(points_host_, o_t);
    double* w = at<double>(points_host_, o_w);
    double* y = at<double>(points_host_, o_y);
    auto* point_object = at<std::uint32_t>(points_host_, o_obj);
    auto* objects = at<kernels::FastObject>(points_host_, o_objects);
#pragma omp parallel for schedule(dynamic, 16) num_threads(host_threads_)
    for (std::size_t g = 0; g < group.size(); ++g) {
      const auto& s = series[group[g]];
      double wy_sum = 0, w_sum = 0;
      for (std::size_t j = 0, r = fast_first_[g]; j < s.t.size(); ++j, ++r) {
        t[r] = s.t[j];
        w[r] = s.w[j];
        y[r] = s.y[j];
        point_object[r] = static_cast<std::uint32_t>(g);
        wy_sum += s.w[j] * std::abs(s.y[j]);
        w_sum += s.w[j];
      }
      // 2^(62 - e) with sum < 2^e: a cell's fixed-point sum stays below 2^62.
      auto scale = [](double sum) {
        int e = 0;
        std::frexp(sum, &e);
        return std::ldexp(1.0, 62 - e);
      };
      objects[g] = {fast_first_[g], s.n_used(), scale(wy_sum), scale(w_sum), w_sum, s.yy, s.psd_scale};
    }
    points_.reserve(carve.bytes());
    AS_CUDA_TRY(cudaMemcpyAsync(points_.as<char>(), points_host_.as<char>(), carve.bytes(), cudaMemcpyHostToDevice,
                                compute_->get()));
    uploaded_.record(*compute_);
    kernels::FastLaunch l;
    l.t = at<double>(points_, o_t);
    l.w = at<double>(points_, o_w);
    l.y = at<double>(points_, o_y);
    l.point_object = at<std::uint32_t>(points_, o_obj);
    l.objects = at<kernels::FastObject>(points_, o_objects);
    l.modes = layout.shape.modes;
    l.cells = layout.shape.grid;
    l.width = layout.shape.width;
    l.beta = layout.shape.beta;
    l.factor = fast_factor_.as<double>();
    l.df = cfg.grid.df;
    l.sums = layout.sums;
    l.fit_mean = cfg.model == Model::generalized;
    l.normalization = static_cast<int>(cfg.normalization);
    return l;
  }

  template <class T>
  void launch_fast_pass(const kernels::FastLaunch& base, const kernels::GpuFastLayout& layout, const Pass& pass,
                        const PeriodConfig& cfg, std::uint32_t keep, std::uint32_t capacity, Slot& slot, bool staging) {
    slot.pass = &pass;
    Carve carve;
    const auto o_seg = carve.add<kernels::Segment>(pass.segments.size());
    const auto o_chunks = carve.add<kernels::ChunkRef>(pass.chunks.size());
    slot.tables.reserve(carve.bytes());
    slot.power.reserve(pass.n_values * sizeof(T));
    const CandidateLayout candidates(pass.chunks.size(), capacity);
    slot.candidates.reserve(candidates.carve.bytes());
    slot.candidates_host.reserve(candidates.carve.bytes());
    if (staging) slot.staging.reserve(pass.n_values * sizeof(T));
    const cudaStream_t s = compute_->get();
    AS_CUDA_TRY(cudaMemcpyAsync(slot.tables.as<char>() + o_seg, pass.segments.data(),
                                pass.segments.size() * sizeof(kernels::Segment), cudaMemcpyHostToDevice, s));
    AS_CUDA_TRY(cudaMemcpyAsync(slot.tables.as<char>() + o_chunks, pass.chunks.data(),
                                pass.chunks.size() * sizeof(kernels::ChunkRef), cudaMemcpyHostToDevice, s));
    kernels::FastLaunch l = base;
    l.objects = base.objects + pass.first_object;
    l.n_objects = pass.n_objects;
    l.point_base = fast_first_[pass.first_object];
    l.n_points = fast_first_[pass.first_object + pass.n_objects] - l.point_base;
    l.object_base = pass.first_object;
    l.f_centre = cfg.grid.at(pass.piece * layout.piece + layout.piece / 2);
    l.degenerate_eps = degenerate_eps<T>();
    const std::uint64_t len = pass.n_values / pass.n_objects;
    T* power = slot.power.as<T>();
    const kernels::CandidateSlots cand{
        at<std::uint32_t>(slot.candidates, candidates.count), at<double>(slot.candidates, candidates.edge),
        at<std::uint32_t>(slot.candidates, candidates.offset), at<double>(slot.candidates, candidates.power), capacity};
    kernel_timer_.start(*compute_);
    kernels::fast_spread(l, fast_grids_.as<void>(), s);
    kernels::fast_unfix(l, fast_grids_.as<void>(), s);
    // exp(+i 2 pi k l / M), in place: the NUFFT's sign +1.
    auto* grids = fast_grids_.as<cufftDoubleComplex>();
    cuda::cufft_try(cufftExecZ2Z(fast_plan_->get(), grids, grids, CUFFT_INVERSE), "the fast method's transforms");
    kernels::fast_power<T>(l, fast_grids_.as<void>(), len, power, s);
    kernels::chunk_candidates<T>(power, at<kernels::Segment>(slot.tables, o_seg),
                                 at<kernels::ChunkRef>(slot.tables, o_chunks),
                                 static_cast<std::uint32_t>(pass.chunks.size()), chunk_freqs, keep, cand, s);
    const cuda::Event& computed = kernel_timer_.stop(*compute_);
    const cudaStream_t c = slot.copy.get();
    AS_CUDA_TRY(cudaStreamWaitEvent(c, computed.get(), 0));
    AS_CUDA_TRY(cudaMemcpyAsync(slot.candidates_host.as<char>(), slot.candidates.as<char>(), candidates.carve.bytes(),
                                cudaMemcpyDeviceToHost, c));
    if (staging)
      AS_CUDA_TRY(
          cudaMemcpyAsync(slot.staging.as<char>(), power, pass.n_values * sizeof(T), cudaMemcpyDeviceToHost, c));
  }

  template <class T>
  void run_group(const std::vector<PreparedSeries>& series, std::span<const std::uint32_t> group,
                 std::uint64_t n_points, const PeriodConfig& cfg, std::vector<std::vector<ChunkPeaks>>& peaks,
                 PeriodogramSink* sink) {
    Stopwatch watch(profile_[1]);
    const kernels::PointArrays<T> points = upload_points<T>(series, group, n_points, cfg.grid.df);
    watch.stop();

    const std::uint32_t keep = static_cast<std::uint32_t>(candidates_per_chunk(cfg.top_k));
    const std::uint32_t capacity = std::max<std::uint32_t>(256, 2 * keep);
    const auto passes = plan_passes<T>(series, group, cfg.grid.n, capacity, n_points, sink != nullptr);
    for (std::size_t p = 0; p < passes.size(); ++p) {
      Slot& slot = *slots_[p % 2];
      launch_pass<T>(points, passes[p], cfg, keep, capacity, slot, sink != nullptr);
      if (p > 0) finish_pass<T>(*slots_[(p - 1) % 2], group, keep, capacity, peaks, sink);
    }
    if (!passes.empty()) finish_pass<T>(*slots_[(passes.size() - 1) % 2], group, keep, capacity, peaks, sink);
  }

  // The group's points go to the device from pinned memory that the rank's threads fill in
  // parallel (a single thread packing 10^7 points was a tenth of a TESS-like unit's time), in one
  // copy, without waiting for it: the staging buffer is only refilled once the copy has read it.
  template <class T>
  kernels::PointArrays<T> upload_points(const std::vector<PreparedSeries>& series, std::span<const std::uint32_t> group,
                                        std::uint64_t n, double df) {
    std::vector<std::uint64_t> first(group.size() + 1, 0);
    for (std::size_t g = 0; g < group.size(); ++g) first[g + 1] = first[g] + series[group[g]].n_used();
    AS_ASSERT(first.back() == n);
    Carve carve;  // what the host fills first, so that one copy moves it all
    const auto o_t = carve.add<double>(n), o_sw = carve.add<T>(n), o_ysw = carve.add<T>(n);
    const auto o_obj = carve.add<kernels::DeviceObject>(group.size());
    const std::size_t host_bytes = carve.bytes();
    const auto o_step = carve.add<T>(2 * n), o_u = carve.add<T>(2 * n * kernels::seed_u);
    const auto o_v = carve.add<T>(2 * n * kernels::seed_v);
    uploaded_.synchronize();
    points_host_.reserve(host_bytes);
    double* t = at<double>(points_host_, o_t);
    T* sw = at<T>(points_host_, o_sw);
    T* ysw = at<T>(points_host_, o_ysw);
    kernels::DeviceObject* objects = at<kernels::DeviceObject>(points_host_, o_obj);
#pragma omp parallel for schedule(dynamic, 16) num_threads(host_threads_)
    for (std::size_t g = 0; g < group.size(); ++g) {
      const auto& s = series[group[g]];
      objects[g] = {first[g], s.n_used(), kernels::parts_for(s.n_used()), s.yy, s.psd_scale};
      for (std::size_t j = 0, r = first[g]; j < s.t.size(); ++j, ++r) {
        const double root_w = std::sqrt(s.w[j]);
        t[r] = s.t[j];
        sw[r] = static_cast<T>(root_w);
        ysw[r] = static_cast<T>(root_w * s.y[j]);
      }
    }
    points_.reserve(carve.bytes());
    AS_CUDA_TRY(cudaMemcpyAsync(points_.as<char>(), points_host_.as<char>(), host_bytes, cudaMemcpyHostToDevice,
                                compute_->get()));
    uploaded_.record(*compute_);
    objects_ = at<kernels::DeviceObject>(points_, o_obj);
    const kernels::PointArrays<T> p{at<double>(points_, o_t), at<T>(points_, o_sw), at<T>(points_, o_ysw),
                                    at<T>(points_, o_step),   at<T>(points_, o_u),  at<T>(points_, o_v)};
    kernels::prepare_points<T>(p, n, df, compute_->get());
    return p;
  }

  // Chunks in passes as large as the device budget allows (two slots), and with a sink as large as
  // the host staging budget allows.
  template <class T>
  std::vector<Pass> plan_passes(const std::vector<PreparedSeries>& series, std::span<const std::uint32_t> group,
                                std::uint64_t n_freq, std::uint32_t capacity, std::uint64_t n_points,
                                bool staging) const {
    const std::size_t n_objects = group.size();
    std::vector<std::uint32_t> parts(n_objects);
    for (std::size_t o = 0; o < n_objects; ++o) parts[o] = kernels::parts_for(series[group[o]].n_used());
    const std::uint32_t max_parts = *std::max_element(parts.begin(), parts.end());
    const std::uint64_t blocks_per_chunk = chunk_freqs / kernels::block_freqs<T>;
    const std::uint64_t device_per_chunk = chunk_freqs * sizeof(T) + blocks_per_chunk * sizeof(kernels::BlockItem) +
                                           sizeof(kernels::ChunkRef) + sizeof(kernels::Segment) + 4 + 32 +
                                           capacity * std::uint64_t{12} + 1024;
    // Partial sums of split objects: one buffer, shared by the passes (kernels run in order).
    const std::uint64_t scratch_per_chunk = max_parts > 1 ? kernels::n_sums * max_parts * chunk_freqs * sizeof(T) : 0;
    const std::uint64_t used =
        n_points * kernels::bytes_per_point<T> + n_objects * sizeof(kernels::DeviceObject) + 4096;
    const std::uint64_t left = device_.memory_budget > used ? device_.memory_budget - used : 0;
    std::uint64_t per_pass = left / (2 * device_per_chunk + scratch_per_chunk);
    if (staging) per_pass = std::min<std::uint64_t>(per_pass, host_budget_ / (2 * chunk_freqs * sizeof(T)));
    AS_EXPECTS(left >= 2 * device_per_chunk + scratch_per_chunk, RuntimeError,
               "the GPU memory budget of " + std::to_string(device_.memory_budget >> 20) +
                   " MiB cannot hold two periodogram chunks besides the points",
               "raise --gpu-memory-mb");
    per_pass = std::max<std::uint64_t>(1, per_pass);

    std::vector<Pass> passes;
    const std::uint64_t chunks_per_object = (n_freq + chunk_freqs - 1) / chunk_freqs;
    for (std::uint32_t o = 0; o < n_objects; ++o) {
      for (std::uint64_t c = 0; c < chunks_per_object; ++c) {
        if (passes.empty() || passes.back().chunks.size() >= per_pass) passes.emplace_back();
        Pass& pass = passes.back();
        if (pass.segments.empty() || pass.segments.back().object != o) {
          const std::uint64_t k = c * chunk_freqs;
          pass.segments.push_back({o, k, 0, pass.n_values});
        }
        auto& seg = pass.segments.back();
        const auto seg_index = static_cast<std::uint32_t>(pass.segments.size() - 1);
        const std::uint64_t len = std::min(chunk_freqs, n_freq - c * chunk_freqs);
        const auto chunk_in_seg = static_cast<std::uint32_t>((c * chunk_freqs - seg.k_begin) / chunk_freqs);
        pass.chunks.push_back({seg_index, chunk_in_seg});
        const std::uint64_t first_block = seg.n / kernels::block_freqs<T>;
        seg.n += len;
        pass.n_values += len;
        const std::uint64_t end_block = (seg.n + kernels::block_freqs<T> - 1) / kernels::block_freqs<T>;
        for (std::uint64_t b = first_block; b < end_block; ++b) {
          for (std::uint32_t part = 0; part < parts[o]; ++part)
            pass.items.push_back({seg_index, static_cast<std::uint32_t>(b), part});
          if (parts[o] > 1) pass.combine_items.push_back({seg_index, static_cast<std::uint32_t>(b), 0});
        }
      }
    }
    for (auto& pass : passes)
      for (auto& seg : pass.segments)
        if (parts[seg.object] > 1) {
          seg.scratch = pass.n_scratch;
          pass.n_scratch += std::uint64_t{kernels::n_sums} * parts[seg.object] * seg.n;
        }
    return passes;
  }

  template <class T>
  void launch_pass(const kernels::PointArrays<T>& points, const Pass& pass, const PeriodConfig& cfg, std::uint32_t keep,
                   std::uint32_t capacity, Slot& slot, bool staging) {
    slot.pass = &pass;
    Carve carve;
    const auto o_seg = carve.add<kernels::Segment>(pass.segments.size());
    const auto o_items = carve.add<kernels::BlockItem>(pass.items.size());
    const auto o_combine = carve.add<kernels::BlockItem>(pass.combine_items.size());
    const auto o_chunks = carve.add<kernels::ChunkRef>(pass.chunks.size());
    slot.tables.reserve(carve.bytes());
    slot.power.reserve(pass.n_values * sizeof(T));
    scratch_.reserve(pass.n_scratch * sizeof(T));
    const CandidateLayout layout(pass.chunks.size(), capacity);
    slot.candidates.reserve(layout.carve.bytes());
    slot.candidates_host.reserve(layout.carve.bytes());
    if (staging) slot.staging.reserve(pass.n_values * sizeof(T));
    const cudaStream_t s = compute_->get();
    auto copy = [&](std::size_t offset, const auto& v) {
      AS_CUDA_TRY(cudaMemcpyAsync(slot.tables.as<char>() + offset, v.data(), v.size() * sizeof(v[0]),
                                  cudaMemcpyHostToDevice, s));
    };
    copy(o_seg, pass.segments);
    copy(o_items, pass.items);
    copy(o_combine, pass.combine_items);
    copy(o_chunks, pass.chunks);

    kernels::PowerLaunch launch;
    launch.f0 = cfg.grid.f0;
    launch.df = cfg.grid.df;
    launch.fit_mean = cfg.model == Model::generalized;
    launch.normalization = static_cast<int>(cfg.normalization);
    launch.degenerate_eps = degenerate_eps<T>();
    launch.objects = objects_;
    launch.segments = at<kernels::Segment>(slot.tables, o_seg);
    launch.items = at<kernels::BlockItem>(slot.tables, o_items);
    launch.n_items = static_cast<std::uint32_t>(pass.items.size());
    launch.combine_items = at<kernels::BlockItem>(slot.tables, o_combine);
    launch.n_combine_items = static_cast<std::uint32_t>(pass.combine_items.size());
    T* power = slot.power.as<T>();
    kernels::CandidateSlots cand{
        at<std::uint32_t>(slot.candidates, layout.count), at<double>(slot.candidates, layout.edge),
        at<std::uint32_t>(slot.candidates, layout.offset), at<double>(slot.candidates, layout.power), capacity};
    kernel_timer_.start(*compute_);
    kernels::lomb_scargle_power<T>(points, launch, power, scratch_.as<T>(), s);
    kernels::chunk_candidates<T>(power, launch.segments, at<kernels::ChunkRef>(slot.tables, o_chunks),
                                 static_cast<std::uint32_t>(pass.chunks.size()), chunk_freqs, keep, cand, s);
    const cuda::Event& computed = kernel_timer_.stop(*compute_);
    const cudaStream_t c = slot.copy.get();
    AS_CUDA_TRY(cudaStreamWaitEvent(c, computed.get(), 0));
    AS_CUDA_TRY(cudaMemcpyAsync(slot.candidates_host.as<char>(), slot.candidates.as<char>(), layout.carve.bytes(),
                                cudaMemcpyDeviceToHost, c));
    if (staging)
      AS_CUDA_TRY(
          cudaMemcpyAsync(slot.staging.as<char>(), power, pass.n_values * sizeof(T), cudaMemcpyDeviceToHost, c));
  }

  template <class T>
  void finish_pass(Slot& slot, std::span<const std::uint32_t> group, std::uint32_t keep, std::uint32_t capacity,
                   std::vector<std::vector<ChunkPeaks>>& peaks, PeriodogramSink* sink) {
    Stopwatch wait(profile_[2]);
    slot.copy.synchronize();
    wait.stop();
    Stopwatch work(profile_[3]);
    kernel_timer_.collect();  // the copy waited for this pass's kernels: their span counts
    const Pass& pass = *slot.pass;
    const CandidateLayout layout(pass.chunks.size(), capacity);
    const auto* count = at<const std::uint32_t>(slot.candidates_host, layout.count);
    const auto* edge = at<const double>(slot.candidates_host, layout.edge);
    const auto* offset = at<const std::uint32_t>(slot.candidates_host, layout.offset);
    const auto* power = at<const double>(slot.candidates_host, layout.power);
    // Chunks with overflowing candidate slots read their values first (on this thread: CUDA calls).
    std::vector<std::vector<T>> overflow(pass.chunks.size());
    if (!sink)
      for (std::size_t c = 0; c < pass.chunks.size(); ++c)
        if (count[c] > capacity) {
          const auto& ref = pass.chunks[c];
          const auto& seg = pass.segments[ref.segment];
          const std::uint64_t in_seg = std::uint64_t{ref.index} * chunk_freqs;
          overflow[c].resize(std::min(chunk_freqs, seg.n - in_seg));
          AS_CUDA_TRY(cudaMemcpy(overflow[c].data(), slot.power.as<T>() + seg.offset + in_seg,
                                 overflow[c].size() * sizeof(T), cudaMemcpyDeviceToHost));
        }
#pragma omp parallel for schedule(dynamic, 16) num_threads(host_threads_)
    for (std::size_t c = 0; c < pass.chunks.size(); ++c) {
      const auto& ref = pass.chunks[c];
      const auto& seg = pass.segments[ref.segment];
      const std::uint64_t in_seg = std::uint64_t{ref.index} * chunk_freqs;
      const std::uint64_t k0 = seg.k_begin + in_seg;
      const std::uint64_t n = std::min(chunk_freqs, seg.n - in_seg);
      ChunkPeaks summary;
      if (count[c] <= capacity) {
        std::vector<Peak> candidates(count[c]);
        for (std::uint32_t i = 0; i < count[c]; ++i)
          candidates[i] = {k0 + offset[c * capacity + i], power[c * capacity + i]};
        const double(&e)[4] = *reinterpret_cast<const double(*)[4]>(edge + 4 * c);
        summary = chunk_from_candidates(k0, n, e, std::move(candidates), keep);
      } else {  // more maxima near the threshold than slots: summarise this chunk from its values
        const T* src = sink ? slot.staging.as<T>() + seg.offset + in_seg : overflow[c].data();
        summary = summarize_chunk<T>(k0, std::span<const T>(src, n), keep);
      }
      peaks[group[seg.object]][k0 / chunk_freqs] = std::move(summary);
    }
    for (std::size_t c = 0; c < pass.chunks.size(); ++c) host_summaries_ += count[c] > capacity ? 1 : 0;
    if (sink)
      for (const auto& seg : pass.segments)
        sink->write(group[seg.object], seg.k_begin, seg.n, slot.staging.as<T>() + seg.offset);
  }

  const cuda::DeviceChoice device_;  ///< first: chosen and made current before any CUDA handle
  int threads_;
  int host_threads_ = 1;
  std::uint64_t host_budget_;
  std::unique_ptr<cuda::Stream> compute_;
  cuda::KernelTimer kernel_timer_;  ///< one span per pass, on compute_
  std::array<std::unique_ptr<Slot>, 2> slots_;
  cuda::DeviceMemory points_, scratch_;
  // The fast method: deconvolution factors, one batch's grids, the plan, each group object's first point.
  cuda::DeviceMemory fast_factor_, fast_grids_;
  std::unique_ptr<cuda::FftPlan> fast_plan_;  ///< in-place Z2Z of a batch's grids
  std::uint64_t fast_modes_ = 0;
  int fast_width_ = 0;
  std::vector<std::uint64_t> fast_first_;
  cuda::PinnedMemory points_host_;  ///< the group's points as uploaded
  cuda::Event uploaded_;            ///< the last upload has read points_host_
  double profile_[5] = {};
  double total_profile_[5] = {};  ///< profile_ summed over the searches
  const kernels::DeviceObject* objects_ = nullptr;
  double last_kernel_ms_ = 0, total_kernel_ms_ = 0;
  std::size_t peak_device_bytes_ = 0, peak_pinned_bytes_ = 0;
  std::uint64_t host_summaries_ = 0;
};

}  // namespace

std::unique_ptr<PeriodBackend> make_period_backend_cuda(const BackendOptions& options) {
  return std::make_unique<CudaBackend>(options);
}

}  // namespace astrosweep::period
