#pragma once
// The overlap-save correlation on a GPU with cuFFT (the twin of jobs/fdas/correlation.cpp; same
// geometry and the same power): every segment's spread input transformed once in one batched
// forward FFT, then per block of templates a product with the kernel spectra, one batched inverse
// FFT and the extraction of the U kept powers per segment. This is the cuFFT baseline the spec
// asks the shared-memory FFT to be measured against: every template's inverse FFT goes through
// global memory. Plain C++: the job includes this header without CUDA's.

#include <complex>
#include <cstddef>
#include <memory>
#include <span>
#include <vector>

#include "correlation.hpp"

namespace astrosweep::fdas::kernels {

class CudaCorrelator {
 public:
  /// The kernel spectra are made on the device from the templates' circular taps (as
  /// transform_kernels does); `device_budget` bytes bound the batch buffers (0: 1 GiB).
  CudaCorrelator(const CorrelationLayout& layout, const std::vector<std::vector<std::complex<double>>>& taps,
                 std::size_t device_budget = 0);
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
    int numbetween = 2;
  };
  DevicePlane correlate_on_device(std::span<const std::complex<float>> spectrum, std::size_t r_lo, std::size_t r_hi,
                                  bool block_normalise = true);

  /// Milliseconds of device time of the last correlate() (events around its kernels and FFTs).
  [[nodiscard]] float last_device_ms() const noexcept { return last_ms_; }

 private:
  struct State;
  std::unique_ptr<State> state_;
  float last_ms_ = 0;
};

}  // namespace astrosweep::fdas::kernels
