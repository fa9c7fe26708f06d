// The coherent stage on filtered Gaussian noise, the spec's validation items 5 and 6 (§13): 32
// physical injections with exact (fractional) delays at random sky positions, searched with
// rounded and with sub-sample reads, and without noise; what limits their localisation (the
// mirror image's estimate with ideal statistics; finer grids, 4096 Hz, louder and more sources as
// disabled experiments); the background of time slides against the foreground on noise alone.
// Label heavy.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <iostream>
#include <numbers>
#include <random>
#include <utility>

#include "coherent_test_support.hpp"
#include "fft.hpp"

namespace astrosweep::spiir {
namespace {

using namespace coherent_test;

// The direction that the plane through the three detectors' vertices mirrors `where` into: its
// arrival times at H1, L1 and V1 are the same, so only the antenna patterns tell the two apart.
SkyDirection mirrored(const SkyDirection& where, double gmst) {
  const auto& h = detector("H1").vertex;
  const auto& l = detector("L1").vertex;
  const auto& v = detector("V1").vertex;
  const Vector3 a{l[0] - h[0], l[1] - h[1], l[2] - h[2]}, b{v[0] - h[0], v[1] - h[1], v[2] - h[2]};
  Vector3 m{a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
  const double norm = std::sqrt(m[0] * m[0] + m[1] * m[1] + m[2] * m[2]);
  for (auto& c : m) c /= norm;
  const double g = gmst - where.ra;
  Vector3 n{std::cos(where.dec) * std::cos(g), -std::cos(where.dec) * std::sin(g), std::sin(where.dec)};
  const double dot = n[0] * m[0] + n[1] * m[1] + n[2] * m[2];
  for (int i = 0; i < 3; ++i) n[i] -= 2 * dot * m[i];
  return {gmst - std::atan2(-n[1], n[0]), std::asin(std::clamp(n[2], -1.0, 1.0))};
}

double noise_chisq_mean(const TemplateAutocorrelations& ac, std::size_t d) {
  double num = 0, den = 0;
  for (std::size_t s = 0; s < ac.length; ++s) {
    num += 2 - 2 * std::norm(ac.of(d, 0)[s]);
    den += 2 - std::norm(ac.of(d, 0)[s]);
  }
  return num / den;
}

struct Localisation {
  int localised = 0;            // within 10° of the source
  int localised_or_mirror = 0;  // … or of its mirror image
  int on_time = 0;              // the candidate within ±1 sample of the end time
  int low_chisq = 0;            // network χ² below twice its noise mean
  int mirror_beats_source = 0;  // ρ_coh² at the mirror's pixel above the source's
  double mean_null = 0, worst_distance = 0;
};

// §13 item 5: network SNR uniform in 12 … 20 (`snr_low` … `snr_high`), sky uniform, ψ, ι, φ0
// random, the geocentre end time at a random fraction of a sample; each detector's copy delayed by
// its exact arrival time. The loudest detector's peak near its end time is the candidate; order 5
// (12288 pixels), FP32. `with_noise` false keeps the same sources without the noise; `subsample`
// reads ζ at the exact delays.
Localisation localise_injections(bool subsample, bool with_noise, double snr_low = 12, double snr_high = 20,
                                 int order = 5, double rate = 2048, int n_injections = 32) {
  const auto& net = network(rate);
  const auto sigma = net.sigma(hlv);
  const auto ac = TemplateAutocorrelations::from_bank(net.bank, hlv, "test bank");
  const auto map = make_sky_map(order, hlv, sigma, gps, rate);
  const double gmst = gmst_from_gps(gps);
  const auto n_template = static_cast<std::int64_t>(net.tmpl.h.size());
  const std::int64_t geocentre_end = n_template + 2000;
  double chisq_bound = 0;
  for (std::size_t d = 0; d < 3; ++d) chisq_bound += 2 * noise_chisq_mean(ac, d);
  CoherentSettings settings;
  settings.subsample = subsample;
  auto nearest_pixel = [&](const SkyDirection& where) {
    std::size_t nearest = 0;
    for (std::size_t p = 0; p < map.n_pix(); ++p)
      if (angular_distance(map.pixels[p], where) < angular_distance(map.pixels[nearest], where)) nearest = p;
    return nearest;
  };

  std::mt19937_64 rng(1313);
  std::uniform_real_distribution<double> u01(0, 1);
  Localisation out;
  for (int i = 0; i < n_injections; ++i) {
    const SkyDirection where{2 * std::numbers::pi * u01(rng), std::asin(2 * u01(rng) - 1)};
    const double psi = std::numbers::pi * u01(rng), iota = std::acos(2 * u01(rng) - 1);
    const double phi0 = 2 * std::numbers::pi * u01(rng), network_snr = snr_low + (snr_high - snr_low) * u01(rng);
    const double t_geo = static_cast<double>(geocentre_end) + u01(rng);
    std::vector<std::complex<double>> c(3);
    double norm = 0;
    for (std::size_t d = 0; d < 3; ++d) {
      c[d] = source_amplitude(antenna_pattern(detector(hlv[d]), where, psi, gmst), sigma[d] / sigma[0], iota, phi0, 1);
      norm += std::norm(c[d]);
    }
    std::vector<std::vector<double>> x;
    std::vector<double> end(3);
    for (std::size_t d = 0; d < 3; ++d) {
      const auto n = static_cast<std::size_t>(geocentre_end + 2000);
      x.push_back(with_noise ? white_noise(n, 7000 + 3 * static_cast<unsigned>(i) + static_cast<unsigned>(d))
                             : std::vector<double>(n, 0.0));
      end[d] = t_geo + delay_from_geocentre(detector(hlv[d]), where, gmst) * rate;
      const double whole = std::floor(end[d]);
      inject(x[d], delayed(net.tmpl.h, end[d] - whole), static_cast<std::int64_t>(whole) + pad,
             c[d] * (network_snr / std::sqrt(norm)));
    }
    const auto snr = filter_network(hlv, x, rate);
    // The loudest detector's peak within ±5 samples of its end time.
    std::size_t ref = 0;
    std::int64_t at = 0;
    double loudest = 0;
    for (std::size_t d = 0; d < 3; ++d) {
      const auto centre = static_cast<std::int64_t>(std::floor(end[d] + 0.5));
      for (std::int64_t n = centre - 5; n <= centre + 5; ++n)
        if (std::abs(snr.series(d, 0)[n]) > loudest) {
          loudest = std::abs(snr.series(d, 0)[n]);
          ref = d;
          at = n;
        }
    }
    if (std::abs(static_cast<double>(at) - end[ref]) <= 1.0) ++out.on_time;
    const Candidate cand{ref, 0, at};
    const auto r = coherent_search(map, snr, ac, {&cand, 1}, settings, Precision::fp32)[0];
    const double distance =
        angular_distance(map.pixels[static_cast<std::size_t>(r.pixel)], where) * 180 / std::numbers::pi;
    out.worst_distance = std::max(out.worst_distance, distance);
    // ρ_coh² at the pixels nearest the source and its mirror image.
    const SkyDirection mirror = mirrored(where, gmst);
    const auto sky = coherent_sky_map(map, snr, cand, settings, 0, Precision::fp32);
    const double coh_source = sky[nearest_pixel(where)], coh_mirror = sky[nearest_pixel(mirror)];
    if (coh_mirror > coh_source) ++out.mirror_beats_source;

    if (distance <= 10) ++out.localised;
    const double mirror_distance =
        angular_distance(map.pixels[static_cast<std::size_t>(r.pixel)], mirror) * 180 / std::numbers::pi;
    if (distance <= 10 || mirror_distance <= 10) ++out.localised_or_mirror;

    if (r.network_chisq < chisq_bound) ++out.low_chisq;
    out.mean_null += r.null_snr2 / n_injections;
    std::cout << "injection " << i << ": network SNR " << network_snr << ", rho_coh " << std::sqrt(r.coh_snr2)
              << ", rho_null^2 " << r.null_snr2 << ", " << distance << " deg off (mirror " << mirror_distance
              << "), rho_coh^2: max - at the source " << r.coh_snr2 - coh_source << ", mirror - source "
              << coh_mirror - coh_source << ", chi^2 " << r.network_chisq << "\n";
  }
  std::cout << rate << " Hz, order " << order << ", " << (subsample ? "subsample" : "rounded")
            << (with_noise ? ", noise" : ", no noise") << ", SNR " << snr_low << "-" << snr_high << ": "
            << out.localised << "/" << n_injections << " within 10 deg (worst " << out.worst_distance << "), "
            << out.localised_or_mirror << " of the source or its mirror, " << out.mirror_beats_source
            << " with the mirror's rho_coh^2 above the source's, " << out.on_time << " on time, mean rho_null^2 "
            << out.mean_null << ", " << out.low_chisq << " with network chi^2 < " << chisq_bound << "\n";
  return out;
}

// Measured (these seeds): rounded 20/32 within 10° (29 of the source or its mirror), subsample
// 25/32 (30); the ideal statistic's estimate below is 87 %: §13.5's 90 % is out of reach at SNR
// 12–20 (docs/spiir.md, Differences). Asserted: the measured figures less one injection.
TEST(CoherentNetwork, InjectionsInNoiseAreLocalised) {
  const int n = 32;
  for (bool subsample : {false, true}) {
    const auto r = localise_injections(subsample, true);
    EXPECT_GE(r.localised_or_mirror, subsample ? 29 : 28);
    EXPECT_GE(r.localised, subsample ? 24 : 19);
    EXPECT_GE(r.on_time, n - 2);                    // measured 31/32 within ±1 sample
    EXPECT_LE(r.mean_null, subsample ? 2.0 : 3.0);  // measured 1.42, 1.85
    EXPECT_EQ(r.low_chisq, n);
  }
}

// The same sources without noise, exact reads: measured 27/32 (all 32 at the source or its
// mirror), mean ρ_null² 0.75; rounded reads give 27/32 and 0.76 as well: at order 5 the nearest
// pixel's delays can be ~1 sample off on the V1 baselines, as much as the rounding (order 6:
// 29/32, 0.33).
TEST(CoherentNetwork, NoiseFreeInjectionsAreLocalised) {
  const auto r = localise_injections(true, false);
  EXPECT_GE(r.localised, 26);
  EXPECT_EQ(r.localised_or_mirror, 32);
  EXPECT_EQ(r.on_time, 32);
  EXPECT_LE(r.mean_null, 1.0);
}

// Not run by default (minutes; --gtest_also_run_disabled_tests), the figures in docs/spiir.md:
// the grid's part (at order 5 neighbouring pixels are 1.8° apart, which moves the H1–V1 and L1–V1
// delays by up to ~1 sample, as much as the rounding) and louder sources.
TEST(CoherentNetwork, DISABLED_LocalisationOnFinerGrids) {
  for (int order : {6, 7})
    for (bool with_noise : {false, true}) localise_injections(true, with_noise, 12, 20, order);
}

// 160 sources (the first 32 are the test's): rounded against subsample with the binomial
// scatter of 32 (±2.3 at 80 %) reduced.
TEST(CoherentNetwork, DISABLED_ManyInjections) {
  for (bool subsample : {false, true}) localise_injections(subsample, true, 12, 20, 5, 2048, 160);
}

// Rounded delays at 4096 Hz: half the rounding error of 2048 Hz.
TEST(CoherentNetwork, DISABLED_LocalisationAt4096Hz) {
  for (bool subsample : {false, true}) localise_injections(subsample, true, 12, 20, 5, 4096);
}

TEST(CoherentNetwork, DISABLED_LouderInjections) {
  for (bool subsample : {false, true}) localise_injections(subsample, true, 30, 50);
}

// The ideal statistic (no time series): ζ = s + n with s the source's noise-free SNRs and n
// complex Gaussian (E|n_d|² = 2), compared at the source's direction and at its mirror image,
// which have the same arrival times and so read the same ζ. Where the mirror wins, a search
// cannot localise the source whatever its delays' accuracy.
TEST(CoherentNetwork, MirrorImageLimitsLocalisation) {
  const auto& net = network();
  const auto sigma = net.sigma(hlv);
  const double gmst = gmst_from_gps(gps);
  auto basis = [&](const SkyDirection& where) {
    std::vector<std::array<double, 2>> a(3);
    for (std::size_t d = 0; d < 3; ++d) {
      const auto f = antenna_pattern(detector(hlv[d]), where, 0.0, gmst);
      a[d] = {sigma[d] * f.plus, sigma[d] * f.cross};
    }
    return network_basis(a);
  };
  auto coherent = [](const std::vector<double>& u, const std::vector<std::complex<double>>& z) {
    double sum = 0;
    for (std::size_t k = 0; k < 2; ++k) {
      std::complex<double> w;
      for (std::size_t d = 0; d < 3; ++d) w += u[k * 3 + d] * z[d];
      sum += std::norm(w);
    }
    return sum;
  };
  std::vector<double> reachable;
  for (const auto& [low, high] : {std::pair{12.0, 20.0}, std::pair{30.0, 50.0}}) {
    std::mt19937_64 rng(99);
    std::uniform_real_distribution<double> u01(0, 1);
    std::normal_distribution<double> g;
    const int draws = 20000;
    int source_wins = 0, apart = 0, apart_source_wins = 0;
    std::vector<double> gap;  // noise-free ρ_coh²(source) − ρ_coh²(mirror) where the two are > 10° apart
    for (int i = 0; i < draws; ++i) {
      const SkyDirection where{2 * std::numbers::pi * u01(rng), std::asin(2 * u01(rng) - 1)};
      const double psi = std::numbers::pi * u01(rng), iota = std::acos(2 * u01(rng) - 1);
      const double phi0 = 2 * std::numbers::pi * u01(rng), network_snr = low + (high - low) * u01(rng);
      std::vector<std::complex<double>> s(3), z(3);
      double norm = 0;
      for (std::size_t d = 0; d < 3; ++d) {
        s[d] =
            source_amplitude(antenna_pattern(detector(hlv[d]), where, psi, gmst), sigma[d] / sigma[0], iota, phi0, 1);
        norm += std::norm(s[d]);
      }
      for (std::size_t d = 0; d < 3; ++d) z[d] = s[d] * (network_snr / std::sqrt(norm)) + std::complex(g(rng), g(rng));
      const SkyDirection mirror = mirrored(where, gmst);
      const auto u_source = basis(where), u_mirror = basis(mirror);
      const bool wins = coherent(u_source, z) >= coherent(u_mirror, z);
      source_wins += wins ? 1 : 0;
      if (angular_distance(where, mirror) > 10 * std::numbers::pi / 180) {
        ++apart;
        apart_source_wins += wins ? 1 : 0;
        for (auto& v : s) v *= network_snr / std::sqrt(norm);
        gap.push_back(coherent(u_source, s) - coherent(u_mirror, s));
      }
    }
    std::sort(gap.begin(), gap.end());
    reachable.push_back(1.0 - static_cast<double>(apart - apart_source_wins) / draws);
    std::cout << "SNR " << low << "-" << high << ": the source beats its mirror in " << source_wins << "/" << draws
              << "; " << apart << " mirrors > 10 deg away, the source wins " << apart_source_wins
              << " of them; noise-free gap median " << gap[gap.size() / 2] << ", 25 % " << gap[gap.size() / 4]
              << "; at most about " << reachable.back() << " within 10 deg\n";
  }
  // Measured 0.870 and 0.934: §13.5's 90 % is out of reach at SNR 12–20, not at 30–50.
  EXPECT_LT(reachable[0], 0.9);
  EXPECT_GT(reachable[0], 0.8);
  EXPECT_GT(reachable[1], 0.9);
}

// §13 item 6: 128 s of noise in H1, L1, V1; a candidate every 0.25 s in H1 (no threshold), 5
// slides of 0.1 s: the foreground's sky-maximised ρ_coh and the background's agree (two-sample KS
// p > 0.01); the sky maximum against one fixed pixel's ρ_coh does not (the test can fail).
TEST(CoherentNetwork, BackgroundMatchesForegroundOnNoise) {
  const auto& net = network();
  std::vector<std::vector<double>> x;
  for (unsigned d = 0; d < 3; ++d) x.push_back(white_noise(128 * 2048, 501 + d));
  const auto snr = filter_network(hlv, x);
  const auto ac = TemplateAutocorrelations::from_bank(net.bank, hlv, "test bank");
  const auto map = make_sky_map(5, hlv, net.sigma(hlv), gps, 2048);
  const CoherentSettings settings{5, 205};
  std::vector<Candidate> cands;
  for (std::int64_t n = 20000 + 2000; candidate_fits(map, settings, ac.half_length(), snr.n_samples, n); n += 512)
    cands.push_back({0, 0, n});
  const auto r = coherent_search(map, snr, ac, cands, settings, Precision::fp32);
  std::vector<double> foreground, background, fixed;
  for (std::size_t c = 0; c < cands.size(); ++c) {
    for (int k = 0; k <= settings.n_slides; ++k) {
      const double rho = std::sqrt(r[c * 6 + static_cast<std::size_t>(k)].coh_snr2);
      (k == 0 ? foreground : background).push_back(rho);
    }
    std::complex<double> w[2];
    for (std::size_t k = 0; k < 2; ++k)
      for (std::size_t d = 0; d < 3; ++d)
        w[k] += map.u_at(7, k, d) * snr.series(d, 0)[cands[c].sample + map.offset(0, 7, d)];
    fixed.push_back(std::sqrt(std::norm(w[0]) + std::norm(w[1])));
  }
  const double p = ks_p_value(foreground, background), p_fixed = ks_p_value(foreground, fixed);
  std::cout << foreground.size() << " foreground, " << background.size() << " background: KS p " << p
            << "; against a fixed pixel p " << p_fixed << "\n";
  EXPECT_GT(foreground.size(), 400u);
  EXPECT_GT(p, 0.01);
  EXPECT_LT(p_fixed, 1e-6);
}

}  // namespace
}  // namespace astrosweep::spiir
