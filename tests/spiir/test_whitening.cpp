// Strain input (spec §6): the median-Welch PSD against scipy and LAL (tools/spiir_lal_reference.py
// welch, committed as data/welch_reference.txt), whitening of coloured Gaussian noise (in-band PSD
// 2/f_s, variance = the band's fraction, nothing outside the band, ends and gaps), a spectral line
// removed, the data-quality mask and the GWOSC reader (DQmask, Injmask, damaged files).
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <fstream>
#include <limits>
#include <map>
#include <numbers>
#include <random>
#include <sstream>

#include "core/error.hpp"
#include "fft.hpp"
#include "gwosc_strain.hpp"
#include "psd_welch.hpp"
#include "strain_input.hpp"
#include "test_data.hpp"
#include "whitening.hpp"
#include "whitening_test_support.hpp"

namespace astrosweep::spiir {
namespace {

// The reference script's series, the same operations in the same order (tools/spiir_lal_reference.py).
std::vector<double> lcg_series(std::size_t n, double rate) {
  std::uint64_t state = 12345;
  std::vector<double> x(n);
  double prev = 0;
  for (std::size_t i = 0; i < n; ++i) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    const double u = static_cast<double>(state >> 11) * 0x1p-53 - 0.5;
    prev = u + 0.9 * prev;
    x[i] = prev + 0.3 * std::sin(2 * std::numbers::pi * 13.3 * static_cast<double>(i) / rate);
  }
  return x;
}

struct Reference {
  std::map<int, std::vector<std::pair<double, double>>> psd;  // segments → (scipy, lal) per bin
  std::vector<double> bias;                                   // n = 1, 2, ...
};

Reference read_reference() {
  std::ifstream in(std::string(SPIIR_TEST_DATA) + "/welch_reference.txt");
  Reference r;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream ss(line);
    if (line.rfind("bias", 0) == 0) {
      std::string word;
      int n = 0;
      double b = 0;
      ss >> word >> n >> b;
      r.bias.push_back(b);
      continue;
    }
    int segments = 0, k = 0;
    double f = 0, scipy = 0, lal = 0;
    ss >> segments >> k >> f >> scipy >> lal;
    r.psd[segments].emplace_back(scipy, lal);
  }
  return r;
}

TEST(SpiirWelch, MedianBiasIsLals) {
  const auto r = read_reference();
  ASSERT_EQ(r.bias.size(), 12u);
  for (std::size_t n = 1; n <= r.bias.size(); ++n) EXPECT_NEAR(median_bias(n), r.bias[n - 1], 1e-15) << n;
}

TEST(SpiirWelch, MatchesScipyAndLalForOddAndEvenSegmentCounts) {
  const auto r = read_reference();
  for (const auto& [seconds, segments] : {std::pair{64, 31}, std::pair{14, 6}}) {
    const auto x = lcg_series(static_cast<std::size_t>(seconds * 64), 64);
    const auto psd = welch_median_psd(x, 64);
    ASSERT_TRUE(psd);
    const auto& ref = r.psd.at(segments);
    ASSERT_EQ(psd->value.size(), ref.size());
    for (std::size_t k = 0; k < ref.size(); ++k) {
      EXPECT_NEAR(psd->frequency[k], 0.25 * static_cast<double>(k), 1e-12);
      EXPECT_NEAR(psd->value[k] / ref[k].first, 1.0, 1e-12) << segments << " segments, bin " << k;
      EXPECT_NEAR(psd->value[k] / ref[k].second, 1.0, 1e-12) << segments << " segments, bin " << k;
    }
  }
}

