#pragma once
// The CPU's per-task parts of the coherent search (coherent_snr.cpp's coherent_search over
// NetworkSnr, coherent_history.cpp's over SNR histories): the pixel tables in the search's
// precision, the pixel loop and reported_pixel, the χ²'s tables and the rest of a task at its
// pixel. Each reads a task's series through `Bases`, one pointer per detector at the task's base
// sample (the candidate's, the trial's slide applied), wherever the samples lie.
#include <array>
#include <cmath>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "autocorrelation_chisq.hpp"
#include "coherent_snr.hpp"
#include "subsample_interpolation.hpp"

namespace astrosweep::spiir::coherent_parts {

/// Each detector's series at a task's base sample.
using Bases = std::array<const std::complex<double>*, 3>;

// What the pixel loop reads, in the search's precision: the two signal columns per pixel (ρ_null² =
// Σ|ζ|² − ρ_coh²) and, with subsample, each (reference, pixel, detector)'s first tap and weights.
template <typename Real>
struct PixelTables {
  std::vector<Real> u01;  // [(p · 2 + k) · n_det + d]
  bool subsample = false;
  std::vector<std::int32_t> first_tap;  // as SkyMap::offsets
  std::vector<Real> weights;            // interpolation_taps per first_tap entry

  // `refs`: the reference detectors whose weights are needed (the others' stay empty).
  PixelTables(const SkyMap& map, bool sub, const std::vector<bool>& refs) : subsample(sub) {
    const std::size_t n_det = map.n_det();
    u01.resize(map.n_pix() * 2 * n_det);
    for (std::size_t p = 0; p < map.n_pix(); ++p)
      for (std::size_t k = 0; k < 2; ++k)
        for (std::size_t d = 0; d < n_det; ++d) u01[(p * 2 + k) * n_det + d] = static_cast<Real>(map.u_at(p, k, d));
    if (!subsample) return;
    first_tap.resize(map.delays.size());
    weights.resize(map.delays.size() * interpolation_taps);
    double w[interpolation_taps];
    for (std::size_t i = 0; i < map.delays.size(); ++i) {
      if (!refs[i / (map.n_pix() * n_det)]) continue;
      const double x = map.delays[i];
      first_tap[i] = interpolation_first_tap(x);
      interpolation_weights(x - std::floor(x), w);
      for (std::size_t j = 0; j < interpolation_taps; ++j)
        weights[i * interpolation_taps + j] = static_cast<Real>(w[j]);
    }
  }

  // ζ of the series `base` (the candidate's sample, slide applied) at entry `i` of the offsets.
  [[nodiscard]] std::complex<Real> zeta(const SkyMap& map, const std::complex<double>* base, std::size_t i) const {
    if (!subsample) {
      const std::complex<double> z = base[map.offsets[i]];
      return {static_cast<Real>(z.real()), static_cast<Real>(z.imag())};
    }
    const std::complex<double>* first = base + first_tap[i];
    const Real* w = &weights[i * interpolation_taps];
    Real re = 0, im = 0;
    for (std::size_t j = 0; j < interpolation_taps; ++j) {
      re += w[j] * static_cast<Real>(first[j].real());
      im += w[j] * static_cast<Real>(first[j].imag());
    }
    return {re, im};
  }

  // ρ_coh² of pixel p, with Σ|ζ_d|² in `total`.
  Real coherent(const SkyMap& map, const std::array<const std::complex<double>*, 3>& base, std::size_t ref,
                std::size_t p, Real& total) const {
    const std::size_t n_det = map.n_det(), n_pix = map.n_pix();
    const Real* u = &u01[p * 2 * n_det];
    Real w0r = 0, w0i = 0, w1r = 0, w1i = 0;
    total = 0;
    for (std::size_t d = 0; d < n_det; ++d) {
      const std::complex<Real> z = zeta(map, base[d], (ref * n_pix + p) * n_det + d);
      const Real zr = z.real(), zi = z.imag();
      w0r += u[d] * zr;
      w0i += u[d] * zi;
      w1r += u[n_det + d] * zr;
      w1i += u[n_det + d] * zi;
      total += zr * zr + zi * zi;
    }
    return w0r * w0r + w0i * w0i + w1r * w1r + w1i * w1i;
  }
};

// The CPU's pixel loop for one task: every searched pixel's ρ_coh², then `reported_pixel`.
template <typename Real>
SkyPick pick_pixel(const SkyMap& map, const PixelTables<Real>& tables, const Bases& base, const Candidate& c, int trial,
                   const CoherentSettings& settings, std::vector<Real>& coh) {
  const std::size_t n_pix = map.n_pix();
  const auto stride = static_cast<std::size_t>(settings.sky_stride);
  const std::size_t first = static_cast<std::size_t>(trial) % stride;
  // The searched pixels' ρ_coh², in order, in the caller's buffer: one per thread, reused by its
  // tasks (this runs once per candidate and trial, 10⁵ times in §14's workload). Not thread_local:
  // OpenMP's pool threads outlive main, so their buffers would never be freed (LeakSanitizer).
  coh.clear();
  Real total = 0;
  for (std::size_t p = first; p < n_pix; p += stride) coh.push_back(tables.coherent(map, base, c.ref_ifo, p, total));
  const std::size_t winner = reported_pixel(std::span<const Real>(coh));
  const std::size_t best = first + winner * stride;
  const Real best_coh = tables.coherent(map, base, c.ref_ifo, best, total);
  return {static_cast<std::int64_t>(best), static_cast<double>(best_coh), static_cast<double>(total)};
}

// The autocorrelations and, per [d · n_templates + j], the χ²'s denominator of the candidates'
// templates (taken once per search, not per read; the other templates' are never read).
struct ChisqTables {
  const TemplateAutocorrelations& ac;
  std::vector<double> norms;

