#include "correlation_cuda.hpp"

#include <cufft.h>
#include <vector_functions.h>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <utility>
#include <vector>

#include "cell_pool_cuda.hpp"
#include "core/error.hpp"
#include "correlation_launch.hpp"
#include "cuda_memory.hpp"
#include "cufft_plan.hpp"
#include "deredden_launch.hpp"

namespace astrosweep::fdas::kernels {

namespace {

/// A batched complex-to-complex cuFFT plan of `batch` transforms of length n, bound to a stream.
class CufftPlan {
 public:
  CufftPlan(std::size_t n, std::size_t batch, cudaStream_t stream) : plan_(n, batch, CUFFT_C2C, stream) {}
  void run(float2* in, float2* out, int direction) const {
    cuda::cufft_try(cufftExecC2C(plan_.get(), in, out, direction), "executing a transform");
  }
  [[nodiscard]] bool fits(std::size_t n, std::size_t batch) const noexcept { return plan_.fits(n, batch); }

 private:
  cuda::FftPlan plan_;
};

}  // namespace

struct CudaCorrelator::State {
  CorrelationLayout layout;
  std::size_t n_templates = 0;
  std::size_t budget = 0;
  Method method = Method::shared_memory;
  cuda::Stream stream;
  cuda::Event start, stop, downloaded;
  CellPool pool;               // correlate_keeping's cells
  cuda::DeviceMemory kernels;  // n_templates × L spectra
  cuda::DeviceMemory bins, norm, inputs, products, plane, powers;
  cuda::PinnedMemory staging;  // the bins, gathered on the host
  cuda::DeviceMemory twiddle;  // the shared-memory FFTs' table, e^{+2πi m/L} for m < L
  std::unique_ptr<CufftPlan> forward, inverse;
};

bool CudaCorrelator::shared_memory_supports(std::size_t fft_length) { return fused_correlation_supports(fft_length); }

CudaCorrelator::Method CudaCorrelator::method() const noexcept { return state_->method; }

CudaCorrelator::CudaCorrelator(const CorrelationLayout& layout,
                               const std::vector<std::vector<std::complex<double>>>& taps, std::size_t device_budget,
                               Method method)
    : state_(std::make_unique<State>()) {
  layout.check();
  State& s = *state_;
  s.layout = layout;
  s.n_templates = taps.size();
  s.budget = device_budget != 0 ? device_budget : std::size_t{1} << 30;
  s.method = method == Method::shared_memory && shared_memory_supports(layout.fft_length) ? Method::shared_memory
                                                                                          : Method::cufft;
  if (s.method == Method::shared_memory) {
    const std::size_t L = layout.fft_length;
    const std::vector<float2> table = shared_memory_fft_twiddles(L);
    s.twiddle.reserve(L * sizeof(float2));
    AS_CUDA_TRY(cudaMemcpyAsync(s.twiddle.as<float2>(), table.data(), L * sizeof(float2), cudaMemcpyHostToDevice,
                                s.stream.get()));
    s.stream.synchronize();  // `table` goes out of scope
  }
  // The spectra in double on the host (FFTW), then rounded: the kernels carry no FFT error of
  // their own into the float plane.
  const KernelSpectra<double> spectra = transform_kernels<double>(taps, layout.fft_length);
  std::vector<float2> rounded(spectra.values.size());
  for (std::size_t i = 0; i < rounded.size(); ++i)
    rounded[i] =
        make_float2(static_cast<float>(spectra.values[i].real()), static_cast<float>(spectra.values[i].imag()));
  s.kernels.reserve(rounded.size() * sizeof(float2));
  AS_CUDA_TRY(cudaMemcpyAsync(s.kernels.as<float2>(), rounded.data(), rounded.size() * sizeof(float2),
                              cudaMemcpyHostToDevice, s.stream.get()));
  s.stream.synchronize();
}

CudaCorrelator::~CudaCorrelator() = default;

PowerPlane CudaCorrelator::correlate(std::span<const std::complex<float>> spectrum, const SegmentGrid& grid,
                                     bool block_normalise) {
  const DevicePlane d = correlate_on_device(spectrum, grid, block_normalise);
  PowerPlane plane;
  plane.n_z = d.n_z;
  plane.n_r = d.n_r;
  plane.first_bin = d.first_bin;
  plane.numbetween = d.numbetween;
  plane.power.resize(d.n_z * d.n_r);
  if (!plane.power.empty()) {
    AS_CUDA_TRY(cudaMemcpyAsync(plane.power.data(), d.data, plane.power.size() * sizeof(float), cudaMemcpyDeviceToHost,
                                state_->stream.get()));
    state_->stream.synchronize();
  }
  return plane;
}

PowerPlane CudaCorrelator::correlate(std::span<const std::complex<float>> spectrum, std::size_t r_lo, std::size_t r_hi,
                                     bool block_normalise) {
  return correlate(spectrum, uniform_segment_grid(r_lo, r_hi), block_normalise);
}

/// A call's segments: the layout's geometry and, per run of the grid, where its segments, bins
/// and columns lie. All runs' bins lie one after the other in one buffer (and their powers in
/// another), their segments' norms and spread inputs likewise, so one forward transform serves
/// every segment of the grid.
struct CudaCorrelator::Geometry {
  struct Run {
    std::size_t segments = 0;
    std::size_t first_segment = 0;  ///< of all the grid's, in order
    std::size_t n_bins = 0;         ///< bins its segments read, from `first`
    std::size_t bins_offset = 0;    ///< where they lie in the bins buffer
    std::ptrdiff_t first = 0;       ///< spectrum bin of the first (negative: zeros before bin 0)
    std::size_t column = 0;         ///< the plane's column of its first output
    std::size_t columns = 0;        ///< the plane's columns it fills
  };
  SegmentGeometry segment;
  std::vector<Run> runs;
  std::vector<std::pair<std::size_t, std::size_t>> uncovered;  ///< plane columns [begin, end) of no run: zeros
  std::size_t segments = 0;                                    ///< all runs'
  std::size_t n_bins = 0;                                      ///< all runs'
  std::size_t chunk = 0;                                       ///< templates per inverse cuFFT batch
  std::size_t per_template = 0;  ///< bytes of one template's products (and of the spread inputs)
  bool with_plane = true;        ///< false: correlate_keeping, no plane
};

CudaCorrelator::Geometry CudaCorrelator::geometry(const SegmentGrid& grid, DevicePlane& plane) const {
  const State& s = *state_;
  const CorrelationLayout& layout = s.layout;
  check_segment_grid(grid);
  Geometry g;
  g.segment = {layout.fft_length,       static_cast<std::size_t>(layout.numbetween),
               layout.half_width,       layout.useful_outputs(),
               layout.step_bins(),      layout.input_bins(),
               layout.segment_columns()};
  // Half-bin columns for either numbetween (numbetween 1: the odd ones interbinned).
  plane.n_z = s.n_templates;
  plane.n_r = (grid.plane_hi - grid.plane_lo) * 2;
  plane.first_bin = grid.plane_lo;
  plane.numbetween = 2;
  if (plane.n_r == 0 || plane.n_z == 0) return g;
  std::size_t covered = 0;  // the plane's columns below it are a run's or listed as uncovered
  for (const SegmentRun& run : grid.runs) {
    Geometry::Run r;
    r.segments = run_segments(run, layout);
    r.first_segment = g.segments;
    r.n_bins = run_input_bins(run, layout);
    r.bins_offset = g.n_bins;
    r.first = static_cast<std::ptrdiff_t>(run.first_bin) - static_cast<std::ptrdiff_t>(g.segment.half_width);
    r.column = 2 * (run.first_bin - grid.plane_lo);
    r.columns = run.columns;
    if (r.column > covered) g.uncovered.emplace_back(covered, r.column);
    covered = r.column + r.columns;
    g.segments += r.segments;
    g.n_bins += r.n_bins;
    if (r.segments > 0) g.runs.push_back(r);
  }
  if (covered < plane.n_r) g.uncovered.emplace_back(covered, plane.n_r);
  // cuFFT: templates per inverse batch, as many as the budget holds beside the inputs.
  g.per_template = g.segments * g.segment.fft_length * sizeof(float2);
  g.chunk = std::clamp<std::size_t>(s.budget / std::max<std::size_t>(g.per_template, 1), 1, s.n_templates);
  return g;
}

void CudaCorrelator::reserve(const Geometry& g, const DevicePlane& plane) {
  State& s = *state_;
  const bool fused = s.method == Method::shared_memory;
  const cudaStream_t stream = s.stream.get();
  s.bins.reserve(g.n_bins * sizeof(float2));
  s.norm.reserve(g.segments * sizeof(float));
  s.inputs.reserve(g.per_template);
  if (!fused) s.products.reserve(g.chunk * g.per_template);
  if (g.with_plane) s.plane.reserve(plane.n_z * plane.n_r * sizeof(float));
  if (g.segments == 0) return;
  if (!s.forward || !s.forward->fits(g.segment.fft_length, g.segments))
    s.forward = std::make_unique<CufftPlan>(g.segment.fft_length, g.segments, stream);
  if (!fused && (!s.inverse || !s.inverse->fits(g.segment.fft_length, g.segments * g.chunk)))
    s.inverse = std::make_unique<CufftPlan>(g.segment.fft_length, g.segments * g.chunk, stream);
}

// Columns of no run hold zero power (PRESTO computes nothing there: segment_grid.hpp).
void CudaCorrelator::zero_uncovered_columns(const Geometry& g, const DevicePlane& plane) {
  State& s = *state_;
  for (const auto& [begin, end] : g.uncovered)
    AS_CUDA_TRY(cudaMemset2DAsync(s.plane.as<float>() + begin, plane.n_r * sizeof(float), 0,
                                  (end - begin) * sizeof(float), plane.n_z, s.stream.get()));
}

KeepAbove keep_in_run(const KeepAbove& keep, std::size_t first, std::size_t columns) {
  KeepAbove k = keep;
  k.col_begin = std::clamp(keep.col_begin, first, first + columns) - first;
  k.col_end = std::clamp(keep.col_end, first, first + columns) - first;
  k.entry_offset = keep.entry_offset + first;  // entry t·n_cols + (first + c) − b, modulo 2^64
  return k;
}

// The bins and the segments' norms are in s.bins and s.norm (queued): the plane from them, or with
// `keep` (the plane's) the cells above its threshold (only the runs that hold kept columns correlated).
void CudaCorrelator::correlate_bins(const Geometry& geometry, DevicePlane& plane, const KeepAbove* keep) {
  State& s = *state_;
  const SegmentGeometry& g = geometry.segment;
  const cudaStream_t stream = s.stream.get();
  if (keep == nullptr) zero_uncovered_columns(geometry, plane);
  float2* inputs = s.inputs.as<float2>();
  for (const Geometry::Run& run : geometry.runs)
    launch_spread(s.bins.as<float2>() + run.bins_offset, s.norm.as<float>() + run.first_segment,
                  inputs + run.first_segment * g.fft_length, run.segments, g, stream);
  if (geometry.segments > 0) s.forward->run(inputs, inputs, CUFFT_FORWARD);
  const float scale = 1.0F / (static_cast<float>(g.fft_length) * static_cast<float>(g.fft_length));
  float* const plane_data = keep != nullptr ? nullptr : s.plane.as<float>();
  if (s.method == Method::shared_memory) {
    for (const Geometry::Run& run : geometry.runs) {
      const KeepAbove in_run = keep != nullptr ? keep_in_run(*keep, run.column, run.columns) : KeepAbove{};
      if (keep != nullptr && in_run.col_begin == in_run.col_end) continue;
      launch_correlate_fused(inputs + run.first_segment * g.fft_length, s.kernels.as<float2>(), s.twiddle.as<float2>(),
                             PlaneColumns{plane_data, plane.n_r, run.column, run.columns}, s.n_templates, run.segments,
                             scale, g, keep != nullptr ? &in_run : nullptr, stream);
    }
  } else {
    for (std::size_t t0 = 0; t0 < s.n_templates && geometry.segments > 0; t0 += geometry.chunk) {
      const std::size_t n_t = std::min(geometry.chunk, s.n_templates - t0);
      launch_multiply(inputs, s.kernels.as<float2>() + t0 * g.fft_length, s.products.as<float2>(), n_t,
                      geometry.segments, g.fft_length, stream);
      // A short last chunk runs through the full-size plan: the extra transforms read stale
      // products and their output is never extracted.
      s.inverse->run(s.products.as<float2>(), s.products.as<float2>(), CUFFT_INVERSE);
      for (const Geometry::Run& run : geometry.runs)
        launch_extract_power(s.products.as<float2>() + run.first_segment * g.fft_length, geometry.segments,
                             PlaneColumns{plane_data + t0 * plane.n_r, plane.n_r, run.column, run.columns}, n_t,
                             run.segments, scale, g, stream);
    }
  }
  s.stop.record(s.stream);
  s.stream.synchronize();
  last_ms_ = s.stop.since(s.start);
  plane.data = plane_data;
}

namespace {

// Each segment's normalisation from the gathered bins on the host (block_normalisation), run by
// run, on the rank's cores: norm[run.first_segment + k] from the run's bins k·step … + in_bins − 1.
template <class Run>
std::vector<float> host_segment_norms(std::span<const std::complex<float>> bins, const std::vector<Run>& runs,
                                      std::size_t segments, const SegmentGeometry& g, bool block_normalise) {
  std::vector<float> norm(segments, 1.0F);
  if (!block_normalise) return norm;
  for (const Run& run : runs) {
    const auto n_segments = static_cast<std::ptrdiff_t>(run.segments);
#pragma omp parallel for schedule(static)
    for (std::ptrdiff_t k = 0; k < n_segments; ++k)
      norm[run.first_segment + static_cast<std::size_t>(k)] =
          block_normalisation(bins.subspan(run.bins_offset + static_cast<std::size_t>(k) * g.step, g.in_bins));
  }
  return norm;
}

}  // namespace

void CudaCorrelator::load_bins(std::span<const std::complex<float>> spectrum, const Geometry& g,
                               const DevicePlane& plane, bool block_normalise) {
  State& s = *state_;
  // The bins every segment reads, zero outside the spectrum, gathered straight into pinned
  // memory: the upload then runs at the bus's speed (a pageable copy of a 2^23-point series'
  // bins costs ~4 ms of the correlation's device time).
  s.stream.synchronize();  // the previous call's upload from this buffer is done
  s.staging.reserve(g.n_bins * sizeof(float2));
  std::span<std::complex<float>> bins(reinterpret_cast<std::complex<float>*>(s.staging.as<float2>()), g.n_bins);
  for (const Geometry::Run& run : g.runs) {
    const auto n_gathered = static_cast<std::ptrdiff_t>(run.n_bins);
#pragma omp parallel for schedule(static)
    for (std::ptrdiff_t k = 0; k < n_gathered; ++k) {
      const std::ptrdiff_t bin = run.first + k;
      bins[run.bins_offset + static_cast<std::size_t>(k)] = bin >= 0 && static_cast<std::size_t>(bin) < spectrum.size()
                                                                ? spectrum[static_cast<std::size_t>(bin)]
                                                                : std::complex<float>{};
    }
  }
  const std::vector<float> norm = host_segment_norms(bins, g.runs, g.segments, g.segment, block_normalise);
  reserve(g, plane);
  const cudaStream_t stream = s.stream.get();
  s.start.record(s.stream);
  AS_CUDA_TRY(
      cudaMemcpyAsync(s.bins.as<float2>(), bins.data(), g.n_bins * sizeof(float2), cudaMemcpyHostToDevice, stream));
  AS_CUDA_TRY(
      cudaMemcpyAsync(s.norm.as<float>(), norm.data(), g.segments * sizeof(float), cudaMemcpyHostToDevice, stream));
  s.stream.synchronize();  // `norm` goes out of scope
}

void CudaCorrelator::load_bins(const CudaSpectrum::OnDevice& spectrum, const Geometry& g, const DevicePlane& plane,
                               bool block_normalise) {
  State& s = *state_;
  reserve(g, plane);
  const cudaStream_t stream = s.stream.get();
  if (spectrum.ready != nullptr) AS_CUDA_TRY(cudaStreamWaitEvent(stream, spectrum.ready->get(), 0));
  s.start.record(s.stream);  // after the wait: the correlation's own device time
  for (const Geometry::Run& run : g.runs)
    launch_gather_bins(reinterpret_cast<const float2*>(spectrum.data), spectrum.size, run.first,
                       s.bins.as<float2>() + run.bins_offset, run.n_bins, stream);
  if (!block_normalise || segment_norms_support(g.segment.in_bins)) {
    const float* powers = nullptr;  // read only when normalising
    if (block_normalise) {
      s.powers.reserve(g.n_bins * sizeof(float));
      launch_bin_powers(s.bins.as<float2>(), s.powers.as<float>(), g.n_bins, stream);
      powers = s.powers.as<float>();
    }
    for (const Geometry::Run& run : g.runs)
      launch_segment_norms(powers != nullptr ? powers + run.bins_offset : nullptr, run.segments, g.segment.step,
                           g.segment.in_bins, block_normalise, s.norm.as<float>() + run.first_segment, stream);
  } else {
    // Segments too long for a thread block's shared memory (cuFFT segments beyond about 24,500
    // points at numbetween 2): their medians on the host, from the gathered bins brought down.
    s.staging.reserve(g.n_bins * sizeof(float2));
    AS_CUDA_TRY(cudaMemcpyAsync(s.staging.as<float2>(), s.bins.as<float2>(), g.n_bins * sizeof(float2),
                                cudaMemcpyDeviceToHost, stream));
    s.stream.synchronize();
    const std::span<const std::complex<float>> bins(
        reinterpret_cast<const std::complex<float>*>(s.staging.as<float2>()), g.n_bins);
    const std::vector<float> norm = host_segment_norms(bins, g.runs, g.segments, g.segment, block_normalise);
    AS_CUDA_TRY(
        cudaMemcpyAsync(s.norm.as<float>(), norm.data(), g.segments * sizeof(float), cudaMemcpyHostToDevice, stream));
    s.stream.synchronize();  // `norm` goes out of scope
  }
}

template <typename Spectrum>
CudaCorrelator::DevicePlane CudaCorrelator::plane_from(const Spectrum& spectrum, const SegmentGrid& grid,
                                                       bool block_normalise) {
  DevicePlane plane;
  const Geometry g = geometry(grid, plane);
  if (plane.n_r == 0 || plane.n_z == 0) return plane;
  load_bins(spectrum, g, plane, block_normalise);
  correlate_bins(g, plane);
  return plane;
}

CudaCorrelator::DevicePlane CudaCorrelator::correlate_on_device(std::span<const std::complex<float>> spectrum,
                                                                const SegmentGrid& grid, bool block_normalise) {
  return plane_from(spectrum, grid, block_normalise);
}

CudaCorrelator::DevicePlane CudaCorrelator::correlate_on_device(std::span<const std::complex<float>> spectrum,
                                                                std::size_t r_lo, std::size_t r_hi,
                                                                bool block_normalise) {
  return correlate_on_device(spectrum, uniform_segment_grid(r_lo, r_hi), block_normalise);
}

CudaCorrelator::DevicePlane CudaCorrelator::correlate_on_device(const CudaSpectrum::OnDevice& spectrum,
                                                                const SegmentGrid& grid, bool block_normalise) {
  return plane_from(spectrum, grid, block_normalise);
}

CudaCorrelator::DevicePlane CudaCorrelator::correlate_on_device(const CudaSpectrum::OnDevice& spectrum,
                                                                std::size_t r_lo, std::size_t r_hi,
                                                                bool block_normalise) {
  return correlate_on_device(spectrum, uniform_segment_grid(r_lo, r_hi), block_normalise);
}

template <typename Spectrum>
StageCells CudaCorrelator::keep_from(const Spectrum& spectrum, const SegmentGrid& grid, bool block_normalise,
                                     const KeepRule& rule) {
  AS_EXPECTS(keeps_cells(), UsageError, "only the shared-memory correlation keeps cells without a plane");
  State& s = *state_;
  DevicePlane plane;
  Geometry g = geometry(grid, plane);
  g.with_plane = false;
  const auto i_first = static_cast<std::int64_t>(2 * grid.plane_lo);
  AS_EXPECTS(rule.i_begin >= i_first && rule.i_begin <= rule.i_end &&
                 rule.i_end <= i_first + static_cast<std::int64_t>(plane.n_r),
             UsageError, "correlation: the kept columns are not in the plane");
  const auto n_cols = static_cast<std::size_t>(rule.i_end - rule.i_begin);
  AS_EXPECTS(static_cast<std::uint64_t>(plane.n_z) * n_cols < (std::uint64_t{1} << stage_shift), UsageError,
             "correlation: more than 2^58 cells");
  if (plane.n_r == 0 || plane.n_z == 0 || n_cols == 0) return {};
  load_bins(spectrum, g, plane, block_normalise);
  const auto col_begin = static_cast<std::size_t>(rule.i_begin - i_first);
  const KeepAbove keep{s.pool.prepare(1, rule.max_cells, s.stream.get()),
                       rule.powcut,
                       col_begin,
                       col_begin + n_cols,
                       n_cols,
                       std::size_t{0} - col_begin};
  correlate_bins(g, plane, &keep);
  return s.pool.collect({1}, rule.max_cells, rule.i_begin, n_cols, s.stream, s.downloaded).front();
}

StageCells CudaCorrelator::correlate_keeping(const CudaSpectrum::OnDevice& spectrum, const SegmentGrid& grid,
                                             bool block_normalise, const KeepRule& rule) {
  return keep_from(spectrum, grid, block_normalise, rule);
}

StageCells CudaCorrelator::correlate_keeping(std::span<const std::complex<float>> spectrum, const SegmentGrid& grid,
                                             bool block_normalise, const KeepRule& rule) {
  return keep_from(spectrum, grid, block_normalise, rule);
}

StageCells CudaCorrelator::correlate_keeping(const CudaSpectrum::OnDevice& spectrum, std::size_t r_lo, std::size_t r_hi,
                                             bool block_normalise, const KeepRule& rule) {
  return keep_from(spectrum, uniform_segment_grid(r_lo, r_hi), block_normalise, rule);
}

StageCells CudaCorrelator::correlate_keeping(std::span<const std::complex<float>> spectrum, std::size_t r_lo,
                                             std::size_t r_hi, bool block_normalise, const KeepRule& rule) {
  return keep_from(spectrum, uniform_segment_grid(r_lo, r_hi), block_normalise, rule);
}

std::vector<float2> shared_memory_fft_twiddles(std::size_t fft_length) {
  const auto P = static_cast<std::size_t>(shared_fft_points(fft_length));
  std::vector<float2> table(fft_length);  // L − P used
  for (std::size_t ns = P; ns < fft_length;) {
    const std::size_t radix = ns * P <= fft_length ? P : fft_length / ns;
    for (std::size_t r = 1; r < radix; ++r)
      for (std::size_t k = 0; k < ns; ++k) {
        const double angle = 2 * std::numbers::pi * static_cast<double>(r * k) / static_cast<double>(ns * radix);
        table[ns - P + (r - 1) * ns + k] =
            make_float2(static_cast<float>(std::cos(angle)), static_cast<float>(std::sin(angle)));
      }
    ns *= radix;
  }
  return table;
}

}  // namespace astrosweep::fdas::kernels
