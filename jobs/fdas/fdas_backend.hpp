#pragma once
// The seam between the fdas job and its compute backends (docs/architecture.md): a rank builds
// one backend for the run's template bank and hands it one series at a time; the backend makes
// the series' normalised spectrum and returns it with that series' merged candidate list, as
// search_spectrum (series_search.hpp) defines it. The CPU backend is raw_spectrum and the host's
// normalisations, then search_spectrum itself on FFTW (float); the CUDA backend (kernels/fdas)
// makes and normalises the spectrum on the device, correlates and sums it there, and feeds the
// same candidate list in the same order, the spectrum's host copy (for polishing) coming down
// while it searches. Plain C++: the job never sees device code.

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

/// What search_samples makes of a series' samples before the search: raw_spectrum at n_fft, then
/// PRESTO's dereddening or a known variance's factor (or neither), then the birdies' bins zeroed.
struct SpectrumRequest {
  std::size_t n_fft = 0;
  bool deredden = true;             ///< deredden (spectrum.hpp)
  float known_variance_factor = 0;  ///< without deredden, > 0: normalise_known_variance's factor
  std::vector<BinRange> birdies;    ///< birdie_bins for a spectrum of n_fft / 2 bins
  int threads = 1;                  ///< host threads for host normalisations
};

/// One series' normalised spectrum and its candidates.
struct SpectrumSearch {
  std::span<const std::complex<float>> spectrum;  ///< the backend's, valid until its next call
  SeriesCandidates found;
  double spectrum_seconds = 0;  ///< the spectrum made and normalised
  double search_seconds = 0;    ///< the search, with whatever of the spectrum's host copy it did not hide
};

/// `spectrum` normalised and zapped on the host as `request` says.
void normalise_spectrum(std::span<std::complex<float>> spectrum, const SpectrumRequest& request);

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
  /// The series' spectrum made as `request` says and searched with `settings`. By default
  /// spectrum(), then normalise_spectrum on the host, then search(); the CUDA backend keeps the
  /// spectrum on the device from the samples to the plane.
  virtual SpectrumSearch search_samples(std::span<const float> samples, const SpectrumRequest& request,
                                        const SearchSettings& settings);
  /// Resources used so far (device memory, kernel time), for the per-rank summary; may be empty.
  [[nodiscard]] virtual std::string usage() const { return {}; }

 private:
  std::vector<std::complex<float>> spectrum_;  ///< the default search_samples's spectrum
};

/// FFTW in float, OpenMP over segments (options.threads), for `bank`'s templates.
std::unique_ptr<FdasBackend> make_fdas_backend_cpu(const TemplateBank& bank, const BackendOptions& options);

/// The backend a rank runs: --backend, or on auto the CUDA backend when the rank sees a GPU
/// (defined in the job library, which alone knows whether CUDA was built).
std::unique_ptr<FdasBackend> make_fdas_backend(const TemplateBank& bank, const BackendOptions& options);

}  // namespace astrosweep::fdas
