#pragma once
// The overlap-save correlation on a GPU (the twin of jobs/fdas/correlation.cpp; same geometry, the
// same segment grid and the same power): every segment of every run of the grid has its spread
// input transformed once in one batched forward cuFFT, then, by default, one kernel per run that
// per segment and template multiplies, runs the inverse FFT in shared memory and writes the
// segment's columns into the run's (Method::shared_memory, the seed's method; segment lengths
// 256 … 4096). Method::cufft is the baseline the spec measures it against: per block of
// templates a product array, one batched inverse cuFFT through global memory and the extraction.
// Plain C++: the job includes this header without CUDA's.

#include <complex>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "correlation.hpp"
#include "harmonic_sum_cuda.hpp"
#include "segment_grid.hpp"
#include "spectrum_cuda.hpp"

namespace astrosweep::fdas::kernels {

struct KeepAbove;  // correlation_launch.hpp

class CudaCorrelator {
 public:
  enum class Method { shared_memory, cufft };

  /// Whether the shared-memory method has an FFT of `fft_length` points (else cuFFT is used).
  static bool shared_memory_supports(std::size_t fft_length);

  /// The kernel spectra are made on the device from the templates' circular taps (as
  /// transform_kernels does); `device_budget` bytes bound the batch buffers (0: 1 GiB).
  /// `method` shared_memory falls back to cufft where the segment length is not supported.
  CudaCorrelator(const CorrelationLayout& layout, const std::vector<std::vector<std::complex<double>>>& taps,
                 std::size_t device_budget = 0, Method method = Method::shared_memory);
  ~CudaCorrelator();
  CudaCorrelator(const CudaCorrelator&) = delete;
  CudaCorrelator& operator=(const CudaCorrelator&) = delete;

  /// The plane of `grid` (bins [grid.plane_lo, grid.plane_hi)), as correlate() computes it (block
  /// normalisation factors are computed on the host, one median per segment); columns of no run
  /// are zero.
  PowerPlane correlate(std::span<const std::complex<float>> spectrum, const SegmentGrid& grid,
                       bool block_normalise = true);
  /// The plane for bins [r_lo, r_hi), its segments from r_lo (uniform_segment_grid): so for every
  /// call below that takes r_lo, r_hi.
  PowerPlane correlate(std::span<const std::complex<float>> spectrum, std::size_t r_lo, std::size_t r_hi,
                       bool block_normalise = true);

  /// The same plane left in device memory (owned by this correlator, valid until its next call;
  /// the stream is synchronised): the harmonic sum reads it there (harmonic_detect_cuda_on_device).
  struct DevicePlane {
    const float* data = nullptr;  ///< device pointer, n_z × n_r floats, z-major
    std::size_t n_z = 0, n_r = 0, first_bin = 0;
    int numbetween = 2;  ///< columns per bin (2 for either correlation, as PowerPlane)
  };
  DevicePlane correlate_on_device(std::span<const std::complex<float>> spectrum, const SegmentGrid& grid,
                                  bool block_normalise = true);
  DevicePlane correlate_on_device(std::span<const std::complex<float>> spectrum, std::size_t r_lo, std::size_t r_hi,
                                  bool block_normalise = true);

  /// The same plane from a spectrum left in device memory (CudaSpectrum::on_device; this stream
  /// waits for its `ready` event): the bins gathered and each segment's normalisation (its median)
  /// taken on the device, so the spectrum neither comes down nor goes up again. The same plane,
  /// bit for bit, as the overload above on a host copy of that spectrum.
  DevicePlane correlate_on_device(const CudaSpectrum::OnDevice& spectrum, const SegmentGrid& grid,
                                  bool block_normalise = true);
  DevicePlane correlate_on_device(const CudaSpectrum::OnDevice& spectrum, std::size_t r_lo, std::size_t r_hi,
                                  bool block_normalise = true);

  /// A search of one harmonic (numharm 1) straight from the correlation: the cells of half-bin
  /// columns [i_begin, i_end) (plane column c is half bin 2·plane_lo + c) whose power is above
  /// `powcut`, z-major and r-ascending, bit for bit what CudaHarmonicDetector's stage 0 finds in
  /// the plane — without the plane, which is neither written nor read. RuntimeError past
  /// `max_cells`, as the detector.
  struct KeepRule {
    std::int64_t i_begin = 0, i_end = 0;
    float powcut = 0;
    std::size_t max_cells = std::size_t{1} << 22;
  };
  StageCells correlate_keeping(const CudaSpectrum::OnDevice& spectrum, const SegmentGrid& grid, bool block_normalise,
                               const KeepRule& rule);
  StageCells correlate_keeping(std::span<const std::complex<float>> spectrum, const SegmentGrid& grid,
                               bool block_normalise, const KeepRule& rule);
  StageCells correlate_keeping(const CudaSpectrum::OnDevice& spectrum, std::size_t r_lo, std::size_t r_hi,
                               bool block_normalise, const KeepRule& rule);
  StageCells correlate_keeping(std::span<const std::complex<float>> spectrum, std::size_t r_lo, std::size_t r_hi,
                               bool block_normalise, const KeepRule& rule);

  /// Whether correlate_keeping is there: the shared-memory method.
  [[nodiscard]] bool keeps_cells() const noexcept { return method() == Method::shared_memory; }

  /// The method in use.
  [[nodiscard]] Method method() const noexcept;

  /// Milliseconds of device time of the last correlate() (events around its kernels and FFTs).
  [[nodiscard]] float last_device_ms() const noexcept { return last_ms_; }

 private:
  struct State;
  struct Geometry;
  Geometry geometry(const SegmentGrid& grid, DevicePlane& plane) const;
  void reserve(const Geometry& g, const DevicePlane& plane);
  void zero_uncovered_columns(const Geometry& g, const DevicePlane& plane);
  void load_bins(std::span<const std::complex<float>> spectrum, const Geometry& g, const DevicePlane& plane,
                 bool block_normalise);
  void load_bins(const CudaSpectrum::OnDevice& spectrum, const Geometry& g, const DevicePlane& plane,
                 bool block_normalise);
  void correlate_bins(const Geometry& g, DevicePlane& plane, const KeepAbove* keep = nullptr);
  template <typename Spectrum>
  DevicePlane plane_from(const Spectrum& spectrum, const SegmentGrid& grid, bool block_normalise);
  template <typename Spectrum>
  StageCells keep_from(const Spectrum& spectrum, const SegmentGrid& grid, bool block_normalise, const KeepRule& rule);
  std::unique_ptr<State> state_;
  float last_ms_ = 0;
};

}  // namespace astrosweep::fdas::kernels
