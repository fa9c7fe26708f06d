#pragma once
// What the coherent-stage tests share: a three-detector single-rate bank (1.4+1.4 M☉ from 60 Hz,
// 2048 Hz, white; 4096 Hz for one experiment), injections x_d += Re(c_d h) (which the filter
// turns into ζ_d ≈ conj(c_d) at the template's end, spec §2), band-limited fractional delays, the
// filtering of every detector through the OpenMP backend, a filtered noise network with its
// candidates, and the Kolmogorov-Smirnov tests.
#include <algorithm>
#include <cmath>
#include <complex>
#include <functional>
#include <numbers>
#include <random>
#include <string>
#include <vector>

#include "bank_generation.hpp"
#include "coherent_snr.hpp"
#include "detector_geometry.hpp"
#include "fft.hpp"
#include "filter_test_support.hpp"
#include "spiir_backend.hpp"

namespace astrosweep::spiir::coherent_test {

inline constexpr double gps = 1187008882.4;  // GW170817's day: the sky maps' sidereal time
inline const std::vector<std::string> hlv{"H1", "L1", "V1"};

struct Network {
  SpiirBank bank;
  WhitenedTemplate tmpl;
  explicit Network(double sample_rate = 2048) {
    BankSettings s;
    s.f_low = 60;
    s.sample_rate = sample_rate;
    s.n_rates = 1;
    s.ifos = hlv;
    bank = make_spiir_bank({{1.4, 1.4}}, s);
    tmpl = taylorf2_template({1.4, 1.4}, {60, sample_rate, {}});
  }
  [[nodiscard]] std::vector<double> sigma(const std::vector<std::string>& ifos) const {
    std::vector<double> out;
    for (const auto& ifo : ifos) out.push_back(std::sqrt(bank.sigmasq.at(ifo)[0]));
    return out;
  }
};

/// The 2048 Hz network (every test's) or, for the sample-rate experiment, the 4096 Hz one.
inline const Network& network(double sample_rate = 2048) {
  if (sample_rate == 4096) {
    static const Network n(4096);
    return n;
  }
  static const Network n;
  return n;
}

/// x[end − N + 1 + s] += Re(c · h[s]): the template ending at sample `end`.
inline void inject(std::vector<double>& x, const std::vector<std::complex<double>>& h, std::int64_t end,
                   std::complex<double> c) {
  const std::int64_t start = end - static_cast<std::int64_t>(h.size()) + 1;
  for (std::size_t s = 0; s < h.size(); ++s) {
    const std::int64_t at = start + static_cast<std::int64_t>(s);
    if (at >= 0 && at < static_cast<std::int64_t>(x.size())) x[static_cast<std::size_t>(at)] += (c * h[s]).real();
  }
}

/// The complex amplitude F+ h+ + F× h× of a source with inclination ι and phase φ0 in a detector
/// of sensitivity σ: σ (F+ (1 + cos²ι)/2 e^{iφ0} + F× cos ι e^{i(φ0 − π/2)}) times `scale`.
inline std::complex<double> source_amplitude(const AntennaPattern& f, double sigma, double iota, double phi0,
                                             double scale) {
  const double ci = std::cos(iota);
  return scale * sigma *
         (f.plus * 0.5 * (1 + ci * ci) * std::polar(1.0, phi0) + f.cross * ci * std::polar(1.0, phi0 - M_PI / 2));
}

inline NetworkSnr filter_network(const std::vector<std::string>& ifos, const std::vector<std::vector<double>>& x,
                                 double sample_rate = 2048) {
  NetworkSnr snr;
  snr.ifos = ifos;
  snr.n_templates = 1;
  snr.n_samples = x[0].size();
  for (const auto& xd : x) {
    auto backend = make_spiir_backend_cpu(*network(sample_rate).bank.single_rate(), Precision::fp64, {});
    std::vector<std::complex<double>> z(xd.size());
    backend->filter(xd, z);
    snr.z.push_back(std::move(z));
  }
  return snr;
}

// 64 s of white noise in H1, L1, V1 (fixed seeds), filtered.
struct NoiseNetwork {
  NetworkSnr snr;
  TemplateAutocorrelations ac;
  NoiseNetwork() {
    std::vector<std::vector<double>> x;
    for (unsigned d = 0; d < 3; ++d) x.push_back(white_noise(64 * 2048, 101 + d));
    snr = filter_network(hlv, x);
    ac = TemplateAutocorrelations::from_bank(network().bank, hlv, "test bank");
  }
};

inline const NoiseNetwork& noise() {
  static const NoiseNetwork n;
  return n;
}

// Past the warm-up (one template length), every 64 samples (31 ms: beyond the SNR's correlation).
inline std::vector<Candidate> noise_candidates(std::size_t count, std::int64_t first) {
  std::vector<Candidate> c;
  for (std::size_t i = 0; i < count; ++i) c.push_back({i % 3, 0, first + static_cast<std::int64_t>(i) * 1999});
  return c;
}

inline constexpr std::size_t pad = 64;

// h delayed by `fraction` of a sample (band-limited: a phase ramp in the frequency domain), with
// `pad` samples either side so the ringing of the cut ends is kept: element pad + s is h[s].
inline std::vector<std::complex<double>> delayed(const std::vector<std::complex<double>>& h, double fraction) {
  const std::size_t m = next_power_of_two(h.size() + 2 * pad);
  std::vector<std::complex<double>> x(m);
  std::copy(h.begin(), h.end(), x.begin() + pad);
  fft_in_place(x, FftDirection::forward);
  for (std::size_t k = 0; k < m; ++k) {
    const double nu = (k <= m / 2 ? static_cast<double>(k) : static_cast<double>(k) - static_cast<double>(m)) /
                      static_cast<double>(m);
    x[k] *= std::polar(1.0 / static_cast<double>(m), -2 * std::numbers::pi * nu * fraction);
  }
  fft_in_place(x, FftDirection::backward);
  x.resize(h.size() + 2 * pad);
  return x;
}

/// Q_KS(λ) = 2 Σ (−1)^{j−1} e^{−2 j² λ²}: the Kolmogorov distribution's tail.
inline double kolmogorov_tail(double lambda) {
  if (lambda < 0.2) return 1;
  double sum = 0;
  for (int j = 1; j <= 100; ++j) sum += (j % 2 ? 2.0 : -2.0) * std::exp(-2.0 * j * j * lambda * lambda);
  return std::clamp(sum, 0.0, 1.0);
}

/// One-sample KS p-value of `x` against the distribution function `cdf`.
inline double ks_p_value(std::vector<double> x, const std::function<double(double)>& cdf) {
  std::sort(x.begin(), x.end());
  const double n = static_cast<double>(x.size());
  double d = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double f = cdf(x[i]);
    d = std::max({d, f - static_cast<double>(i) / n, static_cast<double>(i + 1) / n - f});
  }
  const double s = std::sqrt(n);
  return kolmogorov_tail((s + 0.12 + 0.11 / s) * d);
}

/// Two-sample KS p-value.
inline double ks_p_value(std::vector<double> a, std::vector<double> b) {
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  std::size_t i = 0, j = 0;
  double d = 0;
  while (i < a.size() && j < b.size()) {
    const double v = std::min(a[i], b[j]);
    while (i < a.size() && a[i] <= v) ++i;
    while (j < b.size() && b[j] <= v) ++j;
    d = std::max(d, std::abs(static_cast<double>(i) / static_cast<double>(a.size()) -
                             static_cast<double>(j) / static_cast<double>(b.size())));
  }
  const double ne = static_cast<double>(a.size() * b.size()) / static_cast<double>(a.size() + b.size());
  const double s = std::sqrt(ne);
  return kolmogorov_tail((s + 0.12 + 0.11 / s) * d);
}

inline double chi2_cdf_4(double x) { return 1 - std::exp(-x / 2) * (1 + x / 2); }
inline double chi2_cdf_2(double x) { return 1 - std::exp(-x / 2); }

}  // namespace astrosweep::spiir::coherent_test
