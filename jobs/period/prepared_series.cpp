#include "prepared_series.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace astrosweep::period {

namespace {

// The power of two that brings values whose magnitudes reach `smallest`..`largest` near 1, or 0
// when they are safe as they are. Scaling by a power of two is exact, so the powers of scaled
// data have the same bits as unscaled ones would; it keeps 1e300 fluxes or 1e-300 errors from
// overflowing or underflowing in y^2, 1/dy^2 and FP32 kernels.
int scale_exponent(double smallest, double largest, double towards) {
  constexpr double safe_low = 0x1p-64, safe_high = 0x1p64;
  if (!(largest > 0) || (smallest >= safe_low && largest <= safe_high)) return 0;
  int exponent = 0;
  std::frexp(towards, &exponent);
  return -exponent;
}

}  // namespace

PreparedSeries prepare_series(std::span<const double> t, std::span<const double> y, std::span<const double> dy,
                              Model model) {
  PreparedSeries s;
  const bool weighted = model == Model::generalized && !dy.empty();
  std::vector<double> err;
  double lo = std::numeric_limits<double>::infinity();
  double hi = -lo;
  double y_largest = 0;
  double e_smallest = std::numeric_limits<double>::infinity();
  double e_largest = 0;
  for (std::size_t j = 0; j < t.size(); ++j) {
    const double e = weighted ? dy[j] : 1.0;
    if (!std::isfinite(t[j]) || !std::isfinite(y[j]) || !std::isfinite(e)) {
      ++s.n_nonfinite;
      continue;
    }
    if (e <= 0) {
      ++s.n_bad_errors;
      continue;
    }
    s.t.push_back(t[j]);
    s.y.push_back(y[j]);
    err.push_back(e);
    lo = std::min(lo, t[j]);
    hi = std::max(hi, t[j]);
    y_largest = std::max(y_largest, std::abs(y[j]));
    e_smallest = std::min(e_smallest, e);
    e_largest = std::max(e_largest, e);
  }
  if (s.n_nonfinite) s.cleaned |= cleaned_nonfinite;
  if (s.n_bad_errors) s.cleaned |= cleaned_bad_errors;
  if (s.t.size() < min_points) {
    s.status |= status_too_few_points;
    s.baseline = s.t.empty() ? 0 : hi - lo;
    return s;
  }
  s.t_ref = 0.5 * (lo + hi);
  s.baseline = hi - lo;

  // Extreme magnitudes scaled exactly (y towards its largest value, errors towards their smallest,
  // so no weight overflows); psd_scale takes both factors back.
  const int y_exponent = scale_exponent(y_largest, y_largest, y_largest);
  const int e_exponent = scale_exponent(e_smallest, e_largest, e_smallest);
  std::vector<double> inv_var(err.size());
  for (std::size_t j = 0; j < err.size(); ++j) {
    const double e = std::ldexp(err[j], e_exponent);
    inv_var[j] = 1.0 / (e * e);
    s.y[j] = std::ldexp(s.y[j], y_exponent);
  }
  double wsum = 0;
  for (double v : inv_var) wsum += v;
  s.psd_scale = std::ldexp(wsum, 2 * e_exponent - 2 * y_exponent);
  s.w.resize(s.t.size());
  double ymean = 0;
  double tmean = 0;
  double ymax = 0;
  for (std::size_t j = 0; j < s.t.size(); ++j) {
    s.w[j] = inv_var[j] / wsum;
    s.t[j] -= s.t_ref;
    ymean += s.w[j] * s.y[j];
    tmean += s.w[j] * s.t[j];
    ymax = std::max(ymax, std::abs(s.y[j]));
  }
  double t2 = 0;
  for (std::size_t j = 0; j < s.t.size(); ++j) {
    s.y[j] -= ymean;
    s.yy += s.w[j] * s.y[j] * s.y[j];
    t2 += s.w[j] * s.t[j] * s.t[j];
  }
  s.t_variance = t2 - tmean * tmean;
  // Constant data leaves only rounding residue after centring.
  const double noise = 16 * std::numeric_limits<double>::epsilon() * ymax;
  if (!(s.yy > noise * noise)) s.status |= status_zero_variance;
  return s;
}

}  // namespace astrosweep::period
