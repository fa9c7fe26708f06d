#pragma once
// The seam between the fdas job and its compute backends (docs/architecture.md): a rank builds
// one backend for the run's template bank and hands it one normalised spectrum at a time; the
// backend returns that series' merged candidate list, as search_spectrum (series_search.hpp)
// defines it. The CPU backend is search_spectrum itself on FFTW (float); the CUDA backend
// (kernels/fdas) correlates and sums on the device and feeds the same candidate list in the same
// order. Plain C++: the job never sees device code.

#include <complex>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/backend.hpp"
#include "series_search.hpp"
#include "spectrum.hpp"
#include "template_bank.hpp"

namespace astrosweep::fdas {

class FdasBackend {
 public:
  virtual ~FdasBackend() = default;
  [[nodiscard]] virtual std::string describe() const = 0;
  /// The raw spectrum of `samples` padded to n_fft, as raw_spectrum (spectrum.hpp) defines it; the
  /// CPU backend is raw_spectrum (FFTW, double), the CUDA backend the same transform with cuFFT.
  virtual std::vector<std::complex<float>> spectrum(std::span<const float> samples, std::size_t n_fft) {
    return raw_spectrum(samples, n_fft);
  }
  /// The candidates of bins [settings.r_lo, settings.r_hi) of `spectrum` (noise power mean 1).
  virtual SeriesCandidates search(std::span<const std::complex<float>> spectrum, const SearchSettings& settings) = 0;
  /// Resources used so far (device memory, kernel time), for the per-rank summary; may be empty.
  [[nodiscard]] virtual std::string usage() const { return {}; }
};

/// FFTW in float, OpenMP over segments (options.threads), for `bank`'s templates.
std::unique_ptr<FdasBackend> make_fdas_backend_cpu(const TemplateBank& bank, const BackendOptions& options);

/// The backend a rank runs: --backend, or on auto the CUDA backend when the rank sees a GPU
/// (defined in the job library, which alone knows whether CUDA was built).
std::unique_ptr<FdasBackend> make_fdas_backend(const TemplateBank& bank, const BackendOptions& options);

}  // namespace astrosweep::fdas