TEST(SpiirWelch, LeavesOutSegmentsWithAGapAndNeedsOneSegment) {
  auto x = lcg_series(14 * 64, 64);
  const auto later = welch_median_psd(std::span(x).subspan(128), 64);  // segments 1 ... 5
  x[100] = std::numeric_limits<double>::quiet_NaN();                   // only in segment 0
  const auto gapped = welch_median_psd(x, 64);
  ASSERT_TRUE(gapped && later);
  EXPECT_EQ(gapped->value, later->value);
  EXPECT_FALSE(welch_median_psd(std::span(x).subspan(0, 255), 64));
  std::vector<double> all_nan(4096, std::numeric_limits<double>::quiet_NaN());
  EXPECT_FALSE(welch_median_psd(all_nan, 64));
}

using namespace whitening_test;  // rate, f_low, colour, coloured_noise, true_psd, band_fraction, variance

// Whitened noise: its PSD is 2/f_s in the band (mean over 40-Hz bands within 4 %: each band
// averages 160 bins, about 80 independent, of 127 segments' medians, σ ≈ 1.3 %) and zero outside; its variance the
// band's fraction.
void expect_white(const std::vector<double>& w, const char* what) {
  const auto psd = welch_median_psd(w, rate);
  ASSERT_TRUE(psd) << what;
  for (double lo = f_low + 1; lo + 40 < 0.9 * rate / 2; lo += 40) {
    double sum = 0;
    int count = 0;
    for (std::size_t k = 0; k < psd->frequency.size(); ++k)
      if (psd->frequency[k] >= lo && psd->frequency[k] < lo + 40) sum += psd->value[k], ++count;
    EXPECT_NEAR(sum / count / (2 / rate), 1.0, 0.04) << what << ", band from " << lo << " Hz";
  }
  for (std::size_t k = 0; k < psd->frequency.size(); ++k) {
    const double f = psd->frequency[k];
    if (f < f_low - 2 || f > 0.9 * rate / 2 + 2) {
      EXPECT_LT(psd->value[k], 1e-4 * 2 / rate) << what << ", " << f << " Hz";
    }
  }
  EXPECT_NEAR(variance(w) / band_fraction(), 1.0, 0.02) << what;
}

TEST(SpiirWhitening, ColouredNoiseBecomesWhiteByTheTrueAndTheEstimatedPsd) {
  const auto x = coloured_noise(static_cast<std::size_t>(256 * rate), 11);
  expect_white(whiten(x, rate, true_psd(), {f_low, 32, 0.5}), "true PSD");
  const auto estimate = welch_median_psd(x, rate);
  ASSERT_TRUE(estimate);
  const auto w = whiten(x, rate, *estimate, {f_low, 32, 0.5});
  expect_white(w, "estimated PSD");
  // The ends (mirrored, not wrapped): the first and last 2 s hold the same variance.
  const auto two = static_cast<std::size_t>(2 * rate);
  EXPECT_NEAR(variance(std::span(w).first(two)) / band_fraction(), 1.0, 0.1);
  EXPECT_NEAR(variance(std::span(w).last(two)) / band_fraction(), 1.0, 0.1);
}

// Below the band, real strain is dominated by seismic motion 1e3 times the in-band noise. The
// series' ends are extended by point reflection, continuous in value and slope: a zero extension
// puts a step of that size at each end (the first half second's variance ×1800), a mirror a kink
// (×32). The curvature's jump remains: ×2 over the first and last half second (docs/spiir.md),
// nothing beyond.
TEST(SpiirWhitening, LowFrequencyPowerLeavesLittleTransientAtTheEnds) {
  auto x = coloured_noise(static_cast<std::size_t>(40 * rate), 15);
  for (std::size_t i = 0; i < x.size(); ++i)
    x[i] += 1e-18 * std::sin(2 * std::numbers::pi * 3.1 * static_cast<double>(i) / rate + 1);
  const auto psd = welch_median_psd(x, rate);
  ASSERT_TRUE(psd);
  const auto w = whiten(x, rate, *psd, {f_low, 32, 0.5});
  const auto half = static_cast<std::size_t>(rate / 2);
  EXPECT_LT(variance(std::span(w).first(half)) / band_fraction(), 3.0);
  EXPECT_LT(variance(std::span(w).last(half)) / band_fraction(), 3.0);
  const auto inner = std::span(w).subspan(half, w.size() - 2 * half);
  EXPECT_NEAR(variance(inner.first(3 * half)) / band_fraction(), 1.0, 0.2);
  EXPECT_NEAR(variance(inner.last(3 * half)) / band_fraction(), 1.0, 0.2);
  double loudest = 0;
  for (double v : inner) loudest = std::max(loudest, std::abs(v));
  EXPECT_LT(loudest, 6 * std::sqrt(band_fraction()));
}

