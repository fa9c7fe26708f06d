// The OpenMP backend. Each object runs the direct or the fast method (--method; auto picks per
// object by estimated cost, so the choice never depends on how objects were grouped into units).
// A block's objects run in parallel with dynamic scheduling (lengths differ by 100x); an object
// whose cost dominates the block runs alone, parallel over frequency chunks (direct) or over its
// pieces' transforms (fast). Both paths evaluate identical chunks and pieces with the same code, so
// a value never depends on the path or the thread count.

#include <omp.h>

#include <algorithm>
#include <limits>

#include "core/cpu_affinity.hpp"
#include "core/error.hpp"
#include "lomb_scargle.hpp"
#include "lomb_scargle_fast.hpp"
#include "peaks.hpp"
#include "period_backend.hpp"
#include "period_backend_common.hpp"
#include "period_backend_cpu.hpp"

namespace astrosweep::period {

namespace {

static_assert(chunk_freqs % CpuKernelShape<float>::panel == 0 && chunk_freqs % CpuKernelShape<double>::panel == 0);

/// The chunks [k0, k0 + len) of the grid inside [first, first + n): a fast piece's chunks (pieces
/// are whole multiples of chunk_freqs, or the whole grid).
template <class F>
void for_chunks(std::uint64_t first, std::uint64_t n, std::uint64_t grid_n, F&& f) {
  for (std::uint64_t k0 = first; k0 < std::min(first + n, grid_n); k0 += chunk_freqs)
    f(k0, std::min({chunk_freqs, grid_n - k0, first + n - k0}));
}

class OpenMpBackend final : public PeriodBackend {
 public:
  explicit OpenMpBackend(const BackendOptions& options)
      : threads_(options.threads > 0 ? options.threads : affinity::default_threads()),
        budget_(periodogram_buffer_budget(options)) {}

  [[nodiscard]] std::string describe() const override {
    return "cpu (OpenMP, " + std::to_string(threads_) + " threads)";
  }

  void search(const io::LightCurveBlock& block, const PeriodConfig& cfg, std::span<ObjectResult> results,
              PeriodogramSink* sink) override {
    const auto series = prepare_block(block, cfg.model, threads_);
    init_results(block, series, cfg, results);
    if (cfg.precision == Precision::fp32)
      run<float>(series, cfg, results, sink);
    else
      run<double>(series, cfg, results, sink);
  }

 private:
  template <class T>
  void run(const std::vector<PreparedSeries>& series, const PeriodConfig& cfg, std::span<ObjectResult> results,
           PeriodogramSink* sink) {
    const auto& grid = cfg.grid;
    const std::size_t n = series.size();
    std::vector<bool> fast(n, false);
    double total = 0, total_fast = 0;
    for (std::size_t i = 0; i < n; ++i) {
      if (!series[i].computable()) continue;
      fast[i] = choose_method<T>(cfg.method, series[i].n_used(), grid, cfg.model) == Method::fast;
      if (fast[i])
        total_fast += fast_seconds<T>(series[i].n_used(), grid, cfg.model);
      else
        total += static_cast<double>(series[i].n_used());
    }
    std::vector<std::size_t> batch, alone, fast_batch, fast_alone;
    for (std::size_t i = 0; i < n; ++i) {
      if (fast[i]) {
        const bool dominant =
            threads_ > 1 && fast_seconds<T>(series[i].n_used(), grid, cfg.model) > total_fast / (2.0 * threads_);
        (dominant ? fast_alone : fast_batch).push_back(i);
        continue;
      }
      const bool dominant = series[i].computable() && threads_ > 1 && grid.n > chunk_freqs &&
                            static_cast<double>(series[i].n_used()) > total / (2.0 * threads_);
      (dominant ? alone : batch).push_back(i);
    }
    run_batch<T>(series, batch, cfg, results, sink);
    for (std::size_t i : alone) run_alone<T>(series[i], i, cfg, results[i], sink);
    run_fast_batch<T>(series, fast_batch, cfg, results, sink);
    for (std::size_t i : fast_alone) run_fast_alone<T>(series[i], i, cfg, results[i], sink);
  }

