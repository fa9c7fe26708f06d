#include "fdas_backend.hpp"

#include <chrono>

namespace astrosweep::fdas {

void normalise_spectrum(std::span<std::complex<float>> spectrum, const SpectrumRequest& request) {
  if (request.deredden)
    deredden(spectrum, request.threads);
  else if (request.known_variance_factor > 0)
    scale_bins(spectrum, request.known_variance_factor);
  zero_bins(spectrum, request.birdies);
}

SpectrumSearch FdasBackend::search_samples(std::span<const float> samples, const SpectrumRequest& request,
                                           const SearchSettings& settings) {
  using Clock = std::chrono::steady_clock;
  auto t = Clock::now();
  SpectrumSearch result;
  spectrum_ = spectrum(samples, request.n_fft);
  normalise_spectrum(spectrum_, request);
  result.spectrum_seconds = std::chrono::duration<double>(Clock::now() - t).count();
  t = Clock::now();
  result.found = search(spectrum_, settings);
  result.search_seconds = std::chrono::duration<double>(Clock::now() - t).count();
  result.spectrum = spectrum_;
  return result;
}

}  // namespace astrosweep::fdas
