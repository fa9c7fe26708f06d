// The oracle: astropy's slow_impl written out in double precision, one frequency at a time, with
// the explicit time shift tau from atan2 and a second pass of sin/cos. Slow on purpose: it shares
// nothing with the optimised kernels except the normalisation.

#include <cmath>
#include <numbers>

#include "lomb_scargle.hpp"
#include "lomb_scargle_power.hpp"

namespace astrosweep::period {

namespace {
// 2 pi * frac(f t): the phase reduced before sin/cos, so large f t keeps full precision.
double reduced_angle(double f, double t) {
  const double cycles = f * t;
  return 2 * std::numbers::pi * (cycles - std::floor(cycles));
}
}  // namespace

void lomb_scargle_reference(const PreparedSeries& s, const FrequencyGrid& grid, Model model,
                            Normalization normalization, std::uint64_t k_begin, std::span<double> out) {
  const bool fit_mean = model == Model::generalized;
  const std::size_t n = s.t.size();
  for (std::size_t i = 0; i < out.size(); ++i) {
    const double f = grid.at(k_begin + i);
    double s2 = 0, c2 = 0, sum_s = 0, sum_c = 0;
    for (std::size_t j = 0; j < n; ++j) {
      const double a = reduced_angle(f, s.t[j]);
      const double sn = std::sin(a), cs = std::cos(a);
      s2 += s.w[j] * 2 * sn * cs;
      c2 += s.w[j] * (1 - 2 * sn * sn);
      sum_s += s.w[j] * sn;
      sum_c += s.w[j] * cs;
    }
    if (fit_mean) {
      s2 -= 2 * sum_s * sum_c;
      c2 -= sum_c * sum_c - sum_s * sum_s;
    }
    const double wtau = 0.5 * std::atan2(s2, c2);
    double yc = 0, ys = 0, cc = 0, ss = 0, ctau = 0, stau = 0;
    for (std::size_t j = 0; j < n; ++j) {
      const double a = reduced_angle(f, s.t[j]) - wtau;
      const double sn = std::sin(a), cs = std::cos(a);
      yc += s.w[j] * s.y[j] * cs;
      ys += s.w[j] * s.y[j] * sn;
      cc += s.w[j] * cs * cs;
      ss += s.w[j] * sn * sn;
      ctau += s.w[j] * cs;
      stau += s.w[j] * sn;
    }
    if (fit_mean) {  // y is centred, so sum(w y) = 0 and only the moments change
      cc -= ctau * ctau;
      ss -= stau * stau;
    }
    const double floor = degenerate_eps<double>() * (cc + ss);
    double p = 0;
    if (cc > floor) p += yc * yc / cc;
    if (ss > floor) p += ys * ys / ss;
    out[i] = normalise_power(p, static_cast<int>(normalization), s.yy, s.psd_scale);
  }
}

}  // namespace astrosweep::period
