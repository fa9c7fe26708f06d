#include "iir_coefficients.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <optional>

#include "core/error.hpp"
#include "taylorf2.hpp"

namespace astrosweep::spiir {

namespace {

constexpr double two_pi = 2 * std::numbers::pi;

// round(x) = ⌊x + 0.5⌋ (spec §3), not std::round, which differs for negative halves.
std::int64_t round_half_up(double x) { return static_cast<std::int64_t>(std::floor(x + 0.5)); }

// Complex products written out: -O0 builds call a NaN-checking library routine for std::complex.
inline std::complex<double> mul(std::complex<double> a, std::complex<double> b) {
  return {a.real() * b.real() - a.imag() * b.imag(), a.real() * b.imag() + a.imag() * b.real()};
}

}  // namespace

std::vector<IirFilter> iir_filters(std::span<const double> amplitude, std::span<const double> phase,
                                   const IirParameters& parameters) {
  AS_EXPECTS(amplitude.size() == phase.size(), UsageError, "amplitude and phase differ in length");
  AS_EXPECTS(parameters.epsilon > 0 && parameters.alpha > 0 && parameters.beta > 0, UsageError,
             "epsilon, alpha and beta must be positive");
  const auto n = static_cast<std::int64_t>(phase.size());
  const auto phi = [&](std::int64_t i) { return phase[static_cast<std::size_t>(i)]; };
  std::vector<IirFilter> filters;
  std::int64_t j = n - 1;
  while (j >= 2) {
    const double phase_ddot = (phi(j - 2) - 2 * phi(j - 1) + phi(j)) / two_pi;  // cycles / sample²
    // The step bounds the quadratic phase error ½|φ̈|J² of a filter's linear phase, whichever the
    // curvature's sign (the ripple near the merger makes it change sign), and is never longer than
    // the samples left (as lalinspiral's XLALInspiralGenerateIIRSet: its last filter takes J = j);
    // no curvature: one step to the start.
    const double exact_step = std::sqrt(2 * parameters.epsilon / std::abs(phase_ddot));
    const std::int64_t step =
        exact_step < static_cast<double>(j) ? std::max<std::int64_t>(1, round_half_up(exact_step)) : j;  // NaN: j
    const std::int64_t k = round_half_up(static_cast<double>(j) - parameters.alpha * static_cast<double>(step));
    if (k <= 2) break;
    const double phase_dot = k > n - 3 ? 11.0 / 6.0 * phi(k) - 3 * phi(k - 1) + 1.5 * phi(k - 2) - phi(k - 3) / 3.0
                                       : (-phi(k + 2) + 8 * (phi(k + 1) - phi(k - 1)) + phi(k - 2)) / 12.0;
    IirFilter filter;
    filter.a1 = std::exp(-parameters.beta / static_cast<double>(step)) * std::polar(1.0, -phase_dot);
    filter.b0 = std::polar(amplitude[static_cast<std::size_t>(k)], phi(k) + phase_dot * static_cast<double>(j - k));
    filter.delay = n - 1 - j;
    filters.push_back(filter);
    j -= step;
  }
  return filters;
}

std::vector<std::complex<double>> iir_response(std::span<const IirFilter> filters, std::size_t length) {
  std::vector<std::complex<double>> u(length);
  for (const auto& filter : filters) {
    if (filter.delay < 0 || static_cast<std::size_t>(filter.delay) >= length) continue;
    std::complex<double> y = filter.b0;
    for (auto m = static_cast<std::size_t>(filter.delay); m < length; ++m) {
      u[m] += y;
      y = mul(y, filter.a1);
    }
  }
  return u;
}

std::size_t response_length(std::size_t template_length) {
  std::size_t p = 1;
  while (p < template_length + 201) p <<= 1;
  return p;
}

double iir_overlap(std::span<const std::complex<double>> response, std::span<const std::complex<double>> h) {
  AS_ASSERT(response.size() >= h.size());
  const std::size_t n = h.size();
  std::complex<double> sum = 0;
  double u_energy = 0;
  double h_energy = 0;
  for (const auto& x : response) u_energy += std::norm(x);
  for (std::size_t s = 0; s < n; ++s) {
    sum += mul(response[n - 1 - s], std::conj(h[s]));
    h_energy += std::norm(h[s]);
  }
  if (u_energy == 0 || h_energy == 0) return 0;
  return std::abs(sum) / std::sqrt(u_energy * h_energy);
}

namespace {

// One fit at a given ε: the filters with b0 scaled to Σ|u|² = 2, and their overlap.
IirFit fit_at(std::span<const std::complex<double>> h, std::span<const double> amplitude, std::span<const double> phase,
              IirParameters parameters) {
  IirFit fit;
  fit.epsilon = parameters.epsilon;
  fit.filters = iir_filters(amplitude, phase, parameters);
  const auto u = iir_response(fit.filters, response_length(h.size()));
  double energy = 0;
  for (const auto& x : u) energy += std::norm(x);
  if (energy > 0) {
    const double scale = std::sqrt(2.0 / energy);
    for (auto& f : fit.filters) f.b0 *= scale;
  }
  fit.match = iir_overlap(u, h);
  return fit;
}

// -1: ε should fall (more filters, better match), +1: rise (fewer filters), 0: requirement met.
int wanted_direction(const IirFit& fit, const FitRequirement& requirement) {
  if (requirement.max_filters > 0 && fit.filters.size() > requirement.max_filters) return +1;
  if (requirement.min_match > 0 && fit.match < requirement.min_match) return -1;
  if (requirement.min_filters > 0 && fit.filters.size() < requirement.min_filters) return -1;
  return 0;
}

}  // namespace

IirFit fit_iir(std::span<const std::complex<double>> h, const IirParameters& parameters,
               const FitRequirement& requirement) {
  AS_EXPECTS(h.size() >= 4, UsageError, "a template needs at least 4 samples");
  std::vector<double> amplitude(h.size());
  for (std::size_t i = 0; i < h.size(); ++i) amplitude[i] = std::abs(h[i]);
  const auto phase = unwrapped_phase(std::vector<std::complex<double>>(h.begin(), h.end()));
  IirParameters p = parameters;
  IirFit fit = fit_at(h, amplitude, phase, p);
  if (!requirement.any()) return fit;
  constexpr double epsilon_floor = 0.001;
  constexpr int max_rounds = 10;
  int direction = wanted_direction(fit, requirement);
  if (direction == 0) return fit;
  // Bracket: step ε by ×2 or ÷2 until the requirement is met (or a limit is reached).
  std::optional<IirFit> met;
  IirFit failing = fit;
  int rounds = 1;
  while (rounds < max_rounds) {
    double next = direction < 0 ? p.epsilon / 2 : p.epsilon * 2;
    if (direction < 0) next = std::max(next, epsilon_floor);
    if (direction > 0 && requirement.max_epsilon > 0) next = std::min(next, requirement.max_epsilon);
    if (next == p.epsilon) break;
    p.epsilon = next;
    IirFit trial = fit_at(h, amplitude, phase, p);
    ++rounds;
    if (wanted_direction(trial, requirement) == 0) {
      met = std::move(trial);
      break;
    }
    failing = std::move(trial);
  }
  if (!met) {
    failing.met = false;
    return failing;
  }
  // Bisect geometrically between the failing and the passing ε, keeping the passing fit nearest
  // the failing side (the fewest filters that meet the requirement, or the best match).
  double fail_eps = failing.epsilon;
  while (rounds < max_rounds) {
    p.epsilon = std::sqrt(fail_eps * met->epsilon);
    IirFit trial = fit_at(h, amplitude, phase, p);
    ++rounds;
    if (wanted_direction(trial, requirement) == 0) {
      met = std::move(trial);
    } else {
      fail_eps = trial.epsilon;
    }
  }
  return *met;
}

}  // namespace astrosweep::spiir
