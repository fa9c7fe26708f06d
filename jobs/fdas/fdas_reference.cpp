#include "fdas_reference.hpp"

#include <cmath>
#include <numbers>

#include "core/error.hpp"

namespace astrosweep::fdas {

std::complex<double> chirp_dft(std::span<const float> x, double r, double z) {
  const auto n_total = static_cast<double>(x.size());
  std::complex<double> sum = 0;
  for (std::size_t n = 0; n < x.size(); ++n) {
    const double u = static_cast<double>(n) / n_total;
    // The phase in turns, reduced to [0, 1) before the trigonometry so that large r·u keep their
    // fractional digits.
    double turns = (r - z / 2) * u + z / 2 * u * u;
    turns -= std::floor(turns);
    const double phase = -2 * std::numbers::pi * turns;
    sum += static_cast<double>(x[n]) * std::complex<double>(std::cos(phase), std::sin(phase));
  }
  return sum;
}

std::vector<double> chirp_dft_power(std::span<const float> x, std::span<const ReferenceCell> cells, double variance) {
  AS_EXPECTS(variance > 0, UsageError, "the reference needs the input's noise variance (> 0)");
  std::vector<double> power(cells.size());
  const double scale = 1 / (static_cast<double>(x.size()) * variance);
#pragma omp parallel for schedule(dynamic)
  for (std::size_t i = 0; i < cells.size(); ++i) power[i] = std::norm(chirp_dft(x, cells[i].r, cells[i].z)) * scale;
  return power;
}

}  // namespace astrosweep::fdas
