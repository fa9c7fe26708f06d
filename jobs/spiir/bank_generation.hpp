#pragma once
// `astrosweep spiirbank`'s work (spec §3, §4, §5B): for each binary, the whitened TaylorF2
// template, its IIR filters, their rates, its norms and its autocorrelation, gathered into a bank.

#include <complex>
#include <map>
#include <string>
#include <vector>

#include "iir_coefficients.hpp"
#include "spiir_bank.hpp"
#include "taylorf2.hpp"

namespace astrosweep::spiir {

struct BankSettings {
  double f_low = 15;       ///< Hz
  double sample_rate = 0;  ///< Hz; 0: 2^(⌈log₂ f_final⌉ + 1) of the highest f_final
  IirParameters iir;       ///< ε (the start of any ε search), α, β
  FitRequirement requirement;
  double padding = 1.3;
  int n_rates = 7;  ///< D: rates f_s, f_s/2 … f_s/2^(D−1); 1 puts every filter at the top rate
  std::vector<std::string> ifos{"H1", "L1", "V1"};
  std::size_t autocorrelation_length = 201;
  /// Per detector of `ifos`: its PSD; empty map: white data everywhere. The coefficients are made
  /// with the first detector's PSD; each detector's sigmasq and autocorrelation with its own.
  std::map<std::string, Psd> psds;
  std::string psd_name = "white";
  int threads = 0;  ///< OpenMP threads over templates; 0: the default
};

/// 2^(⌈log₂ f_final⌉ + 1) for the highest ISCO frequency of `binaries` (gstlal-spiir's top rate).
double default_sample_rate(const std::vector<Binary>& binaries);

/// R(s) = Σ_m h[m] conj(h[m+s]) / Σ|h|², s = −(length−1)/2 … (length−1)/2 (by FFT).
std::vector<std::complex<double>> template_autocorrelation(const std::vector<std::complex<double>>& h,
                                                           std::size_t length);

/// The bank of `binaries` (command_line left empty for the caller).
SpiirBank make_spiir_bank(const std::vector<Binary>& binaries, const BankSettings& settings);

}  // namespace astrosweep::spiir
