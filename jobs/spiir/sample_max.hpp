#pragma once
// The per-sample maximum over templates (spec §9's first step, what the first pass keeps of a
// chunk): for every sample, the template with the largest |z|², the lowest index on a tie, with
// that |z|² and its z. The rule (sample_max_rule.hpp) is shared by the plain loop here, which the
// OpenMP backend and the multi-rate stream use, and the CUDA kernel
// (kernels/spiir/spiir_sample_max.cu), so the two agree bit for bit over the same SNRs.
#include <complex>
#include <cstddef>
#include <cstdint>
#include <span>

#include "sample_max_rule.hpp"

namespace astrosweep::spiir {

/// One sample's best template. `power` is −1 where no template has a |z|² to compare (no
/// templates, or every |z|² NaN); template_index and z are then template 0's (z 0 without any).
struct SampleMax {
  double power = -1;  ///< |z|² of the winner
  std::int32_t template_index = 0;
  std::complex<double> z;
};

/// The plain loop: out[i] for samples i < n of template-major z (n_templates × n). Templates must
/// number at most INT32_MAX.
void sample_max(std::span<const std::complex<double>> z, std::size_t n_templates, std::size_t n,
                std::span<SampleMax> out);

}  // namespace astrosweep::spiir