  ChisqTables(const TemplateAutocorrelations& autocorrelations, std::span<const Candidate> candidates)
      : ac(autocorrelations), norms(autocorrelations.per_ifo.size() * autocorrelations.n_templates, 0.0) {
    std::vector<bool> used(ac.n_templates, false);
    for (const Candidate& c : candidates) used[c.tmpl] = true;
    for (std::size_t d = 0; d < ac.per_ifo.size(); ++d)
      for (std::size_t j = 0; j < ac.n_templates; ++j)
        if (used[j]) norms[d * ac.n_templates + j] = autocorrelation_chisq_norm(ac.of(d, j), ac.length);
  }
  [[nodiscard]] double norm(std::size_t d, std::size_t j) const { return norms[d * ac.n_templates + j]; }
};

// The rest of one task at the picked pixel (on the CPU whichever device picked it): ρ_null², ζ,
// offsets, delays and the χ² in double. `window`: the caller's scratch for a subsample χ² window,
// one per thread (this runs per candidate and trial: 1.9·10⁵ times in a latency-bench chunk).
template <typename Real>
void finish_one(const SkyMap& map, const Bases& base, const ChisqTables& chisq, const Candidate& c, int trial,
                const CoherentSettings& settings, const SkyPick& pick, std::vector<std::complex<double>>& window,
                CoherentResult& out) {
  const std::size_t n_det = map.n_det();
  const auto best = static_cast<std::size_t>(pick.pixel);
  const auto best_coh = static_cast<Real>(pick.coh_snr2);  // exact: the pick holds values of Real
  const auto best_total = static_cast<Real>(pick.total);
  out.coh_snr2 = static_cast<double>(best_coh);
  out.null_snr2 = static_cast<double>(resolved_null_energy(best_total - best_coh, best_total));
  out.pixel = pick.pixel;
  out.snr.resize(n_det);
  out.chisq.resize(n_det);
  out.offset.resize(n_det);
  out.delay.resize(n_det);
  out.network_chisq = 0;
  const std::size_t k_half = chisq.ac.half_length(), length = chisq.ac.length;
  if (settings.subsample) window.resize(n_det * length);  // detector d's at d · length
  std::array<const std::complex<double>*, 3> centres{}, r{};
  std::array<double, 3> norms{};
  for (std::size_t d = 0; d < n_det; ++d) {
    const std::int32_t off = map.offset(c.ref_ifo, best, d);
    const double delay = settings.subsample ? map.delay(c.ref_ifo, best, d) : off;
    const auto slide = static_cast<std::int32_t>(d == c.ref_ifo ? 0 : trial * settings.slide_samples);
    const std::complex<double>* centre = base[d] + off;
    if (settings.subsample) {  // the χ² window read at the same fractional alignment, in double
      std::complex<double>* mine = window.data() + d * length;
      for (std::size_t s = 0; s < length; ++s)
        mine[s] = interpolate_at(base[d] + static_cast<std::ptrdiff_t>(s) - static_cast<std::ptrdiff_t>(k_half), delay);
      centre = mine + k_half;
    }
    out.snr[d] = *centre;
    out.offset[d] = off - slide;
    out.delay[d] = delay - slide;
    centres[d] = centre;
    r[d] = chisq.ac.of(d, c.tmpl);
    norms[d] = chisq.norm(d, c.tmpl);
  }
  autocorrelation_chisq(n_det, centres.data(), r.data(), length, norms.data(), out.chisq.data());
  for (std::size_t d = 0; d < n_det; ++d) out.network_chisq += out.chisq[d];
}

}  // namespace astrosweep::spiir::coherent_parts
