#include "chunk_peaks.hpp"

#include "core/error.hpp"

namespace astrosweep::spiir {

std::vector<Peak> chunk_peaks(std::span<const std::complex<double>> z, std::size_t n_templates, std::size_t n_samples,
                              const std::vector<bool>& usable, double threshold) {
  AS_ASSERT(z.size() == n_templates * n_samples && usable.size() == n_samples);
  std::vector<std::size_t> winner(n_samples, 0);
  std::vector<double> best(n_samples, -1);
  for (std::size_t t = 0; t < n_templates; ++t)
    for (std::size_t n = 0; n < n_samples; ++n) {
      const double p = std::norm(z[t * n_samples + n]);
      if (usable[n] && p > best[n]) {  // ties: the lowest template index wins
        best[n] = p;
        winner[n] = t;
      }
    }
  std::vector<double> template_max(n_templates, -1);
  std::vector<std::size_t> template_at(n_templates, 0);
  for (std::size_t n = 0; n < n_samples; ++n) {
    if (!usable[n]) continue;
    const std::size_t t = winner[n];
    if (best[n] > template_max[t]) {  // ties: the earliest sample
      template_max[t] = best[n];
      template_at[t] = n;
    }
  }
  std::vector<Peak> peaks;
  for (std::size_t t = 0; t < n_templates; ++t)
    if (template_max[t] > threshold * threshold)
      peaks.push_back({template_at[t], t, z[t * n_samples + template_at[t]]});
  return peaks;
}

}  // namespace astrosweep::spiir
