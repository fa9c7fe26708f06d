#include "harmonic_table.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <numbers>
#include <unordered_map>
#include <utility>

#include "accel_statistics.hpp"
#include "core/error.hpp"
#include "response.hpp"

namespace astrosweep::fdas {

namespace {

constexpr double pi = std::numbers::pi;

// Below this PRESTO's calc_props refuses a power or a local power (its DBLCORRECT).
constexpr double smallest_power = 1e-14;

// A(r, z) as PRESTO's rz_interp reads it: nothing outside the spectrum's bins (r < 0 or
// r > n − 1), else the correlation with the exact response.
std::complex<double> amplitude(std::span<const std::complex<float>> spectrum, double r, double z, Accuracy accuracy) {
  if (r < 0 || r > static_cast<double>(spectrum.size()) - 1.0) return 0;
  return interpolate_amplitude(spectrum, r, z, accuracy);
}

// arg a in (0, 2π], PRESTO's RADIAN_PHASE (a phase of exactly 0 is reported as 2π).
double radian_phase(std::complex<double> a) {
  const double phase = std::arg(a);
  return phase > 0 ? phase : phase + 2 * pi;
}

// What get_derivs3d measures at the peak: the power, the phase, the slope of the phase and the
// curvature of the power along r, by central differences of step 0.003 bins (its "h", chosen for
// single-precision powers) with the high-accuracy response.
struct Derivatives {
  double power = 0;
  double phase = 0;
  double dphase = 0;  ///< ∂ arg A / ∂r, radians per bin
  double d2power = 0;
};

Derivatives derivatives(std::span<const std::complex<float>> spectrum, double r, double z) {
  constexpr double step = 0.003;
  std::array<std::complex<double>, 5> a;
  for (int i = 0; i < 5; ++i)
    a[static_cast<std::size_t>(i)] = amplitude(spectrum, r + (i - 2) * step, z, Accuracy::high);
  Derivatives d;
  d.power = std::norm(a[2]);
  d.phase = radian_phase(a[2]);
  // The phase change over 2·step as the principal value of arg(A₊ · conj A₋): the same as PRESTO's
  // difference of unwrapped phases wherever that unwrapping holds (|change| < π). PRESTO unwraps
  // only a phase that falls through 0 (the usual case: centroid > 0); on one that rises through 2π
  // its unwrapping subtracts 2π the wrong way, and its centroid is off by about 2/(2·0.003) ≈ 333.
  d.dphase = std::arg(a[3] * std::conj(a[1])) / (2 * step);
  d.d2power = (std::norm(a[4]) - 2 * std::norm(a[2]) + std::norm(a[0])) / ((2 * step) * (2 * step));
  return d;
}

}  // namespace

double local_power(std::span<const std::complex<float>> spectrum, double r, double z) {
  // get_localpower3d: 10 points on each side (NUMLOCPOWAVG / 2), starting 5 bins (DELTAAVGBINS)
  // from r on the high side and ending 5 bins from it on the low side, in steps of one bin.
  constexpr double gap = 5;
  constexpr double side = 10;
  const double n = static_cast<double>(spectrum.size());
  const std::array<std::pair<double, double>, 2> ranges{std::pair{r - gap - side, r - gap - side + side},
                                                        std::pair{r + gap, r + gap + side}};
  // The 20 points, a bin apart, read the response at offsets δ = f − k that are mostly the same
  // (r plus an integer): each distinct δ is evaluated once, keyed by its bits, so the sum is the
  // one the direct evaluation gives, bit for bit, at a tenth of the Fresnel integrals.
  std::unordered_map<std::uint64_t, std::complex<double>> responses;
  auto response_at = [&](double delta) {
    const auto [at, fresh] = responses.try_emplace(std::bit_cast<std::uint64_t>(delta));
    if (fresh) at->second = response(delta, z);
    return at->second;
  };
  double sum = 0;
  for (auto [lo, hi] : ranges) {
    lo = std::clamp(lo, 0.0, n);
    hi = std::clamp(hi, 0.0, n);
    for (double f = lo; f < hi; f += 1.0) {
      // amplitude(): nothing outside the spectrum's bins.
      if (f > n - 1.0) continue;
      sum += std::norm(interpolate_amplitude_with(spectrum, f, z, Accuracy::low, response_at));
    }
  }
  return sum / (2 * side);  // always by 20, however many points were inside
}

std::vector<HarmonicRow> harmonic_rows(std::span<const std::complex<float>> spectrum, const Polished& polished,
                                       double found_r, double found_z, int numharm, int threads) {
  AS_EXPECTS(numharm >= 1, UsageError, "a harmonic table needs at least one harmonic");
  std::vector<HarmonicRow> rows(static_cast<std::size_t>(numharm));
  // The highest harmonics (the widest responses) first.
#pragma omp parallel for schedule(dynamic, 1) num_threads(std::max(threads, 1)) if (threads > 1)
  for (int h = numharm; h >= 1; --h) {
    HarmonicRow& row = rows[static_cast<std::size_t>(h - 1)];
    row.harmonic = h;
    row.r = h * polished.r;
    row.z = h * polished.z;
    row.r_predicted = h * found_r;
    row.z_predicted = h * found_z;
    row.local_power = local_power(spectrum, row.r, row.z);
    const Derivatives d = derivatives(spectrum, row.r, row.z);
    row.raw_power = d.power;
    if (d.power >= smallest_power && row.local_power >= smallest_power) {
      row.power = d.power / row.local_power;
      // output_harmonics: candidate_sigma(props.pow, 1, 1), props.pow being a float.
      row.sigma = candidate_sigma(static_cast<double>(static_cast<float>(row.power)), 1, 1.0);
      row.phase_deg = d.phase * 180 / pi;
      row.centroid = -d.dphase / (2 * pi);
      // calc_props: √(1.5 |P''/L| / (P/L)) / π; the local power cancels.
      row.purity = std::sqrt(1.5 * std::abs(d.d2power) / d.power) / pi;
    }
  }
  return rows;
}

double coherent_power(std::span<const HarmonicRow> rows) {
  if (rows.empty()) return 0;
  // The phases each harmonic of a pulse would have if locked to the fundamental's: the correction
  // brings harmonic h from h·φ₁ to φ₁ ("these phase calculations assume the fundamental is best").
  const double phase_1 = rows.front().phase_deg * pi / 180;
  std::complex<double> sum = 0;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const double correction = phase_1 - std::fmod(static_cast<double>(i + 1) * phase_1, 2 * pi);
    sum += std::polar(std::sqrt(rows[i].power), rows[i].phase_deg * pi / 180 + correction);
  }
  return std::norm(sum);
}

