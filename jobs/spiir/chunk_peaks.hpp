#pragma once
// The single-detector peaks of one chunk (spec §9, as gstlal-spiir selects them): for every sample
// the template with the largest |z|²; for every template the largest of the values it won; a peak
// is (sample, template) where that value is its template's maximum and |z| exceeds the threshold.
// So at most one peak per template per chunk.

#include <complex>
#include <cstdint>
#include <span>
#include <vector>

namespace astrosweep::spiir {

struct Peak {
  std::size_t sample = 0;  ///< within the chunk
  std::size_t template_index = 0;
  std::complex<double> z;
};

/// z is template-major (n_templates × n_samples); `usable[n]` false excludes sample n (a gap
/// within a template length, or the warm-up). Peaks in order of template.
std::vector<Peak> chunk_peaks(std::span<const std::complex<double>> z, std::size_t n_templates, std::size_t n_samples,
                              const std::vector<bool>& usable, double threshold);

}  // namespace astrosweep::spiir
