// Multi-rate filtering (spec §4, §12 tolerance 3): the half-band decimator and interpolator on
// tones, and a multi-rate bank against the same template's single-rate bank: |ρ| at a noise-free
// injection within 1 %, the peak on the same sample, and E|z|² = 2 in white noise. The stream's
// interpolation (multirate_upsample_rule.hpp, shared with the CUDA kernel) against the plain
// zero-stuffed low-pass in complex arithmetic, bit for bit; the stream as a SpiirBackend
// (filter_max, snr_rows, reset) and make_multirate_backend on the CPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <numbers>
#include <random>
#include <vector>

#include "bank_generation.hpp"
#include "core/error.hpp"
#include "filter_test_support.hpp"
#include "multirate_filter.hpp"
#include "sample_max.hpp"

namespace astrosweep::spiir {
namespace {

constexpr double two_pi = 2 * std::numbers::pi;

TEST(MultirateFilter, HalfbandTaps) {
  const auto taps = halfband_taps();
  ASSERT_EQ(taps.size(), 65u);
  double dc = 0;
  for (std::size_t k = 0; k < taps.size(); ++k) {
    dc += taps[k];
    EXPECT_DOUBLE_EQ(taps[k], taps[taps.size() - 1 - k]);
  }
  EXPECT_NEAR(dc, 1.0, 1e-15);
  const auto gain = [&](double f) {
    std::complex<double> sum = 0;
    for (std::size_t k = 0; k < taps.size(); ++k) sum += taps[k] * std::polar(1.0, -two_pi * f * (double(k) - 32));
    return std::abs(sum);
  };
  for (double f : {0.0, 0.1, 0.19}) EXPECT_NEAR(gain(f), 1.0, 1e-3) << f;  // filters' band (≤ 0.1925)
  for (double f : {0.31, 0.4, 0.5}) EXPECT_LT(gain(f), 1e-3) << f;         // what would alias into it
}

TEST(MultirateFilter, DecimateAndInterpolateTones) {
  const auto taps = halfband_taps();
  std::vector<double> x(2000);
  for (std::size_t n = 0; n < x.size(); ++n) x[n] = std::cos(two_pi * 0.07 * double(n));
  const auto low = decimate2(x, taps);
  ASSERT_EQ(low.size(), 1000u);
  for (std::size_t m = 40; m < 960; ++m)
    EXPECT_NEAR(low[m], std::numbers::sqrt2 * std::cos(two_pi * 0.14 * double(m)), 2e-3);
  std::vector<std::complex<double>> z(1000);
  for (std::size_t m = 0; m < z.size(); ++m) z[m] = std::polar(1.0, -two_pi * 0.15 * double(m));
  const auto up = interpolate2(z, 2000, taps);
  for (std::size_t n = 80; n < 1920; ++n)
    EXPECT_LT(std::abs(up[n] - std::polar(1.0, -two_pi * 0.075 * double(n))), 2e-3) << n;
}

struct Banks {
  SpiirBank multi, single;
  WhitenedTemplate tmpl;
  Banks() {
    BankSettings s;
    s.f_low = 60;
    s.sample_rate = 2048;
    s.ifos = {"H1"};
    multi = make_spiir_bank({{1.4, 1.4}}, s);
    s.n_rates = 1;
    single = make_spiir_bank({{1.4, 1.4}}, s);
    tmpl = taylorf2_template({1.4, 1.4}, {60, 2048, {}});
  }
};

const Banks& banks() {
  static const Banks b;
  return b;
}

std::vector<std::complex<double>> run(const SpiirBank& bank, const std::vector<double>& x) {
  return multirate_filter(bank, x, [](const RateBank& r) { return make_spiir_backend_cpu(r, Precision::fp64, {}); });
}

TEST(MultirateFilter, InjectionAgreesWithTheSingleRateBank) {
  const auto& b = banks();
  ASSERT_GE(b.multi.rates.size(), 4u);
  const auto& h = b.tmpl.h;
  const std::size_t end = h.size() + 3000;
  std::vector<double> x(end + 3000, 0.0);
  for (std::size_t s = 0; s < h.size(); ++s) x[end + 1 - h.size() + s] = 10.0 * (std::polar(1.0, 0.3) * h[s]).real();
  const auto zm = run(b.multi, x);
  const auto zs = run(b.single, x);
  std::size_t at_m = 0, at_s = 0;
  for (std::size_t n = 0; n < x.size(); ++n) {
    if (std::abs(zm[n]) > std::abs(zm[at_m])) at_m = n;
    if (std::abs(zs[n]) > std::abs(zs[at_s])) at_s = n;
  }
  std::printf("[ spiir    ] injection: single-rate |rho| %.4f at %zu, multi-rate %.4f at %zu (%zu rates)\n",
              std::abs(zs[at_s]), at_s, std::abs(zm[at_m]), at_m, b.multi.rates.size());
  EXPECT_LE(std::abs(double(at_m) - double(at_s)), 1.0);
  EXPECT_NEAR(std::abs(zm[at_m]) / std::abs(zs[at_s]), 1.0, 0.01);
}

// The streaming form (causal FIRs, delays compensated, states carried over chunks of several sizes)
// is the whole-series form late by latency() samples.
TEST(MultirateFilter, StreamEqualsTheWholeSeriesLate) {
  const auto& b = banks();
  const auto make = [](const RateBank& r) { return make_spiir_backend_cpu(r, Precision::fp64, {}); };
  MultirateStream stream(b.multi, make);
  const std::size_t unit = stream.chunk_multiple();
  EXPECT_EQ(unit, 8u);                                // 4 rates: levels 0 … 3
  EXPECT_EQ(stream.latency(), 2u * 32u * (8u - 1u));  // 2K(2^L − 1)
  std::mt19937_64 rng(5);
  std::normal_distribution<double> g(0, 1);
  std::vector<double> x(12 * 2048);
  for (auto& v : x) v = g(rng);
  const auto whole = multirate_filter(b.multi, x, make);
  std::vector<std::complex<double>> streamed(x.size());
  const std::size_t sizes[] = {unit, 512 * unit, 37 * unit, 2048};
  for (std::size_t first = 0, c = 0; first < x.size(); ++c) {
    const std::size_t n = std::min(sizes[c % 4], x.size() - first);
    std::vector<std::complex<double>> z(n);
    stream.filter(std::span(x).subspan(first, n), z);
    std::copy(z.begin(), z.end(), streamed.begin() + static_cast<std::ptrdiff_t>(first));
    first += n;
  }
  double scale = 0, worst = 0;
  for (std::size_t n = 0; n + stream.latency() < x.size(); ++n) {
    scale = std::max(scale, std::abs(whole[n]));
    worst = std::max(worst, std::abs(streamed[n + stream.latency()] - whole[n]));
  }
  EXPECT_LE(worst, 1e-12 * scale);
  EXPECT_THROW(stream.filter(std::vector<double>(unit + 1, 0.0), streamed), UsageError);
}

TEST(MultirateFilter, WhiteNoiseGivesUnitVarianceSnr) {
  const auto& b = banks();
  const std::size_t batch = 2048, n = 96 * batch;
  std::mt19937_64 rng(42);
  std::normal_distribution<double> g(0, 1);
  std::vector<double> x(n);
  for (auto& v : x) v = g(rng);
  const auto z = run(b.multi, x);
  const std::size_t warm = (b.tmpl.h.size() + batch - 1) / batch * batch;
  std::vector<double> means;
  for (std::size_t first = warm; first + batch <= n - batch; first += batch) {  // the last second: FIR edge
    double sum = 0;
    for (std::size_t i = first; i < first + batch; ++i) sum += std::norm(z[i]);
    means.push_back(sum / batch);
  }
  double mean = 0, var = 0;
  for (double m : means) mean += m / double(means.size());
  for (double m : means) var += (m - mean) * (m - mean) / double(means.size() - 1);
  const double se = std::sqrt(var / double(means.size()));
  std::printf("[ spiir    ] multi-rate E|z|^2 = %.4f +- %.4f\n", mean, se);
  EXPECT_NEAR(mean, 2.0, 3 * se);
  EXPECT_NEAR(mean, 2.0, 0.04);
}

// The plain causal interpolation as the stream computed it before the rule was shared with the
// CUDA kernel: the zero-stuffed series e (2q ↔ e[q]) low-passed with gain 2, complex arithmetic.
std::vector<std::complex<double>> plain_interpolation(const std::vector<double>& taps,
                                                      const std::vector<std::complex<double>>& e, std::size_t n) {
  const std::size_t k = taps.size() / 2, origin = 2 * (k + 1);
  std::vector<std::complex<double>> out(n);
  for (std::size_t i = 0; i < n; ++i) {
    std::complex<double> sum = 0;
    for (std::size_t j = 0; j <= 2 * k; ++j) {
      const std::size_t pos = origin + i - j;
      if (pos % 2 == 0) sum += 2.0 * taps[j] * e[pos / 2];
    }
    out[i] = sum;
  }
  return out;
}

// add_interpolated (the rule the CUDA kernel runs) adds exactly the plain interpolation, only from
// output_start on, and moves its history on by the chunk: K = 32 and 64, chunks shorter and longer
// than the history, samples before the start left alone.
TEST(MultirateFilter, AddInterpolatedIsThePlainLowPassBitForBit) {
  std::mt19937_64 rng(11);
  std::normal_distribution<double> g(0, 1);
  for (const int half : {32, 64})
    for (const std::size_t n : {std::size_t{2}, std::size_t{16}, std::size_t{66}, std::size_t{300}})
      for (const std::size_t output_start : {std::size_t{0}, std::size_t{5}, std::size_t{1000}}) {
        SCOPED_TRACE("K " + std::to_string(half) + ", n " + std::to_string(n) + ", start " +
                     std::to_string(output_start));
        const auto taps = halfband_taps(half);
        const auto k = static_cast<std::size_t>(half);
        std::vector<std::complex<double>> history(k + 1), below(n / 2), here(n);
        for (auto& v : history) v = {g(rng), g(rng)};
        for (auto& v : below) v = {g(rng), g(rng)};
        for (auto& v : here) v = {g(rng), g(rng)};
        std::vector<std::complex<double>> e(history);
        e.insert(e.end(), below.begin(), below.end());
        const auto up = plain_interpolation(taps, e, n);
        const auto level = here;
        const std::size_t seen = 4;
        add_interpolated(taps, history, below, seen, output_start, here);
        for (std::size_t i = 0; i < n; ++i) {
          const std::complex<double> want = seen + i < output_start ? level[i] : level[i] + up[i];
          EXPECT_EQ(here[i].real(), want.real()) << "sample " << i;
          EXPECT_EQ(here[i].imag(), want.imag()) << "sample " << i;
        }
        for (std::size_t q = 0; q <= k; ++q) EXPECT_EQ(history[q], e[e.size() - (k + 1) + q]) << "history " << q;
      }
}

// A multi-rate bank of random filters: templates with filters at `levels` rates from 2048 Hz
// down, and none at level `empty` (when below the lowest).
SpiirBank random_multirate_bank(std::size_t n_templates, int levels, int empty, unsigned seed) {
  std::mt19937_64 rng(seed);
  SpiirBank bank;
  bank.sample_rate_max = 2048;
  for (int level = 0; level < levels; ++level) {
    if (level == empty) continue;
    std::vector<std::vector<IirFilter>> per_template;
    for (std::size_t t = 0; t < n_templates; ++t) per_template.push_back(random_filters(rng, 1 + (t + level) % 5, 60));
    bank.rates.push_back(RateBank::pack(2048 >> level, per_template));
  }
  bank.templates.resize(n_templates);
  return bank;
}

// The stream as a SpiirBackend: filter_max is the plain loop over filter()'s SNRs of a twin fed
// the same chunks, snr_rows gives the twin's rows (repeats, any order), reset() starts a new run,
// and make_multirate_backend on the CPU is this stream.
TEST(MultirateFilter, StreamIsABackend) {
  const SpiirBank bank = random_multirate_bank(5, 3, 1, 3);  // levels 0 and 2: level 1 has no filters
  const auto make = [](const RateBank& r) { return make_spiir_backend_cpu(r, Precision::fp64, {}); };
  MultirateStream with_max(bank, make), with_snr(bank, make);
  BackendOptions cpu;
  cpu.kind = BackendKind::cpu;
  const auto made = make_multirate_backend(bank, Precision::fp64, cpu);
  EXPECT_NE(made->describe().find("2 rates"), std::string::npos) << made->describe();
  const auto x = white_noise(4 * 1024, 9);
  const std::size_t nt = bank.n_templates();
  const std::vector<std::size_t> rows = {4, 0, 4, 2};
  std::vector<std::complex<double>> first_run;
  for (std::size_t first = 0, c = 0; first < x.size(); ++c) {
    const std::size_t n = std::min<std::size_t>(c % 2 == 0 ? 4 : 1020, x.size() - first);
    const auto chunk = std::span(x).subspan(first, n);
    std::vector<SampleMax> best(n), want(n), from_made(n);
    std::vector<std::complex<double>> z(nt * n), got_rows(rows.size() * n);
    with_max.filter_max(chunk, best);
    with_snr.filter(chunk, z);
    made->filter_max(chunk, from_made);
    sample_max(z, nt, n, want);
    for (std::size_t i = 0; i < n; ++i) {
      EXPECT_EQ(best[i].power, want[i].power);
      EXPECT_EQ(best[i].template_index, want[i].template_index);
      EXPECT_EQ(best[i].z, want[i].z);
      EXPECT_EQ(from_made[i].power, want[i].power);
    }
    with_max.snr_rows(rows, got_rows);
    for (std::size_t r = 0; r < rows.size(); ++r)
      for (std::size_t i = 0; i < n; ++i) EXPECT_EQ(got_rows[r * n + i], z[rows[r] * n + i]);
    first_run.insert(first_run.end(), z.begin(), z.end());
    first += n;
  }
  // After reset(), the same chunks give the same SNRs.
  with_snr.reset();
  std::vector<std::complex<double>> second_run;
  for (std::size_t first = 0, c = 0; first < x.size(); ++c) {
    const std::size_t n = std::min<std::size_t>(c % 2 == 0 ? 4 : 1020, x.size() - first);
    std::vector<std::complex<double>> z(nt * n);
    with_snr.filter(std::span(x).subspan(first, n), z);
    second_run.insert(second_run.end(), z.begin(), z.end());
    first += n;
  }
  EXPECT_EQ(first_run, second_run);
  std::vector<SampleMax> best(6);
  EXPECT_THROW(with_max.filter_max(std::vector<double>(6, 0.0), best), UsageError);  // not a multiple of 4
}

}  // namespace
}  // namespace astrosweep::spiir
