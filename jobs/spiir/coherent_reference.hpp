#pragma once
// The oracle of the coherent stage (spec §11): plain double precision, an exhaustive loop over
// every pixel of every candidate and trial, with the coherent SNR as PyCBC's projection
// ρ_coh² = ζ† P ζ, P = A (AᵀA)⁻¹ Aᵀ, and the null SNR as ζ† (I − P) ζ, both formed directly
// (no SVD, no subtraction), A built at polarisation ψ = 0.3 (ψ only rotates A's columns, so the
// projection must not depend on it). Its results are laid out as coherent_search's. With
// `subsample` each ζ_d (and each χ² sample) is interpolated at the exact delay on its own (no
// tables); `sky_stride` skips pixels as the search does.
#include <span>
#include <string>
#include <vector>

#include "coherent_snr.hpp"

namespace astrosweep::spiir {

std::vector<CoherentResult> coherent_reference(int order, const std::vector<std::string>& ifos,
                                               const std::vector<double>& sigma, double gps, double sample_rate,
                                               const NetworkSnr& snr, const TemplateAutocorrelations& autocorrelations,
                                               std::span<const Candidate> candidates, const CoherentSettings& settings);

/// ρ_coh² = ζ† P ζ at every pixel for one candidate in one trial (the oracle of coherent_sky_map).
std::vector<double> coherent_reference_sky_map(int order, const std::vector<std::string>& ifos,
                                               const std::vector<double>& sigma, double gps, double sample_rate,
                                               const NetworkSnr& snr, const Candidate& candidate,
                                               const CoherentSettings& settings, int trial);

}  // namespace astrosweep::spiir
