#pragma once
// Everything that defines one period search, shared by the job, the backends and the product.

#include <cstdint>
#include <string>

namespace astrosweep::period {

/// standard: classical Lomb-Scargle on mean-subtracted data, no uncertainties (scipy, culsp;
///           astropy fit_mean=False, center_data=True, dy=None).
/// generalized: floating mean and weights 1/dy^2 (Zechmeister & Kuerster 2009; astropy
///           fit_mean=True, center_data=True, dy given).
enum class Model { standard, generalized };
/// astropy's normalizations: standard (p/YY), model (p/(YY-p)), log (-ln(1-p/YY)), psd.
enum class Normalization { standard, model, log, psd };
enum class Precision { fp32, fp64 };
/// How power is computed: direct sums over every point and frequency (N_t N_f), or the fast
/// method, the sums as non-uniform FFTs (nufft.hpp; about N_t w + N_f log N_f); automatic picks
/// the cheaper per object by the backend's estimated costs (lomb_scargle_fast.hpp on the CPU,
/// kernels/period/fast_layout_cuda.hpp on the GPU).
enum class Method { automatic, direct, fast };

Model parse_model(const std::string& s);
Normalization parse_normalization(const std::string& s);
Precision parse_precision(const std::string& s);
Method parse_method(const std::string& s);
const char* to_string(Model m);
const char* to_string(Normalization n);
const char* to_string(Precision p);
const char* to_string(Method m);

/// Uniform grid of cyclic frequencies (1/day): f_k = f0 + k * df, k = 0 .. n-1.
struct FrequencyGrid {
  double f0 = 0;
  double df = 0;
  std::uint64_t n = 0;
  [[nodiscard]] double at(std::uint64_t k) const noexcept { return f0 + static_cast<double>(k) * df; }
  [[nodiscard]] double last() const noexcept { return at(n - 1); }
};

struct PeriodConfig {
  FrequencyGrid grid;
  Model model = Model::generalized;
  Normalization normalization = Normalization::standard;
  Precision precision = Precision::fp64;
  Method method = Method::direct;
  int top_k = 3;                 ///< distinct peaks kept per object
  double peak_separation = 1.0;  ///< minimum distance of kept peaks, in units of 1/baseline
  bool keep_periodograms = false;
};

/// What was removed from an object's light curve before the search: the product's `cleaned` bits
/// (docs/formats.md). Cleaning says nothing about whether the result is valid: real TESS and
/// Kepler light curves all have NaNs and flagged cadences removed.
enum CleanedBits : std::uint32_t {
  cleaned_nothing = 0,
  cleaned_nonfinite = 1u << 0,   ///< points with a non-finite t, y or dy were dropped
  cleaned_bad_errors = 1u << 1,  ///< points with dy <= 0 were dropped (generalized model)
  cleaned_flagged = 1u << 2,     ///< cadences with quality flags were dropped on reading
};

/// Why an object has no valid result: the product's `status` bits; 0 is a valid result. Bits 1, 2
/// and 4 are not used (they said what was cleaned before format_version 2; see CleanedBits).
enum StatusBits : std::uint32_t {
  status_ok = 0,
  status_too_few_points = 1u << 3,  ///< fewer than 4 usable points: no periodogram
  status_zero_variance = 1u << 4,   ///< all usable y equal: no periodogram
  /// the times span so much that phases at the grid's highest frequency are beyond double precision
  /// (f_max * baseline / 2 >= 2^32 cycles: times of 1e300 days, or not in days): no periodogram
  status_time_span_out_of_range = 1u << 5,
  /// the best power is not a finite positive number: values whose power overflows or underflows a
  /// double (the psd normalisation of 1e300 fluxes with ordinary errors, or of 1e300 errors), or
  /// an exact fit under the model/log normalisation (3 points, generalized model): no result
  status_power_out_of_range = 1u << 6,
};
inline constexpr std::uint32_t status_not_computed = status_too_few_points | status_zero_variance;
/// A sinusoid and a mean have 3 parameters: 3 points fit exactly at every frequency (power 1, the
/// false-alarm probability undefined), so a periodogram needs at least 4.
inline constexpr std::uint32_t min_points = 4;
/// Largest |f (t - t_ref)| in cycles searched: its double phase still resolves 2^-20 cycles.
inline constexpr double max_phase_cycles = 0x1p32;

}  // namespace astrosweep::period
