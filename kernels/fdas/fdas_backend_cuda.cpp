// The CUDA fdas backend: host side. Per series the spectrum is made, normalised and zapped on the
// device (CudaSpectrum, the CPU's arithmetic bit for bit after the transform) and stays there: the
// correlation plane is made from it on the device (CudaCorrelator::correlate_on_device, the bins
// gathered and the segments' medians taken there) and summed and thresholded where it lies
// (CudaHarmonicDetector, one fused pass) — for a search of one harmonic the correlation keeps the
// cells above the threshold itself and no plane is made; only each stage's cells above its
// threshold cross to the host, where insert_stage_cells merges them into the series' list exactly as the CPU backend
// does, and the spectrum's host copy for polishing comes down meanwhile on its own stream. The
// geometry and the thresholds come from search_geometry, the CPU's own function.

#include "fdas_backend_cuda.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <optional>

#include "core/error.hpp"
#include "correlation_cuda.hpp"
#include "cuda_device.hpp"
#include "cuda_memory.hpp"
#include "harmonic_sum_cuda.hpp"
#include "spectrum_cuda.hpp"

namespace astrosweep::fdas {

namespace {

/// The most cells above their stage's threshold that the device keeps: a search with more is not
/// normalised noise at that threshold (CudaHarmonicDetector throws RuntimeError then).
constexpr std::size_t max_kept_cells = std::size_t{1} << 22;

/// Bytes of device memory one series' search allocates, from the sizes of the correlator's and the
/// harmonic sum's buffers (cuFFT's work areas aside): `fixed` whatever the correlator's batch, plus
/// `per_template` for each template of an inverse-cuFFT batch (none with the shared-memory method).
struct DeviceNeed {
  std::size_t fixed = 0;
  std::size_t per_template = 0;
  std::size_t cells = 0;  ///< the harmonic sum's cap on cells above a threshold, all stages
};

DeviceNeed device_need(const TemplateBank& bank, const SearchGeometry& g, std::size_t spectrum_bins) {
  const CorrelationLayout& layout = bank.layout;
  const std::size_t L = layout.fft_length;
  const std::size_t n_z = bank.taps.size();
  const std::size_t n_r = (g.grid.plane_hi - g.grid.plane_lo) * 2;  // half bins, for either numbetween
  const std::size_t segments = grid_segments(g.grid, layout);
  const std::size_t n_bins = grid_input_bins(g.grid, layout);
  const auto n_cols = static_cast<std::size_t>(std::max<std::int64_t>(0, g.i_end - g.i_begin));
  DeviceNeed need;
  need.per_template = std::max<std::size_t>(1, segments) * L * 8;  // one template's products, complex float
  // Every cell of every stage, when that is fewer (a narrow band at a low threshold keeps them all).
  need.cells = std::min(max_kept_cells, std::max<std::size_t>(1, g.stages.size() * n_z * n_cols));
  need.fixed = n_z * L * 8                                               // kernel spectra
               + n_bins * 12 + segments * 4 + need.per_template          // bins, their powers, norms, inputs
               + n_z * n_r * 4                                           // the plane
               + kernels::CudaSpectrum::device_bytes(2 * spectrum_bins)  // the spectrum's buffers, kept
               + kernels::CudaHarmonicDetector::device_bytes(static_cast<int>(n_z), g.stages.back().numharm,
                                                             need.cells);  // its tables, the cells kept
  return need;
}

class CudaBackend final : public FdasBackend {
 public:
  CudaBackend(const TemplateBank& bank, const BackendOptions& options)
      : device_(cuda::choose_device(options)), bank_(bank) {}

  [[nodiscard]] std::string describe() const override {
    const bool shared = kernels::CudaCorrelator::shared_memory_supports(bank_.layout.fft_length);
    return device_.describe(std::to_string(device_.memory_budget >> 20) + " MiB") +
           (shared ? ": inverse FFTs in shared memory, " : ": cuFFT, ") + std::to_string(bank_.taps.size()) +
           " templates of " + std::to_string(bank_.layout.fft_length) + " points";
  }