  /// The calling thread's fast-method workspace (transforms and buffers kept from unit to unit).
  FastWorkspace& workspace() {
    const auto t = static_cast<std::size_t>(omp_get_thread_num());
    return *workspaces_[t];
  }

  void reserve_workspaces() {
    while (workspaces_.size() < static_cast<std::size_t>(threads_))
      workspaces_.push_back(std::make_unique<FastWorkspace>());
  }

  // Fast method, objects in parallel; each object's pieces in order on one thread.
  template <class T>
  void run_fast_batch(const std::vector<PreparedSeries>& series, const std::vector<std::size_t>& objects,
                      const PeriodConfig& cfg, std::span<ObjectResult> results, PeriodogramSink* sink) {
    if (objects.empty()) return;
    reserve_workspaces();
    const auto& grid = cfg.grid;
    const std::uint64_t row_bytes = grid.n * sizeof(T);
    const std::size_t group =
        sink ? static_cast<std::size_t>(std::max<std::uint64_t>(1, budget_ / std::max<std::uint64_t>(row_bytes, 1)))
             : objects.size();
    std::vector<T> rows;
    for (std::size_t g0 = 0; g0 < objects.size(); g0 += group) {
      const std::size_t gn = std::min(group, objects.size() - g0);
      if (sink) rows.assign(gn * grid.n, std::numeric_limits<T>::quiet_NaN());
#pragma omp parallel num_threads(threads_)
      {
        FastWorkspace& ws = workspace();
        FastPieceSums sums;
        std::vector<T> scratch;
#pragma omp for schedule(dynamic, 1)
        for (std::size_t gi = 0; gi < gn; ++gi) {
          const std::size_t i = objects[g0 + gi];
          const FastSeries<T> fs(series[i], grid);
          const std::uint64_t piece = fs.layout.piece;
          if (!sink) scratch.resize(piece);
          std::vector<ChunkPeaks> chunks;
          for (std::uint64_t p = 0; p < fs.layout.pieces(grid.n); ++p) {
            fast_piece_sums(fs, grid, p, fast_sums_needed(cfg.model), ws, sums);
            for_chunks(p * piece, piece, grid.n, [&](std::uint64_t k0, std::uint64_t len) {
              std::span<T> out = sink ? std::span<T>(rows.data() + gi * grid.n + k0, len)
                                      : std::span<T>(scratch.data() + (k0 - p * piece), len);
              fast_piece_power(fs, cfg.model, cfg.normalization, sums, k0 - p * piece, out);
              chunks.push_back(summarize_chunk<T>(k0, out, candidates_per_chunk(cfg.top_k)));
            });
          }
          fill_from_peaks(results[i], series[i], chunks, cfg);
        }
      }
      if (sink)
        for (std::size_t gi = 0; gi < gn; ++gi) sink->write(objects[g0 + gi], 0, grid.n, rows.data() + gi * grid.n);
    }
  }

