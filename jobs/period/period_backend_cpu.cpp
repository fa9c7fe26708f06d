// The OpenMP backend. A block's objects run in parallel with dynamic scheduling (lengths differ by
// 100x); an object whose cost dominates the block runs alone, parallel over frequency chunks. Both
// paths evaluate identical chunks with the same kernel, so a value never depends on the path.

#include <algorithm>
#include <limits>

#include "core/cpu_affinity.hpp"
#include "core/error.hpp"
#include "lomb_scargle.hpp"
#include "peaks.hpp"
#include "period_backend.hpp"
#include "period_backend_common.hpp"
#include "period_backend_cpu.hpp"

namespace astrosweep::period {

namespace {

static_assert(chunk_freqs % CpuKernelShape<float>::panel == 0 && chunk_freqs % CpuKernelShape<double>::panel == 0);

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
    double total = 0;
    for (const auto& s : series) total += s.computable() ? static_cast<double>(s.n_used()) : 0.0;
    std::vector<std::size_t> batch, alone;
    for (std::size_t i = 0; i < n; ++i) {
      const bool dominant = series[i].computable() && threads_ > 1 && grid.n > chunk_freqs &&
                            static_cast<double>(series[i].n_used()) > total / (2.0 * threads_);
      (dominant ? alone : batch).push_back(i);
    }
    run_batch<T>(series, batch, cfg, results, sink);
    for (std::size_t i : alone) run_alone<T>(series[i], i, cfg, results[i], sink);
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
};

}  // namespace

std::unique_ptr<PeriodBackend> make_period_backend_cpu(const BackendOptions& options) {
  return std::make_unique<OpenMpBackend>(options);
}

}  // namespace astrosweep::period
