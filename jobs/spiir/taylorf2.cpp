#include "taylorf2.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "core/error.hpp"
#include "core/text.hpp"
#include "fft.hpp"

namespace astrosweep::spiir {

namespace {

constexpr double pi = std::numbers::pi;
constexpr double euler_gamma = 0.57721566490153286061;
constexpr double speed_of_light = 299792458.0;        // m/s
constexpr double megaparsec = 3.0856775814913673e22;  // m

// A cos² ramp over the band's first and last 5 %: a hard band edge rings in time (a sinc tail)
// and that ripple, though tiny, swamps the chirp's phase curvature that spec §3's step rule reads.
double edge_taper(double f, double f_low, double f_final) {
  const double rise = 0.05 * f_low;
  const double fall = 0.05 * f_final;
  double w = 1;
  if (f < f_low + rise) w *= std::pow(std::sin(0.5 * pi * (f - f_low) / rise), 2);
  if (f > f_final - fall) w *= std::pow(std::sin(0.5 * pi * (f_final - f) / fall), 2);
  return w;
}

}  // namespace

std::string format_masses(const Binary& binary) { return format_text("%.6g+%.6g Msun", binary.mass1, binary.mass2); }

double Binary::chirp_mass_s() const { return std::pow(eta(), 0.6) * total_s(); }

double f_isco(const Binary& binary) { return 1.0 / (std::pow(6.0, 1.5) * pi * binary.total_s()); }

double chirp_time(const Binary& binary, double f) {
  return 5.0 / 256.0 * std::pow(binary.chirp_mass_s(), -5.0 / 3.0) * std::pow(pi * f, -8.0 / 3.0);
}

double taylorf2_phase(const Binary& binary, double f) {
  const double eta = binary.eta();
  const double v = std::cbrt(pi * binary.total_s() * f);
  const double log_v = std::log(v);
  const double psi5 = pi * (38645.0 / 756.0 - 65.0 * eta / 9.0);
  const double psi[8] = {
      1.0,
      0.0,
      3715.0 / 756.0 + 55.0 * eta / 9.0,
      -16.0 * pi,
      15293365.0 / 508032.0 + 27145.0 * eta / 504.0 + 3085.0 * eta * eta / 72.0,
      psi5 * (1.0 + 3.0 * log_v),
      11583231236531.0 / 4694215680.0 - 640.0 * pi * pi / 3.0 - 6848.0 / 21.0 * (euler_gamma + std::log(4.0)) +
          (-15737765635.0 / 3048192.0 + 2255.0 * pi * pi / 12.0) * eta + 76055.0 * eta * eta / 1728.0 -
          127825.0 * eta * eta * eta / 1296.0 - 6848.0 / 21.0 * log_v,
      pi * (77096675.0 / 254016.0 + 378515.0 * eta / 1512.0 - 74045.0 * eta * eta / 756.0),
  };
  double sum = 0;
  double vk = 1;
  for (double term : psi) {
    sum += term * vk;
    vk *= v;
  }
  return 3.0 / (128.0 * eta * std::pow(v, 5)) * sum - pi / 4.0;
}

double taylorf2_amplitude_1mpc(const Binary& binary, double f) {
  return std::sqrt(5.0 / 24.0) * std::pow(pi, -2.0 / 3.0) * std::pow(binary.chirp_mass_s(), 5.0 / 6.0) *
         std::pow(f, -7.0 / 6.0) * speed_of_light / megaparsec;
}

void normalise_template(std::vector<std::complex<double>>& h) {
  double energy = 0;
  for (const auto& x : h) energy += std::norm(x);
  AS_EXPECTS(energy > 0, UsageError, "the template is zero everywhere");
  const double scale = std::sqrt(2.0 / energy);
  for (auto& x : h) x *= scale;
}

std::vector<std::complex<double>> cut_template_start(const std::vector<std::complex<double>>& h, double fraction) {
  double total = 0;
  for (const auto& x : h) total += std::norm(x);
  double cumulative = 0;
  std::size_t first = 0;
  while (first < h.size() && cumulative + std::norm(h[first]) < fraction * total) cumulative += std::norm(h[first++]);
  return {h.begin() + static_cast<std::ptrdiff_t>(first), h.end()};
}

std::vector<double> unwrapped_phase(const std::vector<std::complex<double>>& h) {
  std::vector<double> phase(h.size());
  double offset = 0;
  for (std::size_t i = 0; i < h.size(); ++i) {
    const double raw = std::arg(h[i]);
    if (i > 0) {
      const double previous = phase[i - 1] - offset;
      if (raw - previous > pi) offset -= 2 * pi;
      if (raw - previous < -pi) offset += 2 * pi;
    }
    phase[i] = raw + offset;
  }
  return phase;
}

WhitenedTemplate taylorf2_template(const Binary& binary, const TemplateSettings& settings) {
  AS_EXPECTS(binary.mass1 > 0 && binary.mass2 > 0, UsageError, "component masses must be positive");
  const double fs = settings.sample_rate;
  WhitenedTemplate out;
  out.f_final = std::min(f_isco(binary), 0.45 * fs);
  AS_EXPECTS(settings.f_low > 0 && settings.f_low < out.f_final, UsageError,
             format_masses(binary) + ": f_low must lie below the template's final frequency " +
                 std::to_string(out.f_final) + " Hz",
             "lower --f-low or raise --sample-rate");
  // The window: a power of two ≥ twice the chirp time plus 32 s; coalescence 1 s before its end.
  const double tau = chirp_time(binary, settings.f_low);
  const auto n_window = next_power_of_two(static_cast<std::uint64_t>(std::ceil((2 * tau + 32) * fs)));
  const double t_window = static_cast<double>(n_window) / fs;
  const auto n_coalescence = n_window - static_cast<std::uint64_t>(fs);
  const double t_c = static_cast<double>(n_coalescence) / fs;
  const double df = 1.0 / t_window;
  const double white_psd = 2.0 / fs;  // unit variance per sample
  std::vector<std::complex<double>> data(n_window);
  double sigmasq = 0;
  const auto k_low = static_cast<std::uint64_t>(std::ceil(settings.f_low / df));
  const auto k_high = static_cast<std::uint64_t>(std::floor(out.f_final / df));
  for (std::uint64_t k = k_low; k <= k_high && k < n_window / 2; ++k) {
    const double f = static_cast<double>(k) * df;
    const double psd = settings.psd ? settings.psd(f) : white_psd;
    AS_EXPECTS(psd > 0 && std::isfinite(psd), InputError,
               "the PSD is not positive and finite at " + std::to_string(f) + " Hz");
    const double magnitude = std::pow(f, -7.0 / 6.0);
    const double taper = edge_taper(f, settings.f_low, out.f_final);
    const double phase = 2 * pi * f * t_c + taylorf2_phase(binary, f);
    // Whitened and analytic: positive frequencies doubled, negative ones zero.
    data[k] = std::polar(2.0 * taper * magnitude / std::sqrt(psd), -phase);
    sigmasq += 4.0 * std::pow(taper * taylorf2_amplitude_1mpc(binary, f), 2) / psd * df;
  }
  fft_in_place(data, FftDirection::backward);
  // The merger sample: where the frequency-domain template ends, t(f) = t_c + Ψ'_PN(f) / 2π.
  const double step = 1e-3 * out.f_final;
  const double dpsi =
      (taylorf2_phase(binary, out.f_final + step) - taylorf2_phase(binary, out.f_final - step)) / (2 * step);
  const double t_end = t_c + dpsi / (2 * pi);
  auto n_end = static_cast<std::uint64_t>(std::llround(t_end * fs));
  n_end = std::min(n_end, n_coalescence);
  // Keep the second half (the wrap-around of the transform lies in the first), Tukey-tapered over
  // 0.5 s at each end, up to the merger.
  const std::uint64_t n_half = n_window / 2;
  const auto n_taper = static_cast<std::uint64_t>(0.5 * fs);
  std::vector<std::complex<double>> h(data.begin() + static_cast<std::ptrdiff_t>(n_half),
                                      data.begin() + static_cast<std::ptrdiff_t>(n_end + 1));
  for (std::uint64_t i = 0; i < n_taper && i < h.size(); ++i) {
    const double w = 0.5 * (1 - std::cos(pi * static_cast<double>(i) / static_cast<double>(n_taper)));
    h[i] *= w;
  }
  h = cut_template_start(h);
  normalise_template(h);
  out.h = std::move(h);
  out.duration = static_cast<double>(out.h.size()) / fs;
  out.end_offset = t_c - static_cast<double>(n_end) / fs;
  out.sigmasq = sigmasq;
  return out;
}

std::vector<std::complex<double>> newtonian_chirp(const Binary& binary, double f_low, double sample_rate) {
  const double mc = binary.chirp_mass_s();
  const double f_end = std::min(f_isco(binary), 0.45 * sample_rate);
  AS_EXPECTS(f_low > 0 && f_low < f_end, UsageError, "f_low must lie below the chirp's final frequency");
  const double tau_start = chirp_time(binary, f_low);
  const double tau_end = chirp_time(binary, f_end);
  const auto n = static_cast<std::size_t>(std::floor((tau_start - tau_end) * sample_rate)) + 1;
  std::vector<std::complex<double>> h(n);
  for (std::size_t i = 0; i < n; ++i) {
    const double tau = tau_start - static_cast<double>(i) / sample_rate;
    const double f = std::pow(5.0 / tau, 3.0 / 8.0) * std::pow(mc, -5.0 / 8.0) / (8 * pi);
    const double phase = -2.0 * std::pow(tau / (5 * mc), 5.0 / 8.0);
    h[i] = std::polar(std::pow(f, 2.0 / 3.0), phase);
  }
  normalise_template(h);
  return h;
}

}  // namespace astrosweep::spiir