  [[nodiscard]] std::string usage() const override {
    const double per_series = series_ > 0 ? 1.0 / static_cast<double>(series_) : 0.0;
    char line[512];
    std::snprintf(line, sizeof line,
                  "GPU %d: %.0f MiB device memory at most; on the device: correlation %.3f s, harmonic sum "
                  "and thresholds %.3f s (%.3f s with their transfers); %zu series; per series (device events): "
                  "correlation %.2f ms, harmonic sum %.2f ms, candidate download %.2f ms",
                  device_.index, static_cast<double>(peak_device_bytes_) / (1 << 20), correlation_ms_ / 1e3,
                  harmonic_ms_ / 1e3, harmonic_seconds_, series_, correlation_ms_ * per_series,
                  harmonic_ms_ * per_series, download_ms_ * per_series);
    return line;
  }

  std::vector<std::complex<float>> spectrum(std::span<const float> samples, std::size_t n_fft) override {
    const cuda::DeviceScope scope(device_.index);
    return spectrum_.transform(samples, n_fft);
  }

  SeriesCandidates search(std::span<const std::complex<float>> spectrum, const SearchSettings& settings) override {
    const cuda::DeviceScope scope(device_.index);
    const SearchGeometry geometry = search_geometry(spectrum.size(), bank_, settings);
    return search_from(spectrum, spectrum.size(), geometry, settings);
  }

  /// The spectrum made, normalised and zapped on the device and searched there; its host copy
  /// comes down on the spectrum's stream while the correlator and the harmonic sum run on theirs.
  SpectrumSearch search_samples(std::span<const float> samples, const SpectrumRequest& request,
                                const SearchSettings& settings) override {
    const cuda::DeviceScope scope(device_.index);
    using Clock = std::chrono::steady_clock;
    const auto t = Clock::now();
    spectrum_.transform_on_device(samples, request.n_fft);
    if (request.deredden)
      spectrum_.deredden();
    else if (request.known_variance_factor > 0)
      spectrum_.scale(request.known_variance_factor);
    spectrum_.zero(request.birdies);
    const kernels::CudaSpectrum::OnDevice on_device = spectrum_.on_device();
    spectrum_.download();
    // No wait for the spectrum here: the geometry (the spectrum's length alone decides it) and the
    // correlation's launches are made while the device makes the spectrum, and the correlator's
    // stream waits for `ready` on the device, so the GPU goes from one to the other without a gap.
    const SearchGeometry geometry = search_geometry(on_device.size, bank_, settings);
    SpectrumSearch result;
    result.found = search_from(on_device, on_device.size, geometry, settings);
    result.spectrum = spectrum_.host_copy();
    // The phases overlap: the spectrum's is its device time (events), the search the rest.
    const double wall = std::chrono::duration<double>(Clock::now() - t).count();
    result.spectrum_seconds = std::min(wall, static_cast<double>(spectrum_.device_ms_to_ready()) / 1e3);
    result.search_seconds = wall - result.spectrum_seconds;
    return result;
  }

 private:
  /// The spectrum (host or device) correlated and its cells above the thresholds found: for one
  /// harmonic straight from the correlation (no plane; the cells the harmonic sum's stage 0 would
  /// keep, bit for bit), else from the plane summed and thresholded on the device.
  template <typename Spectrum>
  SeriesCandidates search_from(const Spectrum& spectrum, std::size_t spectrum_bins, const SearchGeometry& geometry,
                               const SearchSettings& settings) {
    kernels::CudaCorrelator& correlator = correlator_for(geometry, spectrum_bins);
    std::vector<kernels::StageCells> cells;
    if (geometry.stages.size() == 1 && correlator.keeps_cells()) {
      const kernels::CudaCorrelator::KeepRule rule{geometry.i_begin, geometry.i_end, geometry.stages[0].powcut,
                                                   need_.cells};
      cells.push_back(correlator.correlate_keeping(spectrum, geometry.grid, settings.block_normalise, rule));
      correlation_ms_ += static_cast<double>(correlator.last_device_ms());
    } else {
      const auto plane = correlator.correlate_on_device(spectrum, geometry.grid, settings.block_normalise);
      correlation_ms_ += static_cast<double>(correlator.last_device_ms());
      cells = detect(plane, geometry);
    }
    return merged(cells, geometry, settings);
  }

