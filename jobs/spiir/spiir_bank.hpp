#pragma once
// A SPIIR template bank in memory and its HDF5 file, format `astrosweep.spiirbank` version 1
// (spec §5A, docs/spiir.md#the-bank-file): per template its masses, norms and match; per rate a
// padded matrix of filters (templates × the rate's widest template); per detector the templates'
// normalised autocorrelations.

#include <complex>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "iir_coefficients.hpp"

namespace astrosweep::spiir {

inline constexpr const char* bank_format_name = "astrosweep.spiirbank";
inline constexpr std::int64_t bank_format_version = 1;

/// The filters of every template that run at one rate, padded to the widest template with
/// a1 = b0 = 0, delay 0 (row-major: template t's filter l at t · width + l).
struct RateBank {
  std::int64_t rate = 0;  ///< Hz
  std::size_t n_templates = 0;
  std::size_t width = 0;
  std::vector<std::complex<double>> a1, b0;
  std::vector<std::int32_t> delay;      ///< samples of this rate
  std::vector<std::int32_t> n_filters;  ///< per template: its real filters (the rest is padding)

  [[nodiscard]] IirFilter filter(std::size_t t, std::size_t l) const {
    const std::size_t i = t * width + l;
    return {a1[i], b0[i], delay[i]};
  }
  /// Template t's real filters.
  [[nodiscard]] std::vector<IirFilter> filters(std::size_t t) const;
  /// The longest delay of any filter, in samples of this rate.
  [[nodiscard]] std::int64_t max_delay() const;
  /// Builds the padded matrix from per-template filter lists.
  static RateBank pack(std::int64_t rate, const std::vector<std::vector<IirFilter>>& per_template);
};

struct TemplateInfo {
  double mass1 = 0, mass2 = 0;  ///< M☉
  double end_offset = 0;        ///< s from the filter's output sample to coalescence
  double f_final = 0;           ///< Hz
  double duration = 0;          ///< s, the cut template
  double match = 0;             ///< overlap of the IIR response with the template
  double epsilon = 0;           ///< the ε its filters were made with
};

struct SpiirBank {
  // Root attributes.
  double sample_rate_max = 0;  ///< Hz
  double f_low = 0;            ///< Hz
  IirParameters iir;           ///< ε (requested), α, β
  double padding = 1.3;
  std::string approximant = "TaylorF2";
  std::vector<std::string> ifos;
  std::string psd = "white";  ///< where the whitening PSD came from
  std::string command_line;

  std::vector<TemplateInfo> templates;
  std::map<std::string, std::vector<double>> sigmasq;  ///< per IFO, per template
  std::vector<RateBank> rates;                         ///< highest rate first
  std::size_t autocorrelation_length = 0;              ///< L_ac, odd
  /// Per IFO: n_templates × L_ac, centre (lag 0) = 1.
  std::map<std::string, std::vector<std::complex<double>>> autocorrelation;

  [[nodiscard]] std::size_t n_templates() const { return templates.size(); }
  /// The bank at the top rate alone, or nullptr when some filters run at lower rates.
  [[nodiscard]] const RateBank* single_rate() const;
};

/// Writes `bank` to `path` (replacing it); status "complete" is set last. Throws OutputError naming
/// the file; a partial file is removed.
void write_spiir_bank(const std::string& path, const SpiirBank& bank);

/// Reads and checks a bank file: format, version, status, shapes, coefficients (|a1| < 1, finite,
/// delays ≥ 0). Throws InputError naming the file and what is wrong.
SpiirBank read_spiir_bank(const std::string& path);

}  // namespace astrosweep::spiir