  // Fast method, one object: its pieces' sums (each its own transform) in parallel, then the
  // pieces' chunks in parallel. A pass holds as many pieces as the buffer budget allows.
  template <class T>
  void run_fast_alone(const PreparedSeries& s, std::size_t object, const PeriodConfig& cfg, ObjectResult& result,
                      PeriodogramSink* sink) {
    reserve_workspaces();
    const auto& grid = cfg.grid;
    const FastSeries<T> fs(s, grid);
    const std::uint64_t piece = fs.layout.piece;
    const std::uint64_t n_pieces = fs.layout.pieces(grid.n);
    std::vector<unsigned> kinds;
    for (unsigned kind : {fast_sum_y, fast_sum_w, fast_sum_w2})
      if (fast_sums_needed(cfg.model) & kind) kinds.push_back(kind);
    const std::uint64_t piece_bytes = piece * (3 * sizeof(std::complex<double>) + (sink ? sizeof(T) : 0));
    // Pieces per pass: twice the threads (for balance), fewer when the budget says so but never
    // fewer than the threads.
    const auto threads = static_cast<std::uint64_t>(threads_);
    const std::uint64_t per_pass = std::min(n_pieces, std::max(threads, std::min(2 * threads, budget_ / piece_bytes)));
    const std::uint64_t n_chunks = (grid.n + chunk_freqs - 1) / chunk_freqs;
    std::vector<ChunkPeaks> chunks(n_chunks);
    std::vector<FastPieceSums> sums(per_pass);
    std::vector<T> buffer;
    for (std::uint64_t p0 = 0; p0 < n_pieces; p0 += per_pass) {
      const std::uint64_t p1 = std::min(n_pieces, p0 + per_pass);
      // Each (piece, sum) its own transform: in parallel when there are enough of them for the
      // threads, else one after another, each spread by all threads (a Kepler-length object on a
      // grid of one piece on many cores). The same bits either way.
      const auto tasks = static_cast<std::int64_t>((p1 - p0) * kinds.size());
      auto task_sums = [&](std::int64_t task, FastWorkspace& ws, int spread_threads) {
        const std::uint64_t p = p0 + static_cast<std::uint64_t>(task) / kinds.size();
        const unsigned kind = kinds[static_cast<std::size_t>(task) % kinds.size()];
        fast_piece_sums(fs, grid, p, kind, ws, sums[p - p0], spread_threads);
      };
      if (tasks >= threads_) {
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads_)
        for (std::int64_t task = 0; task < tasks; ++task) task_sums(task, workspace(), 1);
      } else {
        for (std::int64_t task = 0; task < tasks; ++task) task_sums(task, *workspaces_[0], threads_);
      }
      const std::uint64_t k_first = p0 * piece, k_last = std::min(grid.n, p1 * piece);
      if (sink) buffer.resize(k_last - k_first);
      const std::uint64_t c0 = k_first / chunk_freqs, c1 = (k_last + chunk_freqs - 1) / chunk_freqs;
#pragma omp parallel num_threads(threads_)
      {
        std::vector<T> scratch(sink ? 0 : chunk_freqs);
#pragma omp for schedule(dynamic, 1)
        for (std::uint64_t c = c0; c < c1; ++c) {
          const std::uint64_t k0 = c * chunk_freqs;
          const std::uint64_t len = std::min(chunk_freqs, grid.n - k0);
          const std::uint64_t p = k0 / piece;
          std::span<T> out =
              sink ? std::span<T>(buffer.data() + (k0 - k_first), len) : std::span<T>(scratch.data(), len);
          fast_piece_power(fs, cfg.model, cfg.normalization, sums[p - p0], k0 - p * piece, out);
          chunks[c] = summarize_chunk<T>(k0, out, candidates_per_chunk(cfg.top_k));
        }
      }
      if (sink) sink->write(object, k_first, k_last - k_first, buffer.data());
    }
    fill_from_peaks(result, s, chunks, cfg);
  }