TEST(SpiirWhitening, ShortSeriesUseShorterBlocks) {
  EXPECT_EQ(whitening_block_samples(static_cast<std::size_t>(100 * rate), rate, 32), 32 * 1024u);
  EXPECT_EQ(whitening_block_samples(static_cast<std::size_t>(10 * rate), rate, 32), 20 * 1024u);
  const auto x = coloured_noise(static_cast<std::size_t>(10 * rate), 12);
  const auto w = whiten(x, rate, true_psd(), {f_low, 32, 0.5});
  EXPECT_NEAR(variance(w) / band_fraction(), 1.0, 0.05);
}

TEST(SpiirWhitening, RemovesASpectralLine) {
  auto x = coloured_noise(static_cast<std::size_t>(64 * rate), 13);
  const double f_line = 60.3;  // off the blocks' 1/32-Hz grid: the hardest case for a line
  for (std::size_t i = 0; i < x.size(); ++i) {
    x[i] += 3e-19 * std::sin(2 * std::numbers::pi * f_line * static_cast<double>(i) / rate);
  }
  // The line's amplitude in a series, by one DFT term over the whole series.
  const auto line_power = [&](const std::vector<double>& s) {
    std::complex<double> a = 0;
    for (std::size_t i = 0; i < s.size(); ++i)
      a += s[i] * std::polar(1.0, -2 * std::numbers::pi * f_line * static_cast<double>(i) / rate);
    const double amplitude = 2 * std::abs(a) / static_cast<double>(s.size());
    return amplitude * amplitude / 2;
  };
  const double before = line_power(x) / variance(x);
  const auto psd = welch_median_psd(x, rate);
  ASSERT_TRUE(psd);
  const auto whole = whiten(x, rate, *psd, {f_low, 32, 0.5});
  // The series' ends are extended by point reflection, which keeps value and slope continuous but
  // not curvature: a line 300 times the noise leaves a transient at the first and last samples,
  // a second, decaying over about a second (docs/spiir.md). Two seconds from the ends:
  const auto edge = static_cast<std::size_t>(2 * rate);
  const std::vector<double> w(whole.begin() + edge, whole.end() - edge);
  const double after = line_power(w) / variance(w);
  EXPECT_GT(before, 0.9);  // the line dominates the raw series
  EXPECT_LT(after, 1e-3);  // and is a negligible part of the whitened one
  EXPECT_NEAR(variance(w) / band_fraction(), 1.0, 0.02);
  std::size_t loud = 0;  // samples beyond 6 σ: the edge transient's extent
  for (std::size_t i = 0; i < whole.size(); ++i) loud += std::abs(whole[i]) > 6 * std::sqrt(band_fraction());
  std::printf("line: %.3g of the raw variance, %.3g of the whitened; %zu samples beyond 6 sigma (ends)\n", before,
              after, loud);
}

