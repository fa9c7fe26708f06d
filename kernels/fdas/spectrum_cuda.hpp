#pragma once
// A series' raw spectrum on a GPU (twin of raw_spectrum, jobs/fdas/spectrum.hpp): the samples
// padded with their mean (taken on the host in double, in order, as raw_spectrum does), a real
// transform in double with cuFFT, rounded to float, bin 0 set to 1. A transform of 2^23 points
// takes milliseconds on the device against a few hundred on one host core. The bins agree with
// FFTW's to double rounding, so after rounding to float they are equal or one float ulp apart.
// Plain C++: the job includes this header without CUDA's.

#include <complex>
#include <cstddef>
#include <memory>
#include <span>
#include <vector>

namespace astrosweep::fdas::kernels {

class CudaSpectrum {
 public:
  CudaSpectrum();
  ~CudaSpectrum();
  CudaSpectrum(const CudaSpectrum&) = delete;
  CudaSpectrum& operator=(const CudaSpectrum&) = delete;

  /// Bins 0 … n_fft/2 − 1 of the transform of `x` padded with its mean to n_fft (≥ x.size(), ≥ 2).
  std::vector<std::complex<float>> transform(std::span<const float> x, std::size_t n_fft);

  /// Device bytes a transform of n_fft points allocates (cuFFT's work area aside).
  static std::size_t device_bytes(std::size_t n_fft);

 private:
  struct Device;
  std::unique_ptr<Device> device_;
};

}  // namespace astrosweep::fdas::kernels