  // Objects in parallel; each object's chunks in order on one thread.
  template <class T>
  void run_batch(const std::vector<PreparedSeries>& series, const std::vector<std::size_t>& objects,
                 const PeriodConfig& cfg, std::span<ObjectResult> results, PeriodogramSink* sink) {
    const auto& grid = cfg.grid;
    const std::uint64_t row_bytes = grid.n * sizeof(T);
    // With a sink, whole rows are kept until written: as many objects at a time as the budget holds.
    const std::size_t group =
        sink ? static_cast<std::size_t>(std::max<std::uint64_t>(1, budget_ / std::max<std::uint64_t>(row_bytes, 1)))
             : objects.size();
    std::vector<T> rows;
    for (std::size_t g0 = 0; g0 < objects.size(); g0 += group) {
      const std::size_t gn = std::min(group, objects.size() - g0);
      if (sink) rows.assign(gn * grid.n, std::numeric_limits<T>::quiet_NaN());
#pragma omp parallel num_threads(threads_)
      {
        std::vector<T> scratch(sink ? 0 : std::min<std::uint64_t>(grid.n, chunk_freqs));
#pragma omp for schedule(dynamic, 1)
        for (std::size_t gi = 0; gi < gn; ++gi) {
          const std::size_t i = objects[g0 + gi];
          if (!series[i].computable()) continue;
          const CpuSeries<T> kernel(series[i], grid);
          std::vector<ChunkPeaks> chunks;
          for (std::uint64_t k0 = 0; k0 < grid.n; k0 += chunk_freqs) {
            const std::uint64_t len = std::min(chunk_freqs, grid.n - k0);
            std::span<T> out =
                sink ? std::span<T>(rows.data() + gi * grid.n + k0, len) : std::span<T>(scratch.data(), len);
            lomb_scargle_cpu<T>(kernel, grid, cfg.model, cfg.normalization, k0, out);
            chunks.push_back(summarize_chunk<T>(k0, out, candidates_per_chunk(cfg.top_k)));
          }
          fill_from_peaks(results[i], series[i], chunks, cfg);
        }
      }
      if (sink)
        for (std::size_t gi = 0; gi < gn; ++gi) sink->write(objects[g0 + gi], 0, grid.n, rows.data() + gi * grid.n);
    }
  }

  // One object, its frequency chunks in parallel.
  template <class T>
  void run_alone(const PreparedSeries& s, std::size_t object, const PeriodConfig& cfg, ObjectResult& result,
                 PeriodogramSink* sink) {
    const auto& grid = cfg.grid;
    const CpuSeries<T> kernel(s, grid);
    const std::uint64_t n_chunks = (grid.n + chunk_freqs - 1) / chunk_freqs;
    std::vector<ChunkPeaks> chunks(n_chunks);
    // Chunks per pass: all of them without a sink, else as many as the buffer budget holds.
    const std::uint64_t per_pass =
        sink ? std::max<std::uint64_t>(static_cast<std::uint64_t>(threads_), budget_ / (chunk_freqs * sizeof(T)))
             : n_chunks;
    std::vector<T> buffer;
    for (std::uint64_t c0 = 0; c0 < n_chunks; c0 += per_pass) {
      const std::uint64_t c1 = std::min(n_chunks, c0 + per_pass);
      if (sink) buffer.resize((c1 - c0) * chunk_freqs);
#pragma omp parallel num_threads(threads_)
      {
        std::vector<T> scratch(sink ? 0 : chunk_freqs);
#pragma omp for schedule(dynamic, 1)
        for (std::uint64_t c = c0; c < c1; ++c) {
          const std::uint64_t k0 = c * chunk_freqs;
          const std::uint64_t len = std::min(chunk_freqs, grid.n - k0);
          std::span<T> out =
              sink ? std::span<T>(buffer.data() + (c - c0) * chunk_freqs, len) : std::span<T>(scratch.data(), len);
          lomb_scargle_cpu<T>(kernel, grid, cfg.model, cfg.normalization, k0, out);
          chunks[c] = summarize_chunk<T>(k0, out, candidates_per_chunk(cfg.top_k));
        }
      }
      if (sink) {
        const std::uint64_t k0 = c0 * chunk_freqs;
        sink->write(object, k0, std::min(grid.n, c1 * chunk_freqs) - k0, buffer.data());
      }
    }
    fill_from_peaks(result, s, chunks, cfg);
  }

  int threads_;
  std::uint64_t budget_;
  std::vector<std::unique_ptr<FastWorkspace>> workspaces_;  ///< one per thread
};

}  // namespace

std::unique_ptr<PeriodBackend> make_period_backend_cpu(const BackendOptions& options) {
  return std::make_unique<OpenMpBackend>(options);
}

}  // namespace astrosweep::period
