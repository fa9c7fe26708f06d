#pragma once
// A series' spectrum on a GPU, from samples to the normalised spectrum the search reads (twin of
// raw_spectrum, deredden, normalise_known_variance and zap_birdies, jobs/fdas/spectrum.hpp). The
// raw spectrum: the samples padded with their mean (taken on the host in double, in order, as
// raw_spectrum does), a real transform in double with cuFFT, rounded to float, bin 0 set to 1; a
// transform of 2^23 points takes milliseconds on the device against a few hundred on one host
// core. Its bins agree with FFTW's to double rounding, so after rounding to float they are equal
// or one float ulp apart. The normalisations that follow are the CPU's bit for bit on the same
// raw spectrum (deredden_arith.hpp): the dereddening's block medians, levels and ramps, the known
// variance's factor, the birdies' zeros. The spectrum stays in device memory for the correlator;
// the host's copy (for polishing) comes down by one asynchronous copy into pinned memory.
// Plain C++: the job includes this header without CUDA's.

#include <complex>
#include <cstddef>
#include <memory>
#include <span>
#include <vector>

#include "spectrum.hpp"

namespace astrosweep::cuda {
class Event;
}

namespace astrosweep::fdas::kernels {

class CudaSpectrum {
 public:
  CudaSpectrum();
  ~CudaSpectrum();
  CudaSpectrum(const CudaSpectrum&) = delete;
  CudaSpectrum& operator=(const CudaSpectrum&) = delete;

  /// Bins 0 … n_fft/2 − 1 of the transform of `x` padded with its mean to n_fft (≥ x.size(), ≥ 2).
  std::vector<std::complex<float>> transform(std::span<const float> x, std::size_t n_fft);

  /// The same transform left on the device as this object's spectrum (queued on its stream).
  void transform_on_device(std::span<const float> x, std::size_t n_fft);
  /// `spectrum` uploaded as this object's spectrum (for tests of the normalisations).
  void load(std::span<const std::complex<float>> spectrum);

  /// The device spectrum dereddened as deredden does (queued; left as it is when too short).
  void deredden();
  /// Bins 1 … multiplied by `factor` (normalise_known_variance's, known_variance_factor).
  void scale(float factor);
  /// Bins of `ranges` zeroed (zap_birdies's, birdie_bins).
  void zero(std::span<const BinRange> ranges);

  /// The device spectrum: its bins (complex float, device memory) until the next transform or
  /// load; `ready` is recorded after the work queued so far, for another stream to wait on.
  struct OnDevice {
    const std::complex<float>* data = nullptr;
    std::size_t size = 0;
    const cuda::Event* ready = nullptr;
  };
  OnDevice on_device();

  /// Device milliseconds from the last transform_on_device's first copy to the last on_device()'s
  /// `ready` (both must have happened: e.g. after a stream that waited on `ready` synchronised).
  [[nodiscard]] float device_ms_to_ready() const;

  /// Queues the spectrum's copy into pinned host memory (after the work queued so far).
  void download();
  /// The copy download() queued, once it has arrived (waits for it); valid until the next download.
  std::span<const std::complex<float>> host_copy();

  /// Device bytes a transform of n_fft points allocates with its dereddening (cuFFT's work area aside).
  static std::size_t device_bytes(std::size_t n_fft);

 private:
  struct Device;
  std::unique_ptr<Device> device_;
};

/// `spectrum` dereddened on the device (one CudaSpectrum of its own), for tests.
std::vector<std::complex<float>> deredden_cuda(std::span<const std::complex<float>> spectrum);

}  // namespace astrosweep::fdas::kernels
