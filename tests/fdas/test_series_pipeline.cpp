// One series end to end on the CPU (spec §13 item 3, scaled to N = 2^17 at 64 µs): float samples
// of an accelerated pulsar with eight harmonics in white noise, dereddened as PRESTO does; the
// most significant candidate is the pulsar at its frequency and drift within their errors, and
// its harmonics are not listed again as candidates of their own.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <numbers>
#include <random>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "series_pipeline.hpp"
#include "spectrum.hpp"

namespace astrosweep::fdas {
namespace {

TEST(SeriesPipeline, FindsThePulsarInPhysicalUnits) {
  constexpr std::size_t n = 1 << 17;
  constexpr double tsamp = 64e-6;
  const double T = n * tsamp;         // 8.39 s
  const double f0 = 137.1, z0 = 7.3;  // z in bins over T: ḟ = z / T²
  const double fdot = z0 / (T * T);
  std::mt19937_64 rng(2);
  std::normal_distribution<double> g;
  std::vector<float> x(n);
  const double a = std::sqrt(4 * 40.0 / n);  // each harmonic's normalised power ≈ 40
  for (std::size_t i = 0; i < n; ++i) {
    const double t = static_cast<double>(i) * tsamp;
    // f0 is the mean frequency: the phase of a drift centred on the middle of the series.
    const double phase = 2 * std::numbers::pi * ((f0 - fdot * T / 2) * t + fdot * t * t / 2);
    double v = g(rng);
    for (int h = 1; h <= 8; ++h) v += a * std::cos(h * phase + 0.2 * h);
    x[i] = static_cast<float>(v);
  }
  FdasOptions options;
  options.z_max = 80;  // the 8th harmonic drifts 8·z0 = 58 bins: the summed plane must reach it
  options.numharm = 8;
  options.sigma_min = 3.0;
  options.f_lo = 10;
  options.backend.threads = 2;
  const TemplateBank bank = make_template_bank(options.z_max, 2, options.accuracy);
  const auto backend = make_fdas_backend_cpu(bank, options.backend);
  const SeriesResult result = search_series(x, tsamp, options, *backend);
  EXPECT_EQ(result.n_fft, n);
  ASSERT_FALSE(result.candidates.empty());
  const SeriesFound& best = result.candidates.front();
  EXPECT_NEAR(best.physics.frequency_hz, f0, 0.1 / T);
  EXPECT_NEAR(best.physics.fdot_hz_s, fdot, 0.5 / (T * T));
  EXPECT_EQ(best.found.numharm, 8);
  EXPECT_GT(best.sigma, best.found.sigma);  // polishing recovered the grid's loss
  EXPECT_GT(best.physics.accel_m_s2, 0.0);  // rising frequency
  // No other candidate at a harmonic of the pulsar: elimination removed them.
  for (std::size_t i = 1; i < result.candidates.size(); ++i)
    for (int h = 2; h <= 8; ++h)
      EXPECT_GT(std::abs(result.candidates[i].polished.r - h * best.polished.r), 1.5) << "harmonic " << h;
}

// A dereddened spectrum of noise with a drifting 4-harmonic signal, and candidates near it and
// elsewhere, as a search would hand them to polishing.
struct PolishCase {
  std::vector<std::complex<float>> spectrum;
  std::vector<Candidate> list;
  std::vector<StageTrials> stages;
};

PolishCase polish_case(std::size_t n_candidates) {
  constexpr std::size_t n = 1 << 15;
  std::mt19937_64 rng(5);
  std::normal_distribution<double> g;
  std::vector<float> x(n);
  const double a = std::sqrt(4 * 30.0 / n);
  for (std::size_t i = 0; i < n; ++i) {
    const double u = static_cast<double>(i) / n;  // r = 1000.3 bins, z = 6.2 over the series
    const double phase = 2 * std::numbers::pi * ((1000.3 - 3.1) * u + 3.1 * u * u);
    double v = g(rng);
    for (int h = 1; h <= 4; ++h) v += a * std::cos(h * phase);
    x[i] = static_cast<float>(v);
  }
  PolishCase c;
  c.spectrum = raw_spectrum(x, n);
  deredden(c.spectrum);
  for (int H = 1; H <= 4; H *= 2) c.stages.push_back({H, 1'000'000, 0, 0});
  const std::vector<Candidate> pool{{1000.5, 6.0, 50, 9, 4, 2},  {2000.5, 12.0, 40, 6, 1, 0},
                                    {3001.0, 18.5, 30, 5, 2, 1}, {5123.5, -7.0, 20, 4, 2, 1},
                                    {777.25, 3.5, 18, 3, 4, 2},  {9000.0, 0.0, 15, 3, 1, 0}};
  c.list.assign(pool.begin(), pool.begin() + static_cast<std::ptrdiff_t>(n_candidates));
  return c;
}

// Every bit of what polishing returns.
void expect_same_bits(const std::vector<SeriesFound>& a, const std::vector<SeriesFound>& b, const std::string& what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  auto same = [](double x, double y) { return std::bit_cast<std::uint64_t>(x) == std::bit_cast<std::uint64_t>(y); };
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_TRUE(same(a[i].found.r, b[i].found.r)) << what << ": candidate " << i << " is another";
    EXPECT_TRUE(same(a[i].polished.r, b[i].polished.r) && same(a[i].polished.z, b[i].polished.z)) << what << " " << i;
    EXPECT_TRUE(same(a[i].polished.summed_power, b[i].polished.summed_power)) << what << " " << i;
    EXPECT_TRUE(same(a[i].polished.coherent_power, b[i].polished.coherent_power)) << what << " " << i;
    EXPECT_EQ(std::bit_cast<std::uint32_t>(a[i].sigma), std::bit_cast<std::uint32_t>(b[i].sigma)) << what << " " << i;
    ASSERT_EQ(a[i].harmonics.size(), b[i].harmonics.size()) << what << " " << i;
    for (std::size_t h = 0; h < a[i].harmonics.size(); ++h) {
      const HarmonicRow &p = a[i].harmonics[h], &q = b[i].harmonics[h];
      EXPECT_TRUE(same(p.local_power, q.local_power) && same(p.raw_power, q.raw_power) &&
                  same(p.phase_deg, q.phase_deg) && same(p.centroid, q.centroid) && same(p.purity, q.purity))
          << what << " " << i << " harmonic " << h + 1;
    }
  }
}

TEST(SeriesPipeline, PolishingIsTheSameBitForBitOnAnyThreads) {
  // Fewer candidates than threads (each step's harmonics in parallel), as many, more (one
  // candidate a thread), one candidate, none.
  for (const std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{3}, std::size_t{4}, std::size_t{6}}) {
    const PolishCase c = polish_case(n);
    const auto one = polish_candidates(c.spectrum, c.list, c.stages, 8.0, Accuracy::low, 1);
    ASSERT_EQ(one.size(), n);
    for (std::size_t i = 1; i < one.size(); ++i) EXPECT_GE(one[i - 1].sigma, one[i].sigma);  // sigma order
    for (const int threads : {2, 3, 4})
      expect_same_bits(one, polish_candidates(c.spectrum, c.list, c.stages, 8.0, Accuracy::low, threads),
                       std::to_string(n) + " candidates, " + std::to_string(threads) + " threads");
  }
  // The signal's candidate polishes to the signal: r 1000.3, z 6.2, within a tenth of a bin.
  const PolishCase c = polish_case(1);
  const auto found = polish_candidates(c.spectrum, c.list, c.stages, 8.0, Accuracy::low, 4);
  EXPECT_NEAR(found.front().polished.r, 1000.3, 0.1);
  EXPECT_NEAR(found.front().polished.z, 6.2, 0.5);
  EXPECT_GT(found.front().polished.summed_power, 50.0);  // four harmonics of ≈ 30 less the noise's spread
  EXPECT_EQ(found.front().harmonics.size(), 4U);
}

TEST(SeriesPipeline, PolishingACandidateOfAStageNotSearchedIsAnError) {
  PolishCase c = polish_case(1);
  c.stages.resize(2);  // numharm 4 is stage 2
  EXPECT_THROW(polish_candidates(c.spectrum, c.list, c.stages, 8.0, Accuracy::low, 2), UsageError);
}

}  // namespace
}  // namespace astrosweep::fdas
