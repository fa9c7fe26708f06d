// The coherent stage's options (spec §9): `--subsample` (ζ read at the exact fractional delay),
// `--sky-stride`, and the per-pixel sky map (§10 /skymaps). The interpolation against the exactly
// delayed filter output of a noise-free injection; the OpenMP search against the reference with
// each option; the sky map against the reference's ζ† P ζ and against the search's maximum.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iostream>

#include "coherent_reference.hpp"
#include "coherent_test_support.hpp"
#include "coherent_triggers.hpp"
#include "core/error.hpp"
#include "subsample_interpolation.hpp"

namespace astrosweep::spiir {
namespace {

using namespace coherent_test;

constexpr int order = 4;

TEST(SubsampleInterpolation, WeightsAreExactAtWholeSamples) {
  double w[interpolation_taps];
  interpolation_weights(0.0, w);
  for (std::size_t j = 0; j < interpolation_taps; ++j)
    EXPECT_EQ(w[j], j + 1 == static_cast<std::size_t>(interpolation_half_width) ? 1.0 : 0.0) << j;
  EXPECT_EQ(interpolation_first_tap(3.7), 3 - interpolation_half_width + 1);
  EXPECT_EQ(interpolation_first_tap(-0.2), -1 - interpolation_half_width + 1);
}

// A noise-free injection ending at whole sample e and the same delayed (band-limited) by a
// fraction f: the filter is time-invariant, so the second's SNR at n is the first's at n − f
// exactly. Interpolating the first at n − f over ±32 samples around the peak must match it to
// 1e−3 of the peak for f = 0.1 … 0.9 (measured 3.8e−4); rounding to the nearest sample misses
// by up to 0.22 of the peak (the phase turns fast near merger).
TEST(SubsampleInterpolation, MatchesAnExactlyDelayedInjection) {
  const auto& net = network();
  constexpr std::int64_t end = 30000;
  auto snr_of = [&](double fraction) {
    std::vector<std::vector<double>> x(1, std::vector<double>(32000, 0.0));
    inject(x[0], delayed(net.tmpl.h, fraction), end + static_cast<std::int64_t>(pad), {20.0, 0.0});
    return filter_network({"H1"}, x);
  };
  const auto whole = snr_of(0.0);
  const double peak = std::abs(whole.series(0, 0)[end]);
  double worst_interpolated = 0, worst_rounded = 0;
  for (double f = 0.1; f < 0.95; f += 0.2) {
    const auto shifted = snr_of(f);
    for (std::int64_t n = end - 32; n <= end + 32; ++n) {
      const std::complex<double> exact = shifted.series(0, 0)[n];
      const double at = static_cast<double>(n) - f;
      const std::complex<double> interpolated = interpolate_at(whole.series(0, 0), at);
      const std::complex<double> rounded = whole.series(0, 0)[static_cast<std::int64_t>(std::floor(at + 0.5))];
      worst_interpolated = std::max(worst_interpolated, std::abs(interpolated - exact) / peak);
      worst_rounded = std::max(worst_rounded, std::abs(rounded - exact) / peak);
    }
  }
  std::cout << "interpolation error " << worst_interpolated << " of the peak; rounding " << worst_rounded << "\n";
  EXPECT_LT(worst_interpolated, 1e-3);
  EXPECT_GT(worst_rounded, 0.1);
}

void expect_search_matches_reference(const CoherentSettings& settings, std::size_t n_candidates) {
  const auto& nn = noise();
  const auto cands = noise_candidates(n_candidates, 30000);
  const auto ref = coherent_reference(order, hlv, network().sigma(hlv), gps, 2048, nn.snr, nn.ac, cands, settings);
  const auto map = make_sky_map(order, hlv, network().sigma(hlv), gps, 2048);
  for (auto precision : {Precision::fp64, Precision::fp32}) {
    const auto got = coherent_search(map, nn.snr, nn.ac, cands, settings, precision, 2);
    ASSERT_EQ(got.size(), ref.size());
    const double tol = precision == Precision::fp64 ? 1e-9 : 1e-3;
    int other_pixel = 0;
    for (std::size_t t = 0; t < got.size(); ++t) {
      EXPECT_NEAR(got[t].coh_snr2, ref[t].coh_snr2, tol * ref[t].coh_snr2) << t;
      EXPECT_EQ(got[t].pixel % settings.sky_stride, static_cast<int>(t % (settings.n_slides + 1)) % settings.sky_stride)
          << t;
      if (got[t].pixel != ref[t].pixel) {
        ++other_pixel;
        continue;
      }
      EXPECT_NEAR(got[t].null_snr2, ref[t].null_snr2, tol * ref[t].coh_snr2) << t;
      EXPECT_NEAR(got[t].network_chisq, ref[t].network_chisq, 1e-9 * ref[t].network_chisq) << t;
      EXPECT_EQ(got[t].offset, ref[t].offset) << t;
      for (std::size_t d = 0; d < 3; ++d) {
        EXPECT_NEAR(got[t].delay[d], ref[t].delay[d], 1e-9) << t;
        EXPECT_NEAR(std::abs(got[t].snr[d] - ref[t].snr[d]), 0.0, 1e-9) << t;
      }
    }
    if (precision == Precision::fp64) {
      EXPECT_EQ(other_pixel, 0);
    }
    EXPECT_LE(other_pixel, 2);
  }
}

// Tolerance 6 with each option: ρ_coh², ρ_null² within 1e−9 (fp64), 1e−3 (fp32); the χ² (read
// in double at the interpolated alignment), ζ and the delays within 1e−9.
TEST(CoherentOptions, SubsampleSearchMatchesReference) { expect_search_matches_reference({3, 205, true, 1}, 4); }
TEST(CoherentOptions, SkyStrideSearchMatchesReference) { expect_search_matches_reference({3, 205, false, 4}, 12); }
TEST(CoherentOptions, SubsampleWithStrideMatchesReference) { expect_search_matches_reference({5, 205, true, 4}, 3); }

// Subsample reads need W more samples either side; the delays differ from the offsets by < 0.5.
TEST(CoherentOptions, SubsampleNeedsTheInterpolationMargin) {
  const auto& nn = noise();
  const auto map = make_sky_map(order, hlv, network().sigma(hlv), gps, 2048);
  const std::int64_t edge = map.max_offset + static_cast<std::int64_t>(nn.ac.half_length());
  CoherentSettings rounded, sub;
  sub.subsample = true;
  EXPECT_TRUE(candidate_fits(map, rounded, nn.ac.half_length(), nn.snr.n_samples, edge));
  EXPECT_FALSE(candidate_fits(map, sub, nn.ac.half_length(), nn.snr.n_samples, edge));
  EXPECT_TRUE(candidate_fits(map, sub, nn.ac.half_length(), nn.snr.n_samples, edge + interpolation_half_width));
  for (std::size_t i = 0; i < map.delays.size(); ++i) ASSERT_LE(std::abs(map.delays[i] - map.offsets[i]), 0.5) << i;
  CoherentSettings bad;
  bad.sky_stride = 0;
  const Candidate c{0, 0, 30000};
  EXPECT_THROW(coherent_search(map, nn.snr, nn.ac, {&c, 1}, bad, Precision::fp64), UsageError);
}

// The stage's settings refuse a stride of 0 or above the pixel count, naming the option.
TEST(CoherentOptions, StageSettingsCheckTheStride) {
  CoherentStageSettings s;
  s.sky_order = 4;
  for (int stride : {1, 4, 3072}) {
    s.sky_stride = stride;
    EXPECT_NO_THROW(check_coherent_settings(s)) << stride;
  }
  for (int stride : {0, -1, 3073}) {
    s.sky_stride = stride;
    try {
      check_coherent_settings(s);
      ADD_FAILURE() << stride;
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find("--sky-stride"), std::string::npos) << e.what();
    }
  }
}

// The sky map (spec §10): every pixel's ρ_coh² against the reference's ζ† P ζ (1e−9 fp64, 1e−3
// fp32 of the map's maximum), rounded and subsample, foreground and a slide; its maximum over
// p ≡ k mod 4 is the strided search's ρ_coh² and pixel.
TEST(CoherentOptions, SkyMapMatchesReferenceAndSearch) {
  const auto& nn = noise();
  const auto map = make_sky_map(order, hlv, network().sigma(hlv), gps, 2048);
  const auto cands = noise_candidates(2, 40000);
  for (bool subsample : {false, true}) {
    const CoherentSettings settings{2, 205, subsample, 4};
    const auto searched = coherent_search(map, nn.snr, nn.ac, cands, settings, Precision::fp64);
    for (std::size_t c = 0; c < cands.size(); ++c)
      for (int trial : {0, 2}) {
        const auto ref =
            coherent_reference_sky_map(order, hlv, network().sigma(hlv), gps, 2048, nn.snr, cands[c], settings, trial);
        const double top = *std::max_element(ref.begin(), ref.end());
        for (auto precision : {Precision::fp64, Precision::fp32}) {
          const auto got = coherent_sky_map(map, nn.snr, cands[c], settings, trial, precision);
          ASSERT_EQ(got.size(), map.n_pix());
          const double tol = (precision == Precision::fp64 ? 1e-9 : 1e-3) * top;
          double worst = 0;
          for (std::size_t p = 0; p < got.size(); ++p) worst = std::max(worst, std::abs(got[p] - ref[p]));
          EXPECT_LE(worst, tol) << c << " " << trial;
        }
        const auto got = coherent_sky_map(map, nn.snr, cands[c], settings, trial, Precision::fp64);
        std::size_t best = static_cast<std::size_t>(trial);
        for (std::size_t p = best; p < got.size(); p += 4)
          if (got[p] > got[best]) best = p;
        const auto& r = searched[c * 3 + static_cast<std::size_t>(trial)];
        EXPECT_EQ(r.pixel, static_cast<std::int64_t>(best));
        EXPECT_DOUBLE_EQ(r.coh_snr2, got[best]);
      }
  }
}

}  // namespace
}  // namespace astrosweep::spiir
