#pragma once
// The SPIIR coefficients of one template (spec §3): the step rule that cuts the template into
// first-order complex IIR filters, their response, the overlap with the template, the b0
// normalisation that makes the output an SNR, and the search over ε when a requirement is set.

#include <complex>
#include <cstdint>
#include <span>
#include <vector>

namespace astrosweep::spiir {

/// y[n] = a1 · y[n−1] + b0 · x[n − delay] (spec §2).
struct IirFilter {
  std::complex<double> a1;
  std::complex<double> b0;
  std::int64_t delay = 0;  ///< samples
};

struct IirParameters {
  double epsilon = 0.02;  ///< phase-error budget per filter, cycles
  double alpha = 0.99;
  double beta = 0.25;
};

/// Spec §3's loop over the amplitude A and the unwrapped phase φ (radians) of a template sampled
/// at the top rate: filters in order of increasing delay. Two refinements, identical to the spec
/// on a chirp's body: the step uses |φ̈| (near the merger the ripple of a frequency-domain template
/// makes φ̈ change sign; φ̈ = 0 gives a step to the start), and the step is at most the j samples
/// left, which gives the last filter at the template's start exactly as lalinspiral's
/// XLALInspiralGenerateIIRSet does (tests/spiir/data/lal_iir_newtonian.txt).
std::vector<IirFilter> iir_filters(std::span<const double> amplitude, std::span<const double> phase,
                                   const IirParameters& parameters);

/// The bank's impulse response u[m] = Σ_l b0_l a1_l^{m − d_l} (m ≥ d_l), m = 0 … length − 1.
std::vector<std::complex<double>> iir_response(std::span<const IirFilter> filters, std::size_t length);

/// The response's length for a template of n samples: a power of two ≥ n + 201.
std::size_t response_length(std::size_t template_length);

/// |Σ_s u[N−1−s] conj(h[s])| / √(Σ|u|² Σ|h|²): the normalised overlap of the time-reversed
/// response (u of response_length(N)) with the template h of N samples.
double iir_overlap(std::span<const std::complex<double>> response, std::span<const std::complex<double>> h);

/// What a fit must reach; zeros mean no requirement (gstlal-spiir's default: ε used as given).
struct FitRequirement {
  double min_match = 0;
  std::size_t min_filters = 0;
  std::size_t max_filters = 0;
  double max_epsilon = 0;  ///< the ε search's upper limit; 0: none (its lower limit is 0.001)
  [[nodiscard]] bool any() const { return min_match > 0 || min_filters > 0 || max_filters > 0; }
};

struct IirFit {
  std::vector<IirFilter> filters;  ///< b0 scaled so that Σ|u|² = 2
  double epsilon = 0;
  double match = 0;
  bool met = true;  ///< whether the requirement was met (the best fit is returned either way)
};

/// The filters of a template h already normalised to Σ|h|² = 2, with b0 scaled by √(2/Σ|u|²); with
/// a requirement, ε is doubled or halved until bracketed, then bisected geometrically (≤ 10 fits).
IirFit fit_iir(std::span<const std::complex<double>> h, const IirParameters& parameters,
               const FitRequirement& requirement = {});

}  // namespace astrosweep::spiir
