#include "prepared_series.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace astrosweep::period {

PreparedSeries prepare_series(std::span<const double> t, std::span<const double> y, std::span<const double> dy,
                              Model model) {
  PreparedSeries s;
  const bool weighted = model == Model::generalized && !dy.empty();
  std::vector<double> inv_var;
  double lo = std::numeric_limits<double>::infinity();
  double hi = -lo;
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
    inv_var.push_back(1.0 / (e * e));
    lo = std::min(lo, t[j]);
    hi = std::max(hi, t[j]);
  }
  if (s.n_nonfinite) s.status |= status_nonfinite_removed;
  if (s.n_bad_errors) s.status |= status_bad_errors_removed;
  if (s.t.size() < min_points) {
    s.status |= status_too_few_points;
    s.baseline = s.t.empty() ? 0 : hi - lo;
    return s;
  }
  s.t_ref = 0.5 * (lo + hi);
  s.baseline = hi - lo;

  double wsum = 0;
  for (double v : inv_var) wsum += v;
  s.psd_scale = wsum;
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
