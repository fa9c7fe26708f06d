// One series through the CPU search (spec §13 item 3, scaled down): an accelerated pulsar with
// four harmonics in white noise is the most significant candidate, at its fundamental's (r, z),
// found at the stage that sums its four harmonics, with exact half bins and interbinned ones
// (numbetween 1), and steady pulsars at z_max 0 with 1 and 8 harmonics; noise alone yields nothing
// above 6 sigma.
#include <fftw3.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <complex>
#include <numbers>
#include <random>
#include <vector>

#include "core/error.hpp"
#include "optimise.hpp"
#include "series_search.hpp"

namespace astrosweep::fdas {
namespace {

// Normalised spectrum of white noise of known variance: F_k / √(N σ²), k = 1 … N/2 − 1, DC = 1.
std::vector<std::complex<float>> normalised_spectrum(const std::vector<double>& x, double variance) {
  const int n = static_cast<int>(x.size());
  std::vector<double> in(x);
  std::vector<std::complex<double>> out(x.size() / 2 + 1);
  fftw_plan plan = fftw_plan_dft_r2c_1d(n, in.data(), reinterpret_cast<fftw_complex*>(out.data()), FFTW_ESTIMATE);
  fftw_execute(plan);
  fftw_destroy_plan(plan);
  std::vector<std::complex<float>> f(x.size() / 2);
  const double scale = 1 / std::sqrt(n * variance);
  for (std::size_t k = 0; k < f.size(); ++k) f[k] = std::complex<float>(out[k] * scale);
  f[0] = 1;
  return f;
}

std::vector<double> noise(std::size_t n, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> g;
  std::vector<double> x(n);
  for (auto& v : x) v = g(rng);
  return x;
}

constexpr std::size_t n = 1 << 16;

// The search's settings and the pulsar: numbetween 2 (exact half bins) or 1 (interbinned), a drift
// search or z_max 0 (a steady pulsar), numharm harmonics summed as many as injected.
struct PulsarCase {
  int numbetween;
  double z_max;
  int numharm;
  double z0;
};

class PulsarSearch : public ::testing::TestWithParam<PulsarCase> {};

TEST_P(PulsarSearch, FindsAnAcceleratedPulsarAtItsFundamental) {
  const PulsarCase c = GetParam();
  const double r0 = 1234.3, z0 = c.z0;  // off the grid in r, and in z where it drifts
  const int harmonics = c.numharm;
  auto x = noise(n, 7);
  // `harmonics` harmonics, each with normalised power ≈ N a²/4 = 60 (240 for one alone, so that
  // its z is as well measured as four harmonics').
  const double per_harmonic = std::max(60.0, 240.0 / harmonics);
  const double a = std::sqrt(4 * per_harmonic / n);
  for (std::size_t i = 0; i < n; ++i) {
    const double u = static_cast<double>(i) / n;
    const double phase = 2 * std::numbers::pi * ((r0 - z0 / 2) * u + z0 / 2 * u * u);
    for (int h = 1; h <= harmonics; ++h) x[i] += a * std::cos(h * phase + 0.3 * h);
  }
  const auto spectrum = normalised_spectrum(x, 1.0);
  const TemplateBank bank = make_template_bank(c.z_max, c.numbetween, Accuracy::low);
  const auto expected = static_cast<float>(per_harmonic * harmonics);
  const auto stages = static_cast<std::size_t>(std::countr_zero(static_cast<unsigned>(c.numharm))) + 1;
  SearchSettings s;
  s.numharm = c.numharm;
  s.sigma_min = 3.0;
  s.r_lo = 100;
  s.r_hi = static_cast<double>(spectrum.size());
  s.block_normalise = false;  // known-variance normalisation already
  for (bool fp64 : {false, true}) {
    const SeriesCandidates found =
        fp64 ? search_spectrum(spectrum, bank, transform_kernels<double>(bank.taps, bank.layout.fft_length), s)
             : search_spectrum(spectrum, bank, transform_kernels<float>(bank.taps, bank.layout.fft_length), s);
    ASSERT_FALSE(found.candidates.empty());
    ASSERT_EQ(found.stages.size(), stages);
    EXPECT_GT(found.stages.back().n_indep, found.stages[0].n_indep / (2 * c.numharm));
    const auto best = *std::max_element(found.candidates.begin(), found.candidates.end(),
                                        [](const Candidate& p, const Candidate& q) { return p.sigma < q.sigma; });
    EXPECT_NEAR(best.r, r0, 1.0) << (fp64 ? "fp64" : "fp32");
    EXPECT_NEAR(best.z, z0, 2.0);
    EXPECT_EQ(best.numharm, c.numharm);
    EXPECT_GT(best.sigma, 10.0F);
    // Summed power of the harmonics, at least the worst grid loss (0.77) of it, plus
    // noise (interbinned half bins lose less than that at z = 0: 0.857 at worst, spec §5).
    EXPECT_GT(best.power, 0.77F * expected);
    // Polishing moves it to the truth (spec §13 item 3: within 0.1 bin and 0.5 in z) and recovers
    // the power the grid lost.
    const Polished p = polish(spectrum, best.r, best.z, c.numharm);
    EXPECT_NEAR(p.r, r0, 0.1);
    EXPECT_NEAR(p.z, z0, 0.5);
    // (An interbin is no Fourier interpolation: its noise part has its own statistics, so with
    // numbetween 1 the grid's power may come out a little above the polished one.)
    EXPECT_GT(p.summed_power, static_cast<double>(best.power) * (c.numbetween == 2 ? 1.0 : 0.95));
    EXPECT_GT(p.summed_power, 0.9 * static_cast<double>(expected));
    ASSERT_EQ(p.harmonics.size(), static_cast<std::size_t>(c.numharm));
    // The injected harmonics are phase-locked (ψ_h = 0.3·h): coherent power near (Σ √P_h)².
    double amplitude_sum = 0;
    for (const auto& h : p.harmonics) amplitude_sum += std::sqrt(h.power);
    EXPECT_GT(p.coherent_power, 0.9 * amplitude_sum * amplitude_sum);
    EXPECT_LE(p.coherent_power, amplitude_sum * amplitude_sum * (1 + 1e-12));
    // The harmonics interpolated in parallel: the same simplex, bit for bit, for any thread count.
    for (const int threads : {2, 3, 4}) {
      const Polished q = polish(spectrum, best.r, best.z, c.numharm, Accuracy::low, threads);
      EXPECT_EQ(q.r, p.r) << threads << " threads";
      EXPECT_EQ(q.z, p.z) << threads << " threads";
      EXPECT_EQ(q.summed_power, p.summed_power) << threads << " threads";
    }
  }
  EXPECT_THROW(polish(spectrum, r0, z0, 33), UsageError);
}

INSTANTIATE_TEST_SUITE_P(Pulsars, PulsarSearch,
                         ::testing::Values(PulsarCase{2, 60, 4, 13.3}, PulsarCase{1, 60, 4, 13.3},
                                           PulsarCase{1, 0, 1, 0}, PulsarCase{1, 0, 8, 0}, PulsarCase{2, 0, 8, 0},
                                           PulsarCase{1, 20, 8, -2.2}));

TEST(SeriesSearch, NoiseAloneGivesNothingSignificant) {
  const auto spectrum = normalised_spectrum(noise(n, 11), 1.0);
  const TemplateBank bank = make_template_bank(20, 2, Accuracy::low);
  SearchSettings s;
  s.numharm = 8;
  s.sigma_min = 6.0;
  s.r_lo = 50;
  s.r_hi = static_cast<double>(spectrum.size());
  s.block_normalise = false;
  const SeriesCandidates found =
      search_spectrum(spectrum, bank, transform_kernels<float>(bank.taps, bank.layout.fft_length), s);
  EXPECT_TRUE(found.candidates.empty()) << found.candidates.size() << " candidates, best sigma "
                                        << (found.candidates.empty() ? 0.0F : found.candidates.front().sigma);
  EXPECT_EQ(found.stages.size(), 4U);
  for (std::size_t i = 1; i < found.stages.size(); ++i) EXPECT_GT(found.stages[i].powcut, found.stages[i - 1].powcut);
}

// PRESTO's accelsearch on 2^18 samples of 64 µs (T = 16.777216 s, 131072 bins, f 1 Hz … Nyquist,
// z_max 200: blocks of U = 1544 half bins from its rlo = 16) printed these trials and searched
// r = 16 … 130484; the block above, whose segment reads past the last bin, it leaves unsearched,
// and so do we: our segments are its blocks.
TEST(SearchGeometry, LeavesTheTopPartialBlockAsPrestoDoes) {
  const TemplateBank bank = make_template_bank(200, 2, Accuracy::low);
  ASSERT_EQ(bank.layout.useful_outputs(), 1544U);
  const std::size_t bins = 131072;
  SearchSettings s;
  s.numharm = 8;
  s.r_lo = 16.777216;
  s.r_hi = static_cast<double>(bins);
  const SearchGeometry g = search_geometry(bins, bank, s);
  EXPECT_EQ(g.i_begin, 34);
  EXPECT_EQ(g.grid.plane_lo, 1U);
  // 169 blocks from bin 16 (the 170th would end past 2·(bins − 1)): r < 130484, as PRESTO printed.
  EXPECT_EQ(g.i_end, 2 * 16 + 169 * 1544);
  EXPECT_EQ(g.grid.plane_hi, static_cast<std::size_t>((g.i_end + 1) / 2 + 1));
  ASSERT_EQ(g.grid.runs.size(), 2U);
  EXPECT_EQ(g.grid.runs[1].first_bin, 16U);
  ASSERT_EQ(g.stages.size(), 4U);
  // The trials still count the whole band: PRESTO's figures for this series.
  EXPECT_EQ(g.stages[0].n_indep, 7618161);
  EXPECT_EQ(g.stages[1].n_indep, 3809080);
  EXPECT_EQ(g.stages[2].n_indep, 1904540);
  EXPECT_EQ(g.stages[3].n_indep, 952270);
}

// numbetween 1: blocks of a segment's columns, 2U = 3590 (U = 2048 − 2·126 − 1 = 1795 bins), laid
// from bin 16 as PRESTO's are: 73 of them end below the last bin's column (the 74th would reach
// 32 + 74·3590 > 262142), so the search ends at column 32 + 73·3590.
TEST(SearchGeometry, InterbinnedBlocksAreASegmentsColumns) {
  const TemplateBank bank = make_template_bank(200, 1, Accuracy::low);
  ASSERT_EQ(bank.layout.useful_outputs(), 1795U);
  ASSERT_EQ(bank.layout.segment_columns(), 3590U);
  const std::size_t bins = 131072;
  SearchSettings s;
  s.numharm = 8;
  s.r_lo = 16.777216;
  s.r_hi = static_cast<double>(bins);
  const SearchGeometry g = search_geometry(bins, bank, s);
  EXPECT_EQ(g.i_begin, 34);
  EXPECT_EQ(g.grid.plane_lo, 1U);
  ASSERT_EQ(g.grid.runs.size(), 2U);
  EXPECT_EQ(g.grid.runs[1].first_bin, 16U);
  EXPECT_EQ(g.i_end, 32 + 73 * 3590);
  // A band that stops short of the last bin is searched whole, as with numbetween 2.
  EXPECT_EQ(searched_band_end(34, 200000, bins, 16, bank.layout), 200000);
  // The trials are the band's, whatever numbetween.
  EXPECT_EQ(g.stages[0].n_indep, 7618161);
}

TEST(SearchGeometry, SearchesWholeABandThatEndsBelowTheLastBinOrIsShorterThanABlock) {
  const TemplateBank bank = make_template_bank(200, 2, Accuracy::low);
  const CorrelationLayout& layout = bank.layout;
  // --fhi below Nyquist: the top segment reads real bins.
  EXPECT_EQ(searched_band_end(34, 200000, 131072, 16, layout), 200000);
  EXPECT_EQ(searched_band_end(34, 2 * 131071 - 1, 131072, 16, layout), 2 * 131071 - 1);
  // Reaching the end: the whole blocks from the blocks' origin (not the band's first column)
  // whose end lies below the last bin's column ...
  EXPECT_EQ(searched_band_end(34, 2 * 131072, 131072, 16, layout), 32 + 169 * 1544);
  EXPECT_EQ(searched_band_end(269, 2 * 1048576, 1048576, 134, layout), 268 + 1358 * 1544);
  EXPECT_EQ(searched_band_end(0, 2 * 1545, 1545, 0, layout), 1544);  // 1544 < 2·1544 columns of the last bin
  EXPECT_EQ(searched_band_end(20, 2 * 1000, 1000, 10, layout), 20 + 1544);
  EXPECT_EQ(searched_band_end(0, 2 * 773, 773, 0, layout), 2 * 773);  // 1544 = 2·772: no whole block below it
  // Shorter than one block: searched whole (PRESTO would search nothing).
  EXPECT_EQ(searched_band_end(20, 1400, 700, 10, layout), 1400);
}

TEST(SeriesSearch, RefusesWhatItCannotSearch) {
  const std::vector<std::complex<float>> spectrum(1000);
  const TemplateBank half = make_template_bank(10, 2, Accuracy::low);
  const TemplateBank whole = make_template_bank(10, 1, Accuracy::low);
  SearchSettings s;
  s.r_lo = 10;
  s.r_hi = 1000;
  // numbetween 1 is searched (its half bins interbinned); a layout of another numbetween is not.
  EXPECT_NO_THROW(search_spectrum(spectrum, whole, transform_kernels<float>(whole.taps, whole.layout.fft_length), s));
  TemplateBank third = half;
  third.layout.numbetween = 3;
  EXPECT_THROW((void)search_geometry(spectrum.size(), third, s), UsageError);
  s.numharm = 3;
  EXPECT_THROW(search_spectrum(spectrum, half, transform_kernels<float>(half.taps, half.layout.fft_length), s),
               UsageError);
  s.numharm = 2;
  s.r_lo = 2000;
  EXPECT_THROW(search_spectrum(spectrum, half, transform_kernels<float>(half.taps, half.layout.fft_length), s),
               UsageError);
}

}  // namespace
}  // namespace astrosweep::fdas
