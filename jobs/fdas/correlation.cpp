#include "correlation.hpp"

#include <fftw3.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <mutex>

#include "core/cpu_affinity.hpp"
#include "core/error.hpp"
#include "core/fftw_planner.hpp"
#include "deredden_arith.hpp"
#include "interbin.hpp"
#include "segment_grid.hpp"
#include "spectrum.hpp"

namespace astrosweep::fdas {

namespace {

// One complex transform of length L in float or double: FFTW's two APIs behind one type, with the
// plan made once (FFTW_ESTIMATE: deterministic, no timing runs) and executed on any aligned
// buffers of that length. Plans are made and destroyed under the process's FFTW planner lock.
template <class Real>
struct Fft;

template <>
struct Fft<float> {
  using Complex = fftwf_complex;
  fftwf_plan plan = nullptr;
  Fft(std::size_t n, int sign) {
    const std::scoped_lock lock(fftw_planner_lock());
    auto* a = static_cast<Complex*>(fftwf_malloc(sizeof(Complex) * n));
    AS_EXPECTS(a != nullptr, RuntimeError, "out of memory for an FFT buffer of " + std::to_string(n));
    plan = fftwf_plan_dft_1d(static_cast<int>(n), a, a, sign, FFTW_ESTIMATE);
    fftwf_free(a);
    AS_EXPECTS(plan != nullptr, RuntimeError, "FFTW cannot plan a transform of length " + std::to_string(n));
  }
  ~Fft() {
    const std::scoped_lock lock(fftw_planner_lock());
    fftwf_destroy_plan(plan);
  }
  Fft(const Fft&) = delete;
  Fft& operator=(const Fft&) = delete;
  void run(std::complex<float>* in, std::complex<float>* out) const {
    fftwf_execute_dft(plan, reinterpret_cast<Complex*>(in), reinterpret_cast<Complex*>(out));
  }
  static void* allocate(std::size_t bytes) { return fftwf_malloc(bytes); }
  static void release(void* p) { fftwf_free(p); }
};

template <>
struct Fft<double> {
  using Complex = fftw_complex;
  fftw_plan plan = nullptr;
  Fft(std::size_t n, int sign) {
    const std::scoped_lock lock(fftw_planner_lock());
    auto* a = static_cast<Complex*>(fftw_malloc(sizeof(Complex) * n));
    AS_EXPECTS(a != nullptr, RuntimeError, "out of memory for an FFT buffer of " + std::to_string(n));
    plan = fftw_plan_dft_1d(static_cast<int>(n), a, a, sign, FFTW_ESTIMATE);
    fftw_free(a);
    AS_EXPECTS(plan != nullptr, RuntimeError, "FFTW cannot plan a transform of length " + std::to_string(n));
  }
  ~Fft() {
    const std::scoped_lock lock(fftw_planner_lock());
    fftw_destroy_plan(plan);
  }
  Fft(const Fft&) = delete;
  Fft& operator=(const Fft&) = delete;
  void run(std::complex<double>* in, std::complex<double>* out) const {
    fftw_execute_dft(plan, reinterpret_cast<Complex*>(in), reinterpret_cast<Complex*>(out));
  }
  static void* allocate(std::size_t bytes) { return fftw_malloc(bytes); }
  static void release(void* p) { fftw_free(p); }
};

/// A buffer with FFTW's alignment, so plans made on one buffer run on any other.
template <class Real>
class AlignedBuffer {
 public:
  explicit AlignedBuffer(std::size_t n)
      : data_(static_cast<std::complex<Real>*>(Fft<Real>::allocate(sizeof(std::complex<Real>) * n))), size_(n) {
    AS_EXPECTS(data_ != nullptr, RuntimeError, "out of memory for an FFT buffer of " + std::to_string(n));
  }
  ~AlignedBuffer() { Fft<Real>::release(data_); }
  AlignedBuffer(const AlignedBuffer&) = delete;
  AlignedBuffer& operator=(const AlignedBuffer&) = delete;
  [[nodiscard]] std::complex<Real>* data() noexcept { return data_; }
  [[nodiscard]] std::size_t size() const noexcept { return size_; }

