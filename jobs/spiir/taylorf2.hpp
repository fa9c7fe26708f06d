#pragma once
// Non-spinning TaylorF2 (3.5PN phase, Newtonian amplitude) and the Newtonian time-domain chirp
// (spec §5B, §5C), and the whitened analytic template the IIR coefficients are fitted to. Masses
// in solar masses, frequencies in Hz, times in seconds.

#include <complex>
#include <functional>
#include <string>
#include <vector>

namespace astrosweep::spiir {

/// The Sun's mass in seconds (G M☉ / c³).
inline constexpr double solar_mass_s = 4.925491e-6;

struct Binary {
  double mass1 = 0;  ///< M☉
  double mass2 = 0;  ///< M☉
  [[nodiscard]] double total_s() const { return (mass1 + mass2) * solar_mass_s; }
  [[nodiscard]] double eta() const { return mass1 * mass2 / ((mass1 + mass2) * (mass1 + mass2)); }
  [[nodiscard]] double chirp_mass_s() const;
};

/// "m1+m2 Msun", for messages.
std::string format_masses(const Binary& binary);

/// Innermost stable circular orbit's gravitational-wave frequency, 1 / (6^{3/2} π M).
double f_isco(const Binary& binary);
/// Newtonian chirp time from f to coalescence, (5/256) 𝓜^{−5/3} (π f)^{−8/3}.
double chirp_time(const Binary& binary, double f);
/// TaylorF2's Ψ(f) with t_c = φ_c = 0 (the 2π f t_c − φ_c term is added by the caller).
double taylorf2_phase(const Binary& binary, double f);

/// |h̃(f)| of the optimally oriented (face-on, overhead) source at 1 Mpc, Newtonian amplitude:
/// √(5/24) π^{−2/3} 𝓜^{5/6} f^{−7/6} c / 1 Mpc, in 1/Hz.
double taylorf2_amplitude_1mpc(const Binary& binary, double f);

/// A one-sided PSD S(f) in strain²/Hz; an empty function means white data of unit variance per
/// sample, S = 2 / f_s.
using Psd = std::function<double(double f)>;

struct TemplateSettings {
  double f_low = 40;          ///< Hz: the template starts here
  double sample_rate = 2048;  ///< Hz: the bank's top rate
  Psd psd;                    ///< empty: white
};

/// A whitened analytic template sampled at the top rate and ending at the merger: h = A e^{iφ},
/// normalised so Σ|h|² = 2, its beginning cut where the cumulative |h|² reaches 0.2 % (spec §3).
struct WhitenedTemplate {
  std::vector<std::complex<double>> h;
  double f_final = 0;     ///< Hz: where the frequency-domain template ends (f_ISCO, or below Nyquist)
  double duration = 0;    ///< s: the cut template's length, N / f_s
  double end_offset = 0;  ///< s from the template's last sample to coalescence
  double sigmasq = 0;     ///< ⟨h,h⟩ = 4 ∫ |h̃|²/S df of the optimally oriented source at 1 Mpc
};

/// TaylorF2 through spec §5B: evaluated on a grid of 1/T_w, whitened, made analytic, inverse
/// transformed, tapered and cut. Throws UsageError when f_low is not below f_final.
WhitenedTemplate taylorf2_template(const Binary& binary, const TemplateSettings& settings);

/// The Newtonian time-domain chirp of spec §5C from f_low to f_ISCO (or 0.45 f_s if that is
/// lower), amplitude ∝ f^{2/3}, φ_c = 0, normalised to Σ|h|² = 2 (not cut, not whitened).
std::vector<std::complex<double>> newtonian_chirp(const Binary& binary, double f_low, double sample_rate);

/// Cuts the template's beginning where its cumulative |h|² reaches `fraction` of the total.
std::vector<std::complex<double>> cut_template_start(const std::vector<std::complex<double>>& h,
                                                     double fraction = 0.002);
/// Scales `h` to Σ|h|² = 2.
void normalise_template(std::vector<std::complex<double>>& h);

/// Phase unwrapped: ±2π added whenever consecutive values jump by more than π.
std::vector<double> unwrapped_phase(const std::vector<std::complex<double>>& h);

}  // namespace astrosweep::spiir
