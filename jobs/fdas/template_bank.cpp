#include "template_bank.hpp"

#include <cmath>

#include "core/error.hpp"

namespace astrosweep::fdas {

DriftGrid make_drift_grid(double z_max) {
  AS_EXPECTS(std::isfinite(z_max) && z_max >= 0 && z_max <= 1200, UsageError,
             "--zmax " + std::to_string(z_max) + " is outside 0 … 1200", "PRESTO's limit is 1200 bins of drift");
  DriftGrid g;
  g.z_max = g.dz * std::ceil(z_max / g.dz);
  g.n_z = static_cast<std::size_t>(2 * g.z_max / g.dz) + 1;
  return g;
}

std::size_t default_fft_length(std::size_t kernel_width) noexcept {
  std::size_t L = 2048;
  while (L < 3 * kernel_width) L *= 2;
  return L;
}

TemplateBank make_template_bank(double z_max, int numbetween, Accuracy accuracy, std::size_t fft_length) {
  AS_EXPECTS(numbetween == 1 || numbetween == 2, UsageError,
             "--numbetween must be 1 or 2, not " + std::to_string(numbetween));
  TemplateBank bank;
  bank.grid = make_drift_grid(z_max);
  const auto m = static_cast<std::size_t>(half_width(bank.grid.z_max, accuracy));
  const std::size_t b = static_cast<std::size_t>(numbetween);
  const std::size_t L = fft_length != 0 ? fft_length : default_fft_length(2 * b * m);
  bank.layout = CorrelationLayout{L, m, numbetween};
  bank.layout.check();
  bank.taps.assign(bank.grid.n_z, std::vector<std::complex<double>>(L));
  for (std::size_t t = 0; t < bank.grid.n_z; ++t) {
    const double z = bank.grid.z(t);
    // Each template spans its own half-width; the widest sets the segment geometry.
    const auto reach = static_cast<std::ptrdiff_t>(b * static_cast<std::size_t>(half_width(z, accuracy)));
    for (std::ptrdiff_t j = -reach; j <= reach; ++j) {
      const std::size_t index =
          static_cast<std::size_t>((j + static_cast<std::ptrdiff_t>(L)) % static_cast<std::ptrdiff_t>(L));
      bank.taps[t][index] = std::conj(response(static_cast<double>(j) / numbetween, z));
    }
  }
  return bank;
}

}  // namespace astrosweep::fdas
