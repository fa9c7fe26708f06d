#pragma once
// The autocorrelation χ² veto (spec §9): how far a detector's SNR around its aligned peak departs
// from the peak value times the template's normalised autocorrelation R_j(s), the bank's stored
// `/autocorrelation/<IFO>` rows (lag 0 at the centre, value 1).
#include <complex>
#include <string>
#include <vector>

#include "core/instance_number.hpp"
#include "spiir_bank.hpp"

namespace astrosweep::spiir {

/// The bank's autocorrelations for the detectors `ifos`, in that order.
struct TemplateAutocorrelations {
  std::size_t length = 0;  ///< L_ac = 2K + 1
  std::size_t n_templates = 0;
  std::vector<std::vector<std::complex<double>>> per_ifo;  ///< n_templates × length each
  /// This object's, for an engine that keeps the bank's χ² tables (SkyChisqKey): filled once,
  /// then only read; another bank or normalisation is another object (a copy is one too).
  InstanceNumber instance;

  [[nodiscard]] std::size_t half_length() const { return length / 2; }
  /// R_j of detector d: `length` values, lag −K first.
  [[nodiscard]] const std::complex<double>* of(std::size_t d, std::size_t j) const {
    return per_ifo[d].data() + j * length;
  }
  /// Takes them from `bank`; throws InputError naming `bank_path` when a detector has none.
  static TemplateAutocorrelations from_bank(const SpiirBank& bank, const std::vector<std::string>& ifos,
                                            const std::string& bank_path);
};

/// χ²_d = Σ_{s=−K}^{K} |ζ(s) − ζ(0) R(s)|² / Σ_{s=−K}^{K} (2 − |R(s)|²), with ζ(s) = centre[s]
/// (so centre[−K … K] must be readable) and r[0 … 2K] = R(−K … K). Noise alone gives a mean of
/// Σ(2 − 2|R|²) / Σ(2 − |R|²); a signal that matches the template, 0.
double autocorrelation_chisq(const std::complex<double>* centre, const std::complex<double>* r, std::size_t length);

/// The χ²'s denominator Σ_{s=−K}^{K} (2 − |R(s)|²), summed in the same order: it depends on the
/// template and detector only, so a search takes it once per template instead of once per read.
double autocorrelation_chisq_norm(const std::complex<double>* r, std::size_t length);

/// The χ² with its denominator `norm` = autocorrelation_chisq_norm(r, length): bit for bit the
/// value of the three-argument form.
double autocorrelation_chisq(const std::complex<double>* centre, const std::complex<double>* r, std::size_t length,
                             double norm);

/// The χ² of `n` reads at once (read i: centres[i], r[i], norms[i]) into out[0 … n − 1], each bit
/// for bit the one-read form: their sums run side by side in one loop over the lags, so the
/// additions' latency, which bounds one read's loop, is paid once for up to three reads (a task's
/// detectors).
void autocorrelation_chisq(std::size_t n, const std::complex<double>* const* centres,
                           const std::complex<double>* const* r, std::size_t length, const double* norms, double* out);

}  // namespace astrosweep::spiir
