#include "frequency_grid.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "core/error.hpp"

namespace astrosweep::period {

namespace {
std::string num(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.10g", v);
  return buf;
}
}  // namespace

FrequencyGrid make_frequency_grid(const GridRequest& r, const io::CatalogIndex& index) {
  std::optional<double> fmin = r.fmin;
  std::optional<double> fmax = r.fmax;
  if (r.pmin || r.pmax) {
    AS_EXPECTS(!r.fmin && !r.fmax, UsageError,
               "give either a frequency range (--fmin/--fmax) or a period range "
               "(--pmin/--pmax), not both");
    AS_EXPECTS(r.pmin && r.pmax, UsageError, "a period range needs both --pmin and --pmax");
    AS_EXPECTS(*r.pmin > 0 && *r.pmin < *r.pmax, UsageError,
               "need 0 < pmin < pmax, got pmin=" + num(*r.pmin) + ", pmax=" + num(*r.pmax));
    fmin = 1.0 / *r.pmax;
    fmax = 1.0 / *r.pmin;
  }
  if (fmin)
    AS_EXPECTS(std::isfinite(*fmin) && *fmin > 0, UsageError, "fmin must be > 0, got " + num(*fmin),
               "the Lomb-Scargle periodogram is undefined at zero frequency");
  if (fmin && fmax)
    AS_EXPECTS(*fmin < *fmax, UsageError,
               "fmin must be smaller than fmax, got fmin=" + num(*fmin) + " >= fmax=" + num(*fmax));

  FrequencyGrid g;
  if (r.n_freq) {
    AS_EXPECTS(*r.n_freq > 0, UsageError, "the number of frequencies must be > 0, got " + std::to_string(*r.n_freq));
    AS_EXPECTS(fmin && fmax, UsageError, "--n-freq needs both ends of the range (--fmin/--fmax or --pmin/--pmax)",
               "or leave out --n-freq for an automatic grid");
    g.f0 = *fmin;
    g.n = static_cast<std::uint64_t>(*r.n_freq);
    g.df = (*fmax - *fmin) / static_cast<double>(g.n);
    return g;
  }

  AS_EXPECTS(r.samples_per_peak > 0 && r.nyquist_factor > 0, UsageError,
             "--samples-per-peak and --nyquist-factor must be > 0");
  double longest = 0;
  std::size_t longest_object = 0;
  std::vector<double> nyquist;
  for (std::size_t i = 0; i < index.n_objects(); ++i) {
    const double baseline = index.t_max[i] - index.t_min[i];
    if (!(baseline > 0)) continue;
    if (baseline > longest) longest_object = i;
    longest = std::max(longest, baseline);
    nyquist.push_back(0.5 * static_cast<double>(index.counts[i]) / baseline);
  }
  AS_EXPECTS(longest > 0, UsageError, "no object has a time baseline > 0, so no automatic grid can be chosen",
             "give the grid explicitly with --fmin, --fmax and --n-freq");
  const double df = 1.0 / longest / r.samples_per_peak;
  if (!fmin) fmin = 0.5 * df;
  if (!fmax) {
    auto mid = nyquist.begin() + static_cast<std::ptrdiff_t>(nyquist.size() / 2);
    std::nth_element(nyquist.begin(), mid, nyquist.end());
    fmax = r.nyquist_factor * *mid;
  }
  AS_EXPECTS(*fmin < *fmax, UsageError,
             "fmin must be smaller than fmax, got fmin=" + num(*fmin) + " >= fmax=" + num(*fmax));
  // The grid follows the longest baseline: one absurd time (1e300 days, a column not in days)
  // would ask for more frequencies than any run can compute, so the run would never end.
  const double n_wanted = (*fmax - *fmin) / df + 1;
  AS_EXPECTS(n_wanted <= max_automatic_frequencies, InputError,
             "the automatic grid would have " + num(n_wanted) + " frequencies because object " +
                 std::to_string(index.ids[longest_object]) + " spans " + num(longest) +
                 " days (t = " + num(index.t_min[longest_object]) + " to " + num(index.t_max[longest_object]) + ")",
             "check that object's times (days, one zero point per object), or give the grid with --fmin, --fmax "
             "and --n-freq");
  g.f0 = *fmin;
  g.df = df;
  // astropy's Nf = 1 + int(np.round((fmax - fmin) / df)): halves round to even (nearbyint in the
  // default rounding mode), not away from zero. For 6 points over 8 days the quotient is 74.5.
  g.n = 1 + static_cast<std::uint64_t>(std::nearbyint((*fmax - *fmin) / df));
  return g;
}

}  // namespace astrosweep::period