 private:
  std::complex<Real>* data_;
  std::size_t size_;
};

}  // namespace

std::size_t CorrelationLayout::useful_outputs() const noexcept {
  const std::size_t b = static_cast<std::size_t>(std::max(numbetween, 1));
  // Output p reads inputs p − b·m … p + b·m: up to L − 1 without wrapping. With b = 1 the last
  // kept output's neighbour must be clean too, so one output fewer is kept.
  const std::size_t clean = b == 1 ? 1 : 0;
  const std::size_t width = 2 * b * half_width + clean;
  if (fft_length <= width) return 0;
  return (fft_length - width) / b * b;
}

void CorrelationLayout::check() const {
  AS_EXPECTS(numbetween == 1 || numbetween == 2, UsageError,
             "numbetween must be 1 or 2, not " + std::to_string(numbetween));
  AS_EXPECTS(useful_outputs() > 0, UsageError,
             "an FFT length of " + std::to_string(fft_length) + " leaves no useful output for templates " +
                 std::to_string(half_width) + " bins wide on each side",
             "use a longer segment (fft length >= " +
                 std::to_string(2 * static_cast<std::size_t>(numbetween) * half_width + 2) + ")");
}

float block_normalisation(std::span<const std::complex<float>> bins) {
  std::vector<float> power(bins.size());
  for (std::size_t i = 0; i < bins.size(); ++i) power[i] = arith::bin_power(bins[i].real(), bins[i].imag());
  return arith::segment_norm_from_median(block_median(power));
}

template <class Real>
KernelSpectra<Real> transform_kernels(const std::vector<std::vector<std::complex<double>>>& taps,
                                      std::size_t fft_length) {
  KernelSpectra<Real> k;
  k.fft_length = fft_length;
  k.n_templates = taps.size();
  k.values.resize(taps.size() * fft_length);
  const Fft<Real> forward(fft_length, FFTW_FORWARD);
  AlignedBuffer<Real> buffer(fft_length);
  for (std::size_t t = 0; t < taps.size(); ++t) {
    AS_EXPECTS(taps[t].size() == fft_length, UsageError,
               "template " + std::to_string(t) + " has " + std::to_string(taps[t].size()) +
                   " taps, not the FFT length " + std::to_string(fft_length));
    for (std::size_t j = 0; j < fft_length; ++j) buffer.data()[j] = std::complex<Real>(taps[t][j]);
    forward.run(buffer.data(), buffer.data());
    std::copy(buffer.data(), buffer.data() + fft_length,
              k.values.begin() + static_cast<std::ptrdiff_t>(t * fft_length));
  }
  return k;
}

namespace {

/// One segment of a grid: its run and its place in that run.
struct GridSegment {
  const SegmentRun* run;
  std::size_t index;
};

std::vector<GridSegment> grid_segment_list(const SegmentGrid& grid, const CorrelationLayout& layout) {
  std::vector<GridSegment> list;
  for (const SegmentRun& run : grid.runs)
    for (std::size_t k = 0; k < run_segments(run, layout); ++k) list.push_back({&run, k});
  return list;
}

}  // namespace

template <class Real>
PowerPlane correlate(std::span<const std::complex<float>> spectrum, const KernelSpectra<Real>& kernels,
                     const CorrelationLayout& layout, const SegmentGrid& grid, const CorrelationOptions& options) {
  layout.check();
  AS_EXPECTS(kernels.fft_length == layout.fft_length, UsageError, "kernel spectra and layout differ in FFT length");
  check_segment_grid(grid);
  const std::size_t L = layout.fft_length;
  const std::size_t b = static_cast<std::size_t>(layout.numbetween);
  const std::size_t m = layout.half_width;
  const std::size_t step = layout.step_bins();
  const std::size_t segment_columns = layout.segment_columns();
  const std::size_t in_bins = layout.input_bins();

  PowerPlane plane;
  plane.n_z = kernels.n_templates;
  plane.n_r = (grid.plane_hi - grid.plane_lo) * 2;
  plane.first_bin = grid.plane_lo;
  plane.numbetween = 2;
  plane.power.assign(plane.n_z * plane.n_r, 0.0F);  // a column of no run stays zero
  if (plane.n_r == 0 || plane.n_z == 0) return plane;
  const std::vector<GridSegment> segments = grid_segment_list(grid, layout);
  const auto n_segments = static_cast<std::ptrdiff_t>(segments.size());

  const Fft<Real> forward(L, FFTW_FORWARD);
  const Fft<Real> inverse(L, FFTW_BACKWARD);
  const double scale = 1.0 / (static_cast<double>(L) * static_cast<double>(L));
  const double interbin_scale = scale * interbin::factor;
  const int threads = options.threads > 0 ? options.threads : affinity::default_threads();

#pragma omp parallel num_threads(threads)
  {
    AlignedBuffer<Real> input(L), product(L);
    std::vector<std::complex<float>> bins(in_bins);
#pragma omp for schedule(dynamic)
    for (std::ptrdiff_t s = 0; s < n_segments; ++s) {
      const SegmentRun& run = *segments[static_cast<std::size_t>(s)].run;
      const std::size_t k = segments[static_cast<std::size_t>(s)].index;
      // The segment's first input bin: its first kept output (first_bin + k·step) less the half-width.
      const auto k0 = static_cast<std::ptrdiff_t>(run.first_bin + k * step) - static_cast<std::ptrdiff_t>(m);
      for (std::size_t q = 0; q < in_bins; ++q) {
        const std::ptrdiff_t bin = k0 + static_cast<std::ptrdiff_t>(q);
        bins[q] = bin >= 0 && static_cast<std::size_t>(bin) < spectrum.size() ? spectrum[static_cast<std::size_t>(bin)]
                                                                              : std::complex<float>{};
      }
      const float norm = options.block_normalise ? block_normalisation(bins) : 1.0F;
      std::fill(input.data(), input.data() + L, std::complex<Real>{});
      for (std::size_t q = 0; q < in_bins; ++q) input.data()[b * q] = std::complex<Real>(bins[q]) * Real(norm);
      forward.run(input.data(), input.data());
      const std::size_t first_column = 2 * (run.first_bin - grid.plane_lo) + k * segment_columns;
      const std::size_t columns = std::min(segment_columns, run.columns - k * segment_columns);
      for (std::size_t t = 0; t < plane.n_z; ++t) {
        const auto g = kernels.row(t);
        for (std::size_t j = 0; j < L; ++j) product.data()[j] = input.data()[j] * g[j];
        inverse.run(product.data(), product.data());
        const std::complex<Real>* kept = product.data() + b * m;
        float* row = plane.power.data() + t * plane.n_r + first_column;
        for (std::size_t u = 0; u < columns; ++u) {
          const std::size_t c = interbin::first_output(u, b);
          row[u] = interbin::interbinned(u, b)
                       ? static_cast<float>(static_cast<double>(std::norm(kept[c] - kept[c + 1])) * interbin_scale)
                       : static_cast<float>(static_cast<double>(std::norm(kept[c])) * scale);
        }
      }
    }
  }
  return plane;
}

template <class Real>
PowerPlane correlate(std::span<const std::complex<float>> spectrum, const KernelSpectra<Real>& kernels,
                     const CorrelationLayout& layout, std::size_t r_lo, std::size_t r_hi,
                     const CorrelationOptions& options) {
  AS_EXPECTS(r_lo <= r_hi, UsageError, "empty or reversed bin range for the correlation");
  return correlate(spectrum, kernels, layout, uniform_segment_grid(r_lo, r_hi), options);
}

template KernelSpectra<float> transform_kernels<float>(const std::vector<std::vector<std::complex<double>>>&,
                                                       std::size_t);
template KernelSpectra<double> transform_kernels<double>(const std::vector<std::vector<std::complex<double>>>&,
                                                         std::size_t);
template PowerPlane correlate<float>(std::span<const std::complex<float>>, const KernelSpectra<float>&,
                                     const CorrelationLayout&, const SegmentGrid&, const CorrelationOptions&);
template PowerPlane correlate<double>(std::span<const std::complex<float>>, const KernelSpectra<double>&,
                                      const CorrelationLayout&, const SegmentGrid&, const CorrelationOptions&);
template PowerPlane correlate<float>(std::span<const std::complex<float>>, const KernelSpectra<float>&,
                                     const CorrelationLayout&, std::size_t, std::size_t, const CorrelationOptions&);
template PowerPlane correlate<double>(std::span<const std::complex<float>>, const KernelSpectra<double>&,
                                      const CorrelationLayout&, std::size_t, std::size_t, const CorrelationOptions&);

}  // namespace astrosweep::fdas
