#pragma once
// The overlap-save correlation on a GPU (the twin of jobs/fdas/correlation.cpp; same geometry and
// the same power): every segment's spread input transformed once in one batched forward cuFFT,
// then, by default, one kernel that per segment and template multiplies, runs the inverse FFT in
// shared memory and writes the segment's columns (Method::shared_memory, the seed's method; segment
// lengths 256 … 4096). Method::cufft is the baseline the spec measures it against: per block of
// templates a product array, one batched inverse cuFFT through global memory and the extraction.
// Plain C++: the job includes this header without CUDA's.

#include <complex>
#include <cstddef>
#include <memory>
#include <span>
#include <vector>

#include "correlation.hpp"
#include "spectrum_cuda.hpp"

namespace astrosweep::fdas::kernels {

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

  /// The plane for bins [r_lo, r_hi), as correlate() computes it (block normalisation factors
  /// are computed on the host, one median per segment).
  PowerPlane correlate(std::span<const std::complex<float>> spectrum, std::size_t r_lo, std::size_t r_hi,
                       bool block_normalise = true);

  /// The same plane left in device memory (owned by this correlator, valid until its next call;
  /// the stream is synchronised): the harmonic sum reads it there (harmonic_detect_cuda_on_device).
  struct DevicePlane {
    const float* data = nullptr;  ///< device pointer, n_z × n_r floats, z-major
    std::size_t n_z = 0, n_r = 0, first_bin = 0;
    int numbetween = 2;  ///< columns per bin (2 for either correlation, as PowerPlane)
  };
  DevicePlane correlate_on_device(std::span<const std::complex<float>> spectrum, std::size_t r_lo, std::size_t r_hi,
                                  bool block_normalise = true);

  /// The same plane from a spectrum left in device memory (CudaSpectrum::on_device; this stream
  /// waits for its `ready` event): the bins gathered and each segment's normalisation (its median)
  /// taken on the device, so the spectrum neither comes down nor goes up again. The same plane,
  /// bit for bit, as the overload above on a host copy of that spectrum.
  DevicePlane correlate_on_device(const CudaSpectrum::OnDevice& spectrum, std::size_t r_lo, std::size_t r_hi,
                                  bool block_normalise = true);

  /// The method in use.
  [[nodiscard]] Method method() const noexcept;

  /// Milliseconds of device time of the last correlate() (events around its kernels and FFTs).
  [[nodiscard]] float last_device_ms() const noexcept { return last_ms_; }

 private:
  struct State;
  struct Geometry;
  Geometry geometry(std::size_t r_lo, std::size_t r_hi, DevicePlane& plane) const;
  void reserve(const Geometry& g, const DevicePlane& plane);
  void correlate_bins(const Geometry& g, DevicePlane& plane);
  std::unique_ptr<State> state_;
  float last_ms_ = 0;
};

}  // namespace astrosweep::fdas::kernels
