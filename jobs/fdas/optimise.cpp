#include "optimise.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <numbers>

#include "core/error.hpp"

namespace astrosweep::fdas {

std::complex<double> interpolate_amplitude(std::span<const std::complex<float>> spectrum, double r, double z,
                                           Accuracy accuracy) {
  return interpolate_amplitude_with(spectrum, r, z, accuracy, [z](double delta) { return response(delta, z); });
}

namespace {

// The bins [first, last] of the window of A(r, z) within the spectrum (empty: first > last).
struct Window {
  long long first, last;
};

Window window_of(std::size_t bins, double r, double z, Accuracy accuracy) {
  const int m = half_width(z, accuracy);
  return {std::max(0LL, static_cast<long long>(std::floor(r)) - m),
          std::min(static_cast<long long>(std::ceil(r)) + m, static_cast<long long>(bins) - 1)};
}

// Σ_h |A(h·r, h·z)|². On several threads the terms F_k · conj(R(h·r − k, h·z)) of every harmonic
// are computed in one parallel loop (the responses are the cost; a harmonic alone would leave
// threads idle, as would the widest harmonic among the others), then each harmonic's terms are
// added in bin order as interpolate_amplitude adds them: the same bits on any thread count.
class SummedPower {
 public:
  static constexpr std::ptrdiff_t min_terms_per_thread = 512;

  SummedPower(std::span<const std::complex<float>> spectrum, int numharm, Accuracy accuracy, int threads)
      : spectrum_(spectrum), numharm_(numharm), accuracy_(accuracy), threads_(threads) {}

  double operator()(double r, double z) {
    double sum = 0;
    if (threads_ <= 1) {
      for (int h = 1; h <= numharm_; ++h) sum += std::norm(interpolate_amplitude(spectrum_, h * r, h * z, accuracy_));
      return sum;
    }
    offsets_.assign(1, 0);
    windows_.clear();
    for (int h = 1; h <= numharm_; ++h) {
      windows_.push_back(window_of(spectrum_.size(), h * r, h * z, accuracy_));
      const Window& w = windows_.back();
      offsets_.push_back(offsets_.back() + static_cast<std::size_t>(std::max(0LL, w.last - w.first + 1)));
    }
    terms_.resize(offsets_.back());
    const auto n_terms = static_cast<std::ptrdiff_t>(terms_.size());
    // A step worth spreading: at least min_terms_per_thread responses (≈ 0.1 µs each since the
    // Fresnel integrals come from a table) per thread, some 50 µs, against a few µs to start and
    // join a team when every thread is at hand and far more when one is descheduled (a GPU rank's
    // other lanes keep the cores busy). Chunks handed out as threads come: a thread
    // that starts late (a busy machine) finds the work done instead of holding its share back.
    const int team = static_cast<int>(std::clamp<std::ptrdiff_t>(n_terms / min_terms_per_thread, 1, threads_));
#pragma omp parallel for schedule(dynamic, 32) num_threads(team) if (team > 1)
    for (std::ptrdiff_t i = 0; i < n_terms; ++i) {
      // The harmonic of term i: the last whose first term is at or before it.
      const auto at = static_cast<std::size_t>(i);
      const auto h =
          static_cast<std::size_t>(std::upper_bound(offsets_.begin(), offsets_.end(), at) - offsets_.begin() - 1);
      const double hr = static_cast<double>(h + 1) * r, hz = static_cast<double>(h + 1) * z;
      const long long k = windows_[h].first + static_cast<long long>(at - offsets_[h]);
      terms_[at] = std::complex<double>(spectrum_[static_cast<std::size_t>(k)]) *
                   std::conj(response(hr - static_cast<double>(k), hz));
    }
    for (std::size_t h = 0; h < windows_.size(); ++h) {
      std::complex<double> a = 0;
      for (std::size_t i = offsets_[h]; i < offsets_[h + 1]; ++i) a += terms_[i];
      sum += std::norm(a);
    }
    return sum;
  }

 private:
  std::span<const std::complex<float>> spectrum_;
  int numharm_;
  Accuracy accuracy_;
  int threads_;
  std::vector<Window> windows_;
  std::vector<std::size_t> offsets_;
  std::vector<std::complex<double>> terms_;
};

}  // namespace

Polished polish(std::span<const std::complex<float>> spectrum, double r, double z, int numharm, Accuracy accuracy,
                int threads) {
  AS_EXPECTS(numharm >= 1 && numharm <= 32, UsageError, "polish: numharm must be 1 to 32");
  using Point = std::array<double, 2>;
  SummedPower summed_power(spectrum, numharm, accuracy, threads);
  auto cost = [&](const Point& p) { return -summed_power(p[0], p[1]); };
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
