// One series end to end on the CPU (spec §13 item 3, scaled to N = 2^17 at 64 µs): float samples
// of an accelerated pulsar with eight harmonics in white noise, dereddened as PRESTO does; the
// most significant candidate is the pulsar at its frequency and drift within their errors, and
// its harmonics are not listed again as candidates of their own.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <random>
#include <vector>

#include "series_pipeline.hpp"

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

}  // namespace
}  // namespace astrosweep::fdas
