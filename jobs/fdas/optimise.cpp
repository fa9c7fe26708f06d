#include "optimise.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <numbers>

#include "core/error.hpp"

namespace astrosweep::fdas {

std::complex<double> interpolate_amplitude(std::span<const std::complex<float>> spectrum, double r, double z,
                                           Accuracy accuracy) {
  const int m = half_width(z, accuracy);
  const auto first = static_cast<long long>(std::floor(r)) - m;
  const auto last = static_cast<long long>(std::ceil(r)) + m;
  std::complex<double> a = 0;
  for (long long k = std::max(0LL, first); k <= last && k < static_cast<long long>(spectrum.size()); ++k)
    a += std::complex<double>(spectrum[static_cast<std::size_t>(k)]) *
         std::conj(response(r - static_cast<double>(k), z));
  return a;
}

namespace {

double summed_power(std::span<const std::complex<float>> spectrum, double r, double z, int numharm, Accuracy acc,
                    int threads) {
  double sum = 0;
  if (threads <= 1 || numharm == 1) {
    for (int h = 1; h <= numharm; ++h) sum += std::norm(interpolate_amplitude(spectrum, h * r, h * z, acc));
    return sum;
  }
  // The highest harmonics (the widest responses) first; the sum in the serial order.
  std::array<double, 32> power{};
#pragma omp parallel for schedule(dynamic, 1) num_threads(std::min(threads, numharm))
  for (int h = numharm; h >= 1; --h)
    power[static_cast<std::size_t>(h - 1)] = std::norm(interpolate_amplitude(spectrum, h * r, h * z, acc));
  for (int h = 1; h <= numharm; ++h) sum += power[static_cast<std::size_t>(h - 1)];
  return sum;
}

}  // namespace

Polished polish(std::span<const std::complex<float>> spectrum, double r, double z, int numharm, Accuracy accuracy,
                int threads) {
  AS_EXPECTS(numharm >= 1 && numharm <= 32, UsageError, "polish: numharm must be 1 to 32");
  using Point = std::array<double, 2>;
  auto cost = [&](const Point& p) { return -summed_power(spectrum, p[0], p[1], numharm, accuracy, threads); };
  // Nelder–Mead with the standard coefficients (reflection 1, expansion 2, contraction ½, shrink ½).
  std::array<Point, 3> s{Point{r, z}, Point{r + 0.5, z}, Point{r, z + 2.0}};
  std::array<double, 3> f{cost(s[0]), cost(s[1]), cost(s[2])};
  for (int iteration = 0; iteration < 500; ++iteration) {
    std::array<int, 3> order{0, 1, 2};
    std::sort(order.begin(), order.end(), [&](int a, int b) { return f[a] < f[b]; });
    const int best = order[0], mid = order[1], worst = order[2];
    if (std::abs(s[worst][0] - s[best][0]) < 1e-5 && std::abs(s[worst][1] - s[best][1]) < 1e-4 &&
        std::abs(s[mid][0] - s[best][0]) < 1e-5 && std::abs(s[mid][1] - s[best][1]) < 1e-4)
      break;
    const Point c{(s[best][0] + s[mid][0]) / 2, (s[best][1] + s[mid][1]) / 2};
    auto along = [&](double t) { return Point{c[0] + t * (s[worst][0] - c[0]), c[1] + t * (s[worst][1] - c[1])}; };
    const Point reflected = along(-1);
    const double fr = cost(reflected);
    if (fr < f[best]) {
      const Point expanded = along(-2);
      const double fe = cost(expanded);
      if (fe < fr) {
        s[worst] = expanded;
        f[worst] = fe;
      } else {
        s[worst] = reflected;
        f[worst] = fr;
      }
    } else if (fr < f[mid]) {
      s[worst] = reflected;
      f[worst] = fr;
    } else {
      const Point contracted = fr < f[worst] ? along(-0.5) : along(0.5);
      const double fc = cost(contracted);
      if (fc < std::min(fr, f[worst])) {
        s[worst] = contracted;
        f[worst] = fc;
      } else {
        for (int i : {mid, worst}) {
          s[i] = Point{(s[i][0] + s[best][0]) / 2, (s[i][1] + s[best][1]) / 2};
          f[i] = cost(s[i]);
        }
      }
    }
  }
  const int best = static_cast<int>(std::min_element(f.begin(), f.end()) - f.begin());
  Polished p;
  p.r = s[best][0];
  p.z = s[best][1];
  for (int h = 1; h <= numharm; ++h) {
    const auto a = interpolate_amplitude(spectrum, h * p.r, h * p.z, accuracy);
    p.harmonics.push_back({std::norm(a), std::arg(a)});
    p.summed_power += std::norm(a);
  }
  const double phi1 = p.harmonics.front().phase;
  std::complex<double> coherent = 0;
  for (int h = 1; h <= numharm; ++h) {
    const auto& harmonic = p.harmonics[static_cast<std::size_t>(h - 1)];
    const double locked = std::fmod(h * phi1, 2 * std::numbers::pi);
    coherent += std::polar(std::sqrt(harmonic.power), harmonic.phase + phi1 - locked);
  }
  p.coherent_power = std::norm(coherent);
  return p;
}

}  // namespace astrosweep::fdas