  /// The plane summed and thresholded on the device.
  std::vector<kernels::StageCells> detect(const kernels::CudaCorrelator::DevicePlane& plane,
                                          const SearchGeometry& geometry) {
    const auto started = std::chrono::steady_clock::now();
    const PowerPlaneView view{plane.data, geometry.z_max, static_cast<std::int64_t>(2 * plane.first_bin),
                              static_cast<std::int64_t>(plane.n_r)};
    std::vector<float> powcut;
    for (const StageTrials& stage : geometry.stages) powcut.push_back(stage.powcut);
    auto cells =
        detector_.detect(view, geometry.i_begin, geometry.i_end, geometry.stages.back().numharm, powcut, need_.cells);
    harmonic_ms_ += static_cast<double>(detector_.last_device_ms());
    download_ms_ += static_cast<double>(detector_.last_download_ms());
    harmonic_seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    return cells;
  }

  /// Each stage's cells merged into the series' list on the host, as the CPU backend does.
  SeriesCandidates merged(const std::vector<kernels::StageCells>& cells, const SearchGeometry& geometry,
                          const SearchSettings& settings) {
    SeriesCandidates result;
    CandidateList list(settings.max_candidates);
    for (std::size_t s = 0; s < cells.size(); ++s) {
      StageTrials trials = geometry.stages[s];
      trials.above = insert_stage_cells(trials, static_cast<int>(s), geometry.z_max,
                                        {cells[s].row, cells[s].column, cells[s].power}, list);
      result.stages.push_back(trials);
    }
    result.candidates = list.candidates();
    result.overflowed = list.overflowed();
    ++series_;
    return result;
  }

  /// The correlator, made for the first series. With the shared-memory method (segment lengths
  /// 256 … 4096) it needs no more than the plane and its inputs. With cuFFT, an inverse-FFT batch
  /// as large as the budget leaves room for beside the plane and the harmonic sum (all series of a
  /// run share one length, so it is made once); made again only when a series needs a smaller batch.
  kernels::CudaCorrelator& correlator_for(const SearchGeometry& geometry, std::size_t spectrum_bins) {
    need_ = device_need(bank_, geometry, spectrum_bins);
    // The shared-memory method keeps no products: one correlator, whatever the budget.
    if (kernels::CudaCorrelator::shared_memory_supports(bank_.layout.fft_length)) need_.per_template = 0;
    const std::uint64_t budget = device_.memory_budget;
    AS_EXPECTS(need_.fixed + need_.per_template <= budget, RuntimeError,
               "the GPU memory budget of " + std::to_string(budget >> 20) + " MiB cannot hold a series' plane (" +
                   std::to_string((need_.fixed + need_.per_template) >> 20) + " MiB with its harmonic sum)",
               "raise --gpu-memory-mb, run fewer ranks per GPU, or use --backend cpu");
    if (need_.per_template == 0) {
      if (!correlator_) correlator_.emplace(bank_.layout, bank_.taps);
      peak_device_bytes_ = std::max(peak_device_bytes_, need_.fixed);
      return *correlator_;
    }
    const std::size_t batch =
        std::clamp<std::size_t>((budget - need_.fixed) / need_.per_template, 1, bank_.taps.size());
    // The correlator batches as many templates as its budget holds of this series' products.
    auto batch_of = [&](std::size_t correlator_budget) {
      return std::clamp<std::size_t>(correlator_budget / need_.per_template, 1, bank_.taps.size());
    };
    if (!correlator_ || batch_of(correlator_budget_) > batch) {
      correlator_.reset();  // its buffers go before the new one's come
      correlator_budget_ = batch * need_.per_template;
      correlator_.emplace(bank_.layout, bank_.taps, correlator_budget_);
    }
    peak_device_bytes_ = std::max(peak_device_bytes_, need_.fixed + batch_of(correlator_budget_) * need_.per_template);
    return *correlator_;
  }

  const cuda::DeviceChoice device_;  ///< first: chosen and made current before any CUDA handle
  const TemplateBank& bank_;
  std::optional<kernels::CudaCorrelator> correlator_;
  kernels::CudaHarmonicDetector detector_;
  kernels::CudaSpectrum spectrum_;
  std::size_t correlator_budget_ = 0;
  DeviceNeed need_;
  double correlation_ms_ = 0, harmonic_ms_ = 0, download_ms_ = 0, harmonic_seconds_ = 0;
  std::size_t peak_device_bytes_ = 0, series_ = 0;
};

}  // namespace

std::unique_ptr<FdasBackend> make_fdas_backend_cuda(const TemplateBank& bank, const BackendOptions& options) {
  return std::make_unique<CudaBackend>(bank, options);
}

}  // namespace astrosweep::fdas