TEST(SpiirWhitening, GapsComeBackNaNWithTheirTapersAndLeaveTheRestWhite) {
  auto x = coloured_noise(static_cast<std::size_t>(64 * rate), 14);
  const std::size_t first = 30 * 1024, count = 2048, taper = 512;
  for (std::size_t i = first; i < first + count; ++i) x[i] = std::numeric_limits<double>::quiet_NaN();
  const auto estimate = welch_median_psd(x, rate);
  ASSERT_TRUE(estimate);
  const auto w = whiten(x, rate, *estimate, {f_low, 32, 0.5});
  for (std::size_t i = 0; i < w.size(); ++i) {
    const bool in_gap = i + taper >= first && i < first + count + taper;
    ASSERT_EQ(std::isnan(w[i]), in_gap) << i;
  }
  // One second beyond the tapers the data are white again.
  const auto before = std::span(w).subspan(first - taper - 2048, 1024);
  const auto after = std::span(w).subspan(first + count + taper + 1024, 1024);
  EXPECT_NEAR(variance(before) / band_fraction(), 1.0, 0.15);
  EXPECT_NEAR(variance(after) / band_fraction(), 1.0, 0.15);
}

TEST(SpiirStrainInput, DataQualityMasksWholeSeconds) {
  DetectorStrain d;
  d.ifo = "H1";
  d.sample_rate = 4;
  d.strain = std::vector<float>(18, 1.0f);  // 4.5 s
  d.strain[17] = NAN;                       // in the last, partial second
  d.dq = {1, 0, 1, 1, 1};
  EXPECT_EQ(apply_data_quality(d), 2u);
  EXPECT_TRUE(d.dq.empty());
  for (std::size_t i = 0; i < d.strain.size(); ++i) EXPECT_EQ(std::isnan(d.strain[i]), (i >= 4 && i < 8) || i == 17);
}

TEST(SpiirGwosc, ReadsWhatItWritesAndRefusesDamage) {
  const test::TempDir dir;  // this process's own: test programs of two builds may run side by side
  GwoscFile f;
  f.ifo = "L1";
  f.gps_start = 1126259446;
  f.sample_rate = 256;
  f.strain.resize(3 * 256);
  for (std::size_t i = 0; i < f.strain.size(); ++i) f.strain[i] = 1e-21 * static_cast<double>(i % 7);
  f.dq_mask = {127, 126, 1};     // bit 0 cleared in second 1
  f.injection_mask = {0, 0, 4};  // a hardware injection in second 2
  const auto good = dir.path("good.hdf5");
  write_gwosc_strain(good, f);
  ASSERT_TRUE(looks_like_gwosc(good));
  const auto d = read_gwosc_strain(good);
  EXPECT_EQ(d.ifo, "L1");
  EXPECT_EQ(d.gps_start_s, 1126259446);
  EXPECT_EQ(d.gps_start_ns, 0);
  EXPECT_EQ(d.sample_rate, 256);
  EXPECT_FALSE(d.whitened);
  EXPECT_EQ(d.dq, (std::vector<std::uint8_t>{1, 0, 1}));
  ASSERT_EQ(d.strain.size(), f.strain.size());
  EXPECT_FLOAT_EQ(d.strain[5], 5e-21f);
  EXPECT_EQ(gwosc_injection_seconds(good), 1u);

  f.dq_mask.clear();  // no /quality group: no data-quality flags, no injections
  const auto bare = dir.path("bare.hdf5");
  write_gwosc_strain(bare, f);
  EXPECT_TRUE(read_gwosc_strain(bare).dq.empty());
  EXPECT_EQ(gwosc_injection_seconds(bare), 0u);

  f.npoints = 100;
  const auto bad_npoints = dir.path("npoints.hdf5");
  write_gwosc_strain(bad_npoints, f);
  EXPECT_THROW(read_gwosc_strain(bad_npoints), InputError);
  f.npoints = 0;
  f.with_strain = false;
  const auto no_strain = dir.path("no_strain.hdf5");
  write_gwosc_strain(no_strain, f);
  try {
    read_gwosc_strain(no_strain);
    FAIL() << "no /strain/Strain was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(no_strain), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("/strain/Strain"), std::string::npos);
  }
}

}  // namespace
}  // namespace astrosweep::spiir
