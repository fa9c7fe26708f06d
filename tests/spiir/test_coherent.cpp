// The coherent stage (spec §9, §12 tolerance 6, §13 item 4): the null stream of a noise-free
// injection with grid-exact delays, with the bugs it must catch; two detectors' null stream;
// the OpenMP search against the double-precision exhaustive reference; noise statistics at a fixed
// pixel; the autocorrelation χ²; clustering.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <iostream>
#include <random>
#include <vector>

#include "coherent_reference.hpp"
#include "coherent_test_support.hpp"
#include "core/error.hpp"
#include "trigger_clustering.hpp"

namespace astrosweep::spiir {
namespace {

using namespace coherent_test;

constexpr int order = 4;
constexpr std::size_t injected_pixel = 1234;
constexpr std::int64_t peak = 30000;  // H1's sample of the injected template's end

// §13 item 4: inject F+ h+ + F× h× (ψ 0.7, ι 0.5, φ0 1.1) into H1, L1, V1 at the rounded sample
// offsets of pixel 1234 of order 4, no noise.
struct GridExactInjection {
  SkyMap map;
  NetworkSnr snr;
  TemplateAutocorrelations ac;
  GridExactInjection() {
    const auto& net = network();
    map = make_sky_map(order, hlv, net.sigma(hlv), gps, 2048);
    const double gmst = gmst_from_gps(gps);
    std::vector<std::vector<double>> x(3, std::vector<double>(40000, 0.0));
    for (std::size_t d = 0; d < 3; ++d) {
      const auto f = antenna_pattern(detector(hlv[d]), map.pixels[injected_pixel], 0.7, gmst);
      inject(x[d], net.tmpl.h, peak + map.offset(0, injected_pixel, d),
             source_amplitude(f, net.sigma(hlv)[d] / net.sigma(hlv)[0], 0.5, 1.1, 20.0));
    }
    snr = filter_network(hlv, x);
    ac = TemplateAutocorrelations::from_bank(net.bank, hlv, "test bank");
  }
};

const GridExactInjection& injection() {
  static const GridExactInjection i;
  return i;
}

CoherentResult search_peak(const SkyMap& map, Precision precision) {
  const auto& i = injection();
  const Candidate c{0, 0, peak};
  return coherent_search(map, i.snr, i.ac, {&c, 1}, {}, precision)[0];
}

bool null_test_passes(const SkyMap& map) {
  const auto r = search_peak(map, Precision::fp64);
  return r.pixel == static_cast<std::int64_t>(injected_pixel) && r.null_snr2 <= 1e-6 * r.coh_snr2;
}

TEST(CoherentSnr, NullStreamVanishesOnAGridExactInjection) {
  const auto& i = injection();
  for (auto precision : {Precision::fp64, Precision::fp32}) {
    const auto r = search_peak(i.map, precision);
    const double bound = precision == Precision::fp64 ? 1e-6 : 1e-4;
    EXPECT_EQ(r.pixel, static_cast<std::int64_t>(injected_pixel));
    EXPECT_LE(r.null_snr2, bound * r.coh_snr2);
    EXPECT_GT(r.coh_snr2, 300.0);  // 20² × the amplitudes' network sum, a loud signal
    std::cout << (precision == Precision::fp64 ? "fp64" : "fp32") << ": rho_coh^2 " << r.coh_snr2
              << ", rho_null^2 / rho_coh^2 " << r.null_snr2 / r.coh_snr2 << "\n";
  }
  const Candidate c{0, 0, peak};
  const auto ref = coherent_reference(order, hlv, network().sigma(hlv), gps, 2048, i.snr, i.ac, {&c, 1}, {})[0];
  EXPECT_EQ(ref.pixel, static_cast<std::int64_t>(injected_pixel));
  EXPECT_LE(ref.null_snr2, 1e-6 * ref.coh_snr2);
  std::cout << "reference: rho_null^2 / rho_coh^2 " << ref.null_snr2 / ref.coh_snr2 << "\n";
}

// The bugs §13.4 names, made on purpose: each makes the test above fail.
TEST(CoherentSnr, NullStreamTestCatchesTheClassicBugs) {
  const auto& i = injection();
  ASSERT_TRUE(null_test_passes(i.map));
  const std::size_t n = 3;

  SkyMap transposed = i.map;  // U stored by rows where columns are read
  for (std::size_t p = 0; p < transposed.n_pix(); ++p)
    for (std::size_t k = 0; k < n; ++k)
      for (std::size_t d = 0; d < n; ++d) transposed.u[(p * n + k) * n + d] = i.map.u_at(p, d, k);
  EXPECT_FALSE(null_test_passes(transposed));

  SkyMap flipped = i.map;  // Δt with the wrong sign
  for (auto& o : flipped.offsets) o = -o;
  EXPECT_FALSE(null_test_passes(flipped));

  // F+ and F× swapped: in one detector the signal space changes and the test fails; swapped in all
  // detectors, A's columns trade places and span the same plane, so ρ_coh is unchanged: that bug is
  // AntennaPatternsMatchLal's to catch (test_sky.cpp), which compares F+ and F× one by one.
  const double gmst = gmst_from_gps(gps);
  const auto sigma = network().sigma(hlv);
  for (bool all : {false, true}) {
    SkyMap swapped = i.map;
    for (std::size_t p = 0; p < swapped.n_pix(); ++p) {
      std::vector<std::array<double, 2>> a(n);
      for (std::size_t d = 0; d < n; ++d) {
        const auto f = antenna_pattern(detector(hlv[d]), swapped.pixels[p], 0, gmst);
        const bool swap = all || d == 2;
        a[d] = {sigma[d] * (swap ? f.cross : f.plus), sigma[d] * (swap ? f.plus : f.cross)};
      }
      const auto u = network_basis(a);
      std::copy(u.begin(), u.end(), swapped.u.begin() + static_cast<std::ptrdiff_t>(p * n * n));
    }
    EXPECT_EQ(null_test_passes(swapped), all) << (all ? "swapped in every detector" : "swapped in V1");
  }
}

// U is orthogonal and its null column gives the same ρ_null² as Σ|ζ|² − ρ_coh².
TEST(CoherentSnr, BasisIsOrthogonal) {
  const auto& map = injection().map;
  double worst = 0;
  for (std::size_t p = 0; p < map.n_pix(); ++p)
    for (std::size_t k = 0; k < 3; ++k)
      for (std::size_t m = 0; m < 3; ++m) {
        double dot = 0;
        for (std::size_t d = 0; d < 3; ++d) dot += map.u_at(p, k, d) * map.u_at(p, m, d);
        worst = std::max(worst, std::abs(dot - (k == m ? 1.0 : 0.0)));
      }
  EXPECT_LT(worst, 1e-12);
  EXPECT_THROW(make_sky_map(order, {"H1"}, {1.0}, gps, 2048), UsageError);
  EXPECT_THROW(make_sky_map(order, {"H1", "H1"}, {1.0, 1.0}, gps, 2048), UsageError);
  EXPECT_THROW(make_sky_map(order, {"H1", "K1"}, {1.0, 1.0}, gps, 2048), UsageError);
}

// Tolerance 6: the OpenMP search against the reference, foreground and 3 slides of 0.1 s, every
// detector as reference in turn: ρ_coh², ρ_null² within 1e−9 (fp64) and 1e−3 of ρ_coh² (fp32);
// the same pixel except near-ties (fp32 may pick a pixel whose ρ_coh² is equal within 1e−3).
TEST(CoherentSnr, OpenMpSearchMatchesReference) {
  const auto& nn = noise();
  const auto cands = noise_candidates(24, 30000);
  const CoherentSettings settings{3, 205};
  const auto ref = coherent_reference(order, hlv, network().sigma(hlv), gps, 2048, nn.snr, nn.ac, cands, settings);
  const auto map = make_sky_map(order, hlv, network().sigma(hlv), gps, 2048);
  for (auto precision : {Precision::fp64, Precision::fp32}) {
    const auto got = coherent_search(map, nn.snr, nn.ac, cands, settings, precision, 2);
    ASSERT_EQ(got.size(), ref.size());
    const double tol = precision == Precision::fp64 ? 1e-9 : 1e-3;
    int other_pixel = 0;
    for (std::size_t t = 0; t < got.size(); ++t) {
      EXPECT_NEAR(got[t].coh_snr2, ref[t].coh_snr2, tol * ref[t].coh_snr2) << t;
      if (got[t].pixel != ref[t].pixel) {
        ++other_pixel;
        continue;
      }
      EXPECT_NEAR(got[t].null_snr2, ref[t].null_snr2, tol * ref[t].coh_snr2) << t;
      EXPECT_NEAR(got[t].network_chisq, ref[t].network_chisq, 1e-9 * ref[t].network_chisq) << t;
      EXPECT_EQ(got[t].offset, ref[t].offset) << t;
    }
    if (precision == Precision::fp64) {
      EXPECT_EQ(other_pixel, 0);
    }
    EXPECT_LE(other_pixel, 3);
    std::cout << got.size() << " tasks, " << other_pixel << " on another pixel\n";
  }
}

// Two detectors: A is 2 × 2 and of full rank, so ρ_null ≡ 0 and ρ_coh² = Σ|ζ|². The reference's
// I − A (AᵀA)⁻¹ Aᵀ loses digits where H1 and L1 (nearly co-aligned) make AᵀA ill-conditioned: 1e−6.
TEST(CoherentSnr, TwoDetectorsHaveNoNullStream) {
  const auto& nn = noise();
  const std::vector<std::string> hl{"H1", "L1"};
  NetworkSnr snr = nn.snr;
  snr.ifos = hl;
  snr.z.pop_back();
  auto ac = nn.ac;
  ac.per_ifo.pop_back();
  std::vector<Candidate> cands;
  for (std::int64_t i = 0; i < 10; ++i) cands.push_back({static_cast<std::size_t>(i % 2), 0, 30000 + i * 3001});
  const CoherentSettings settings{2, 300};
  const auto map = make_sky_map(order, hl, network().sigma(hl), gps, 2048);
  const auto got = coherent_search(map, snr, ac, cands, settings, Precision::fp64);
  const auto ref = coherent_reference(order, hl, network().sigma(hl), gps, 2048, snr, ac, cands, settings);
  for (std::size_t t = 0; t < got.size(); ++t) {
    const double total = std::norm(got[t].snr[0]) + std::norm(got[t].snr[1]);
    EXPECT_LE(std::abs(got[t].null_snr2), 1e-12 * total);
    EXPECT_LE(std::abs(ref[t].null_snr2), 1e-6 * total);
    EXPECT_NEAR(got[t].coh_snr2, total, 1e-12 * total);
  }
}

// Noise at a fixed pixel (order 4, pixel 100, H1 reference): ρ_coh² ~ χ²₄ (mean 4), ρ_null² ~ χ²₂
// (mean 2); 1800 samples 64 apart past the warm-up; means within 4 standard errors, KS p > 0.01.
TEST(CoherentSnr, NoiseAtAFixedPixelIsChiSquared) {
  const auto& nn = noise();
  const auto map = make_sky_map(order, hlv, network().sigma(hlv), gps, 2048);
  const std::size_t p = 100;
  std::vector<double> coh, null;
  for (std::int64_t n = 20000; n + 100 < static_cast<std::int64_t>(nn.snr.n_samples); n += 64) {
    std::complex<double> w[3];
    for (std::size_t k = 0; k < 3; ++k)
      for (std::size_t d = 0; d < 3; ++d) w[k] += map.u_at(p, k, d) * nn.snr.series(d, 0)[n + map.offset(0, p, d)];
    coh.push_back(std::norm(w[0]) + std::norm(w[1]));
    null.push_back(std::norm(w[2]));
  }
  ASSERT_GT(coh.size(), 1700u);
  const double count = static_cast<double>(coh.size());
  double mean_coh = 0, mean_null = 0;
  for (std::size_t i = 0; i < coh.size(); ++i) {
    mean_coh += coh[i] / count;
    mean_null += null[i] / count;
  }
  EXPECT_NEAR(mean_coh, 4, 4 * std::sqrt(8 / count));
  EXPECT_NEAR(mean_null, 2, 4 * std::sqrt(4 / count));
  const double p_coh = ks_p_value(coh, chi2_cdf_4), p_null = ks_p_value(null, chi2_cdf_2);
  EXPECT_GT(p_coh, 0.01);
  EXPECT_GT(p_null, 0.01);
  // The test can fail: χ²₂ is not χ²₄.
  EXPECT_LT(ks_p_value(coh, chi2_cdf_2), 1e-6);
  std::cout << coh.size() << " samples: mean rho_coh^2 " << mean_coh << " (KS p " << p_coh << "), mean rho_null^2 "
            << mean_null << " (KS p " << p_null << ")\n";
}

// The χ²: in noise its mean is Σ(2 − 2|R|²) / Σ(2 − |R|²) per detector (within 10 %, 96 tasks ×
// 3 detectors); on the noise-free injection, where ζ(s) follows ζ(0) R(s) but for the IIR bank's
// mismatch, it is below a tenth of that; a plain series of the wrong shape (ζ(s) = ζ(0)) is not.
TEST(CoherentSnr, AutocorrelationChisq) {
  const auto& nn = noise();
  const std::size_t length = nn.ac.length;
  double expected = 0;
  {
    double num = 0, den = 0;
    for (std::size_t s = 0; s < length; ++s) {
      num += 2 - 2 * std::norm(nn.ac.of(0, 0)[s]);
      den += 2 - std::norm(nn.ac.of(0, 0)[s]);
    }
    expected = num / den;
  }
  const auto map = make_sky_map(order, hlv, network().sigma(hlv), gps, 2048);
  const auto got = coherent_search(map, nn.snr, nn.ac, noise_candidates(24, 30000), {3, 205}, Precision::fp64);
  double mean = 0;
  for (const auto& r : got)
    for (double c : r.chisq) mean += c / static_cast<double>(got.size() * 3);
  EXPECT_NEAR(mean, expected, 0.1 * expected);

  const auto& i = injection();
  const auto r = search_peak(i.map, Precision::fp64);
  for (std::size_t d = 0; d < 3; ++d) EXPECT_LT(r.chisq[d], 0.1 * expected) << hlv[d];
  std::vector<std::complex<double>> flat(length, {5, 1});
  EXPECT_GT(autocorrelation_chisq(flat.data() + length / 2, nn.ac.of(0, 0), length), expected);
  std::cout << "chi^2 in noise: mean " << mean << " (expected " << expected << "); injection: " << r.chisq[0] << " "
            << r.chisq[1] << " " << r.chisq[2] << "\n";
}

// The χ² with its denominator taken once per template (as the search takes it) is the χ² computed
// in one loop, bit for bit, for lengths 1, 3 and 201 and reads of noise around a random peak; the
// denominator is Σ(2 − |R|²) in lag order.
TEST(CoherentSnr, AutocorrelationChisqWithItsNormIsTheSame) {
  std::mt19937_64 rng(5);
  std::normal_distribution<double> g(0, 1);
  for (std::size_t length : {1, 3, 201}) {
    std::vector<std::complex<double>> r(length), z(length);
    for (auto& v : r) v = {0.3 * g(rng), 0.3 * g(rng)};
    r[length / 2] = 1;
    double den = 0;
    for (const auto& v : r) den += 2 - std::norm(v);
    const double norm = autocorrelation_chisq_norm(r.data(), length);
    EXPECT_EQ(norm, den) << length;
    for (int draw = 0; draw < 20; ++draw) {
      for (auto& v : z) v = {g(rng), g(rng)};
      const auto* centre = z.data() + length / 2;
      EXPECT_EQ(autocorrelation_chisq(centre, r.data(), length, norm), autocorrelation_chisq(centre, r.data(), length))
          << length;
    }
  }
}

// Several reads at once (a task's detectors side by side: 1 … 5 reads, so groups of 3 with 1 or 2
// left over) give each read's one-read χ², bit for bit.
TEST(CoherentSnr, AutocorrelationChisqOfSeveralReadsIsEachRead) {
  std::mt19937_64 rng(6);
  std::normal_distribution<double> g(0, 1);
  const std::size_t length = 31;
  std::vector<std::vector<std::complex<double>>> r(5, std::vector<std::complex<double>>(length)), z = r;
  std::vector<const std::complex<double>*> centres, rs;
  std::vector<double> norms;
  for (std::size_t i = 0; i < 5; ++i) {
    for (auto& v : r[i]) v = {0.3 * g(rng), 0.3 * g(rng)};
    for (auto& v : z[i]) v = {g(rng), g(rng)};
    centres.push_back(z[i].data() + length / 2);
    rs.push_back(r[i].data());
    norms.push_back(autocorrelation_chisq_norm(r[i].data(), length));
  }
  for (std::size_t n = 1; n <= 5; ++n) {
    std::vector<double> out(n, -1);
    autocorrelation_chisq(n, centres.data(), rs.data(), length, norms.data(), out.data());
    for (std::size_t i = 0; i < n; ++i)
      EXPECT_EQ(out[i], autocorrelation_chisq(centres[i], rs[i], length)) << n << " reads, read " << i;
  }
}

TEST(CoherentSnr, CandidatesWithoutMarginAreRefused) {
  const auto& nn = noise();
  const auto map = make_sky_map(order, hlv, network().sigma(hlv), gps, 2048);
  const Candidate early{0, 0, 10};
  EXPECT_THROW(coherent_search(map, nn.snr, nn.ac, {&early, 1}, {}, Precision::fp64), UsageError);
  const Candidate late{0, 0, static_cast<std::int64_t>(nn.snr.n_samples) - 5};
  EXPECT_THROW(coherent_search(map, nn.snr, nn.ac, {&late, 1}, {}, Precision::fp64), UsageError);
  const Candidate slid{0, 0, 2000};  // fits the foreground, not 10 slides of 0.1 s
  EXPECT_NO_THROW(coherent_search(map, nn.snr, nn.ac, {&slid, 1}, {}, Precision::fp64));
  EXPECT_THROW(coherent_search(map, nn.snr, nn.ac, {&slid, 1}, {10, 205}, Precision::fp64), UsageError);
}

TEST(TriggerClustering, KeepsTheLoudestWithinTheWindow) {
  const std::vector<std::int64_t> t{0, 100, 150, 1000, 1100, 5000, 5000};
  const std::vector<double> v{5, 7, 6, 9, 9, 3, 3};
  // 100 beats 0 and 150; 1000 and 1100 tie, the lower index stays; 5000's pair the same.
  EXPECT_EQ(cluster_triggers(t, v, 200), (std::vector<std::size_t>{1, 3, 5}));
  EXPECT_EQ(cluster_triggers(t, v, 0), (std::vector<std::size_t>{0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(cluster_triggers(t, v, 100000), (std::vector<std::size_t>{3}));
  EXPECT_TRUE(cluster_triggers({}, {}, 10).empty());
  // A chain: a trigger goes when any louder one lies within the window, even one that goes itself
  // (300 is beaten by 150, which 0 beats): only the loudest of its own window stays.
  const std::vector<std::int64_t> chain{0, 150, 300};
  EXPECT_EQ(cluster_triggers(chain, std::vector<double>{1, 2, 1}, 200), (std::vector<std::size_t>{1}));
  EXPECT_EQ(cluster_triggers(chain, std::vector<double>{3, 2, 1}, 200), (std::vector<std::size_t>{0}));
  EXPECT_EQ(cluster_triggers(chain, std::vector<double>{3, 1, 2}, 200), (std::vector<std::size_t>{0, 2}));
}

}  // namespace
}  // namespace astrosweep::spiir