HarmonicProps harmonic_props(const HarmonicRow& row) {
  // calc_props, with PRESTO's float members rounded where it stores them; its error expressions
  // read the purity and power error back from those float members.
  HarmonicProps p;
  const double power = row.power;
  p.r = row.r;
  p.z = row.z;
  p.purity = static_cast<float>(row.purity);
  const auto purity = static_cast<double>(p.purity);  // the float PRESTO reads back
  p.purity_err = static_cast<float>(1.0 / (purity * std::sqrt(10.0 * power)));
  p.r_err = static_cast<float>(3.0 / (pi * purity * std::sqrt(6.0 * power)));
  p.z_err = static_cast<float>(3.0 * std::sqrt(10.0) / (pi * purity * purity * std::sqrt(power)));
  p.power = static_cast<float>(power);
  p.power_err = static_cast<float>(std::sqrt(2.0 * power));
  p.raw_power = static_cast<float>(row.raw_power);
  p.phase = static_cast<float>(row.phase_deg * pi / 180);
  p.phase_err = static_cast<float>(1.0 / static_cast<double>(p.power_err));
  p.centroid = static_cast<float>(row.centroid);
  p.centroid_err = static_cast<float>(1.0 / std::sqrt(24.0 * power));
  return p;
}

}  // namespace astrosweep::fdas
