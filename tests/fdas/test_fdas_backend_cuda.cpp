// The CUDA fdas backend against the CPU backend (spec §12): on an accelerated 8-harmonic pulsar in
// noise, on noise with hundreds of candidates (merged, and capped), and at the edges (one harmonic,
// a band of a few bins, a spectrum shorter than one segment, a spectrum of zeros, several series
// on one backend within a tight memory budget) the same candidates — number, (r, z), harmonics,
// stage, and order — with powers within 1e-4·max(1, P), and the same cells above every stage's
// threshold. On the GPU's own plane the backend is the CPU's composition bit for bit
// (search_plane). Skipped without a GPU.
#include <fftw3.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdio>
#include <numbers>
#include <random>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "correlation_cuda.hpp"
#include "device.hpp"
#include "fdas_backend.hpp"
#include "fdas_backend_cuda.hpp"
#include "series_search.hpp"
#include "spectrum.hpp"

namespace astrosweep::fdas {
namespace {

using Spectrum = std::vector<std::complex<float>>;

// Normalised spectrum of a real series of known variance: F_k / √(N σ²), DC = 1 (as test_series_search).
Spectrum normalised_spectrum(const std::vector<double>& x, double variance) {
  const int n = static_cast<int>(x.size());
  std::vector<double> in(x);
  std::vector<std::complex<double>> out(x.size() / 2 + 1);
  fftw_plan plan = fftw_plan_dft_r2c_1d(n, in.data(), reinterpret_cast<fftw_complex*>(out.data()), FFTW_ESTIMATE);
  fftw_execute(plan);
  fftw_destroy_plan(plan);
  Spectrum f(x.size() / 2);
  const double scale = 1 / std::sqrt(n * variance);
  for (std::size_t k = 0; k < f.size(); ++k) f[k] = std::complex<float>(out[k] * scale);
  f[0] = 1;
  return f;
}

// White noise and `harmonics` phase-locked harmonics of a tone at mean bin r0 drifting by z0 bins,
// each of normalised power ≈ `power`.
Spectrum accelerated_pulsar(std::size_t n, double r0, double z0, int harmonics, double power, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> g;
  std::vector<double> x(n);
  const double a = std::sqrt(4 * power / static_cast<double>(n));
  for (std::size_t i = 0; i < n; ++i) {
    const double u = static_cast<double>(i) / static_cast<double>(n);
    const double phase = 2 * std::numbers::pi * ((r0 - z0 / 2) * u + z0 / 2 * u * u);
    x[i] = g(rng);
    for (int h = 1; h <= harmonics; ++h) x[i] += a * std::cos(h * phase + 0.3 * h);
  }
  return normalised_spectrum(x, 1.0);
}

// Complex white noise of mean power `mean_power` per bin.
Spectrum noise(std::size_t bins, unsigned seed, float mean_power = 1.0F) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> g(0.0F, std::sqrt(mean_power / 2));
  Spectrum s(bins);
  for (auto& v : s) v = {g(rng), g(rng)};
  return s;
}

SearchSettings settings(int numharm, double sigma, double r_lo, double r_hi, bool block_normalise) {
  SearchSettings s;
  s.numharm = numharm;
  s.sigma_min = sigma;
  s.r_lo = r_lo;
  s.r_hi = r_hi;
  s.block_normalise = block_normalise;
  return s;
}

std::string show(const Candidate& c) {
  return "(r " + std::to_string(c.r) + ", z " + std::to_string(c.z) + ", H " + std::to_string(c.numharm) + ", P " +
         std::to_string(c.power) + ", sigma " + std::to_string(c.sigma) + ")";
}

// The spec's FP32 comparison: the same list, powers (and so sigmas) within 1e-4·max(1, P).
void expect_same(const SeriesCandidates& gpu, const SeriesCandidates& cpu, const std::string& what) {
  SCOPED_TRACE(what);
  ASSERT_EQ(gpu.stages.size(), cpu.stages.size());
  for (std::size_t s = 0; s < cpu.stages.size(); ++s) {
    EXPECT_EQ(gpu.stages[s].numharm, cpu.stages[s].numharm);
    EXPECT_EQ(gpu.stages[s].n_indep, cpu.stages[s].n_indep);
    EXPECT_EQ(gpu.stages[s].powcut, cpu.stages[s].powcut);
    EXPECT_EQ(gpu.stages[s].above, cpu.stages[s].above) << "cells above the threshold of stage " << s;
  }
  EXPECT_EQ(gpu.overflowed, cpu.overflowed);
  ASSERT_EQ(gpu.candidates.size(), cpu.candidates.size());
  for (std::size_t i = 0; i < cpu.candidates.size(); ++i) {
    const Candidate& g = gpu.candidates[i];
    const Candidate& c = cpu.candidates[i];
    ASSERT_TRUE(g.r == c.r && g.z == c.z && g.numharm == c.numharm && g.stage == c.stage)
        << "candidate " << i << ": GPU " << show(g) << ", CPU " << show(c);
    EXPECT_NEAR(g.power, c.power, 1e-4 * static_cast<double>(std::max(1.0F, c.power))) << "candidate " << i;
  }
}

// Bit for bit, for the same plane.
void expect_identical(const SeriesCandidates& a, const SeriesCandidates& b) {
  ASSERT_EQ(a.candidates.size(), b.candidates.size());
  for (std::size_t i = 0; i < a.candidates.size(); ++i) {
    const Candidate& x = a.candidates[i];
    const Candidate& y = b.candidates[i];
    EXPECT_TRUE(x.r == y.r && x.z == y.z && x.power == y.power && x.sigma == y.sigma && x.numharm == y.numharm &&
                x.stage == y.stage)
        << "candidate " << i << ": " << show(x) << " / " << show(y);
  }
  ASSERT_EQ(a.stages.size(), b.stages.size());
  for (std::size_t s = 0; s < a.stages.size(); ++s) EXPECT_EQ(a.stages[s].above, b.stages[s].above);
  EXPECT_EQ(a.overflowed, b.overflowed);
}

class CudaFdasBackend : public ::testing::Test {
 protected:
  void SetUp() override {
    if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  }

  // The CPU's result and the GPU's, compared; returns the GPU's.
  static SeriesCandidates compare(const TemplateBank& bank, const Spectrum& spectrum, const SearchSettings& s,
                                  const std::string& what, FdasBackend* gpu = nullptr) {
    BackendOptions options;
    options.threads = 4;
    const SeriesCandidates cpu = make_fdas_backend_cpu(bank, options)->search(spectrum, s);
    std::unique_ptr<FdasBackend> own;
    if (gpu == nullptr) {
      own = make_fdas_backend_cuda(bank, BackendOptions{});
      gpu = own.get();
    }
    const SeriesCandidates got = gpu->search(spectrum, s);
    expect_same(got, cpu, what);
    return got;
  }

  // The CPU's composition (search_plane) on the plane the GPU correlator makes, brought to the host.
  static SeriesCandidates on_the_gpus_plane(const TemplateBank& bank, const Spectrum& spectrum,
                                            const SearchSettings& s) {
    const SearchGeometry geometry = search_geometry(spectrum.size(), bank, s);
    kernels::CudaCorrelator correlator(bank.layout, bank.taps, std::size_t{1} << 40);  // all templates in one batch
    const PowerPlane plane = correlator.correlate(spectrum, geometry.grid, s.block_normalise);
    const PowerPlaneView view{plane.power.data(), geometry.z_max, static_cast<std::int64_t>(2 * plane.first_bin),
                              static_cast<std::int64_t>(plane.n_r)};
    return search_plane(view, geometry, s.max_candidates);
  }
};

TEST_F(CudaFdasBackend, AcceleratedPulsarAsOnTheCpu) {
  const double r0 = 2345.6, z0 = 5.3;  // the 8th harmonic drifts 42 bins
  const Spectrum spectrum = accelerated_pulsar(1 << 17, r0, z0, 8, 40.0, 7);
  const TemplateBank bank = make_template_bank(48, 2, Accuracy::low);
  const SearchSettings s = settings(8, 3.0, 100, static_cast<double>(spectrum.size()), false);
  const SeriesCandidates gpu = compare(bank, spectrum, s, "pulsar");
  ASSERT_FALSE(gpu.candidates.empty());
  const auto best = *std::max_element(gpu.candidates.begin(), gpu.candidates.end(),
                                      [](const Candidate& p, const Candidate& q) { return p.sigma < q.sigma; });
  EXPECT_NEAR(best.r, r0, 1.0);
  EXPECT_NEAR(best.z, z0, 2.0);
  EXPECT_EQ(best.numharm, 8);
  expect_identical(gpu, on_the_gpus_plane(bank, spectrum, s));
}

// numbetween 1: the half bins interbinned on the device (both correlation methods' rule,
// interbin.hpp) as on the CPU; the pulsar at its (r, z); the GPU's plane through the CPU's
// composition bit for bit; a spectrum of zeros, one harmonic and a band of a few bins; and the
// spectrum searched from the samples on the device as through the host copy.
TEST_F(CudaFdasBackend, InterbinnedAsOnTheCpu) {
  const double r0 = 2345.6, z0 = 5.3;
  const Spectrum spectrum = accelerated_pulsar(1 << 17, r0, z0, 8, 40.0, 7);
  const TemplateBank bank = make_template_bank(48, 1, Accuracy::low);
  const SearchSettings s = settings(8, 3.0, 100, static_cast<double>(spectrum.size()), false);
  const SeriesCandidates gpu = compare(bank, spectrum, s, "pulsar, numbetween 1");
  ASSERT_FALSE(gpu.candidates.empty());
  const auto best = *std::max_element(gpu.candidates.begin(), gpu.candidates.end(),
                                      [](const Candidate& p, const Candidate& q) { return p.sigma < q.sigma; });
  EXPECT_NEAR(best.r, r0, 1.0);
  EXPECT_NEAR(best.z, z0, 2.0);
  EXPECT_EQ(best.numharm, 8);
  expect_identical(gpu, on_the_gpus_plane(bank, spectrum, s));
  compare(bank, spectrum, settings(1, 2.0, 10, static_cast<double>(spectrum.size()), true), "numharm 1, numbetween 1");
  compare(bank, spectrum, settings(4, 0.5, 2344.2, 2347.9, false), "a band of four bins, numbetween 1");
  const Spectrum zeros(5000);
  const SeriesCandidates none = compare(bank, zeros, settings(8, 2.0, 10, 5000, true), "zeros, numbetween 1");
  EXPECT_TRUE(none.candidates.empty());
  // z_max 0: one template.
  const TemplateBank steady = make_template_bank(0, 1, Accuracy::low);
  compare(steady, accelerated_pulsar(1 << 16, 1234.5, 0, 8, 30.0, 9), settings(8, 3.0, 10, 32768, true),
          "z_max 0, numbetween 1");
  // The samples' spectrum made, dereddened and searched on the device.
  const auto backend = make_fdas_backend_cuda(bank, BackendOptions{});
  std::mt19937_64 rng(5);
  std::normal_distribution<float> g;
  const std::size_t n = std::size_t{1} << 17;
  std::vector<float> x(n);
  for (std::size_t i = 0; i < n; ++i)
    x[i] =
        g(rng) + 2.0F * static_cast<float>(std::cos(0.31 * static_cast<double>(i) + 2e-9 * static_cast<double>(i * i)));
  SpectrumRequest request;
  request.n_fft = good_fft_length(n);
  request.deredden = true;
  request.threads = 2;
  const SearchSettings d = settings(4, 3.0, 50, static_cast<double>(request.n_fft / 2), true);
  Spectrum expected = backend->spectrum(x, request.n_fft);
  normalise_spectrum(expected, request);
  const SeriesCandidates via_host = backend->search(expected, d);
  const SpectrumSearch on_device = backend->search_samples(x, request, d);
  ASSERT_FALSE(via_host.candidates.empty());
  expect_identical(on_device.found, via_host);
}

TEST_F(CudaFdasBackend, AFullSizeSeriesAsOnTheCpu) {
  // N = 2^20, z_max 200 (201 templates of 2048 points), PRESTO's defaults: 680 segments, 2·10^8
  // cells per stage. Prints both backends' times (the GPU's second search: the first plans cuFFT).
  const double r0 = 31234.4, z0 = 17.7;
  const Spectrum spectrum = accelerated_pulsar(1 << 20, r0, z0, 8, 30.0, 17);
  const TemplateBank bank = make_template_bank(200, 2, Accuracy::low);
  const SearchSettings s = settings(8, 2.0, 20, static_cast<double>(spectrum.size()), true);
  const auto cpu_backend = make_fdas_backend_cpu(bank, BackendOptions{});
  const auto gpu_backend = make_fdas_backend_cuda(bank, BackendOptions{});
  using Clock = std::chrono::steady_clock;
  const auto t0 = Clock::now();
  const SeriesCandidates cpu = cpu_backend->search(spectrum, s);
  const auto t1 = Clock::now();
  (void)gpu_backend->search(spectrum, s);
  const auto t2 = Clock::now();
  const SeriesCandidates gpu = gpu_backend->search(spectrum, s);
  const auto t3 = Clock::now();
  expect_same(gpu, cpu, "full size");
  ASSERT_FALSE(gpu.candidates.empty());
  const auto best = *std::max_element(gpu.candidates.begin(), gpu.candidates.end(),
                                      [](const Candidate& p, const Candidate& q) { return p.sigma < q.sigma; });
  EXPECT_NEAR(best.r, r0, 1.0);
  EXPECT_NEAR(best.z, z0, 2.0);
  auto seconds = [](Clock::duration d) { return std::chrono::duration<double>(d).count(); };
  std::printf("full size: %zu candidates; CPU %.3f s (%s), GPU first %.3f s, second %.3f s (%s)\n  %s\n",
              gpu.candidates.size(), seconds(t1 - t0), cpu_backend->describe().c_str(), seconds(t2 - t1),
              seconds(t3 - t2), gpu_backend->describe().c_str(), gpu_backend->usage().c_str());
}

TEST_F(CudaFdasBackend, NoiseWithHundredsOfCandidatesAsOnTheCpu) {
  const TemplateBank bank = make_template_bank(30, 2, Accuracy::low);
  // Noise of mean power 1.6 read as normalised, at sigma 1: hundreds of cells above every threshold.
  const Spectrum loud = noise(1 << 16, 21, 1.6F);
  SearchSettings s = settings(16, 1.0, 50.5, 65000.3, false);
  const SeriesCandidates gpu = compare(bank, loud, s, "noise, mean power 1.6");
  EXPECT_GT(gpu.candidates.size(), 100U);
  for (const auto& stage : gpu.stages) EXPECT_GT(stage.above, 100U);
  expect_identical(gpu, on_the_gpus_plane(bank, loud, s));
  // The same list capped at 40: the weakest dropped as they come.
  s.max_candidates = 40;
  const SeriesCandidates capped = compare(bank, loud, s, "noise, capped");
  EXPECT_TRUE(capped.overflowed);
  expect_identical(capped, on_the_gpus_plane(bank, loud, s));
}

TEST_F(CudaFdasBackend, EdgesAsOnTheCpu) {
  const TemplateBank bank = make_template_bank(20, 2, Accuracy::low);
  const Spectrum pulsar = accelerated_pulsar(1 << 15, 1500.3, 3.1, 4, 40.0, 3);
  compare(bank, pulsar, settings(1, 2.0, 10, static_cast<double>(pulsar.size()), false), "numharm 1");
  compare(bank, pulsar, settings(4, 0.5, 1499.2, 1502.9, false), "a band of four bins");
  compare(bank, pulsar, settings(32, 2.0, 10, static_cast<double>(pulsar.size()), true), "numharm 32");
  const Spectrum short_one = noise(600, 5, 1.6F);
  ASSERT_LT(short_one.size(), bank.layout.step_bins()) << "not shorter than one segment";
  compare(bank, short_one, settings(2, 0.5, 3, 600, false), "shorter than one segment");
  const Spectrum zeros(5000);
  for (const bool normalise : {true, false}) {
    const SeriesCandidates none = compare(bank, zeros, settings(8, 2.0, 10, 5000, normalise), "zeros");
    EXPECT_TRUE(none.candidates.empty());
    for (const auto& stage : none.stages) EXPECT_EQ(stage.above, 0U);
  }
}

TEST_F(CudaFdasBackend, SeveralSeriesOnOneBackendWithinATightBudget) {
  // 100 MiB: the plane and the cells kept take ~70 (cuFFT's inverse FFTs would go in batches
  // of fewer than the 31 templates, and a short series after a long one reuses the correlator.
  const TemplateBank bank = make_template_bank(30, 2, Accuracy::low);
  BackendOptions options;
  options.device_memory_budget = 100 << 20;
  const auto gpu = make_fdas_backend_cuda(bank, options);
  EXPECT_EQ(gpu->describe().rfind("cuda (", 0), 0U) << gpu->describe();
  const Spectrum loud = noise(1 << 16, 31, 1.6F);
  const Spectrum short_one = noise(3000, 32, 1.6F);
  const SearchSettings s = settings(16, 1.0, 50, 65536, true);
  compare(bank, loud, s, "first series", gpu.get());
  compare(bank, short_one, settings(16, 1.0, 50, 3000, true), "a shorter one", gpu.get());
  compare(bank, loud, s, "the first again", gpu.get());
  EXPECT_NE(gpu->usage().find("MiB device memory"), std::string::npos) << gpu->usage();
  std::printf("%s\n%s\n", gpu->describe().c_str(), gpu->usage().c_str());
}

// The raw spectrum through the seam: cuFFT in double against FFTW in double, both rounded to float,
// so every bin within a float ulp of FFTW's; bin 0 is 1. Lengths: the smallest
// (2, one sample padded), odd smooth lengths with every factor, around a warp and a block, and a
// long power of two; series shorter than n_fft are padded with their mean.
TEST_F(CudaFdasBackend, RawSpectrumAsFftw) {
  const TemplateBank bank = make_template_bank(10, 2, Accuracy::low);
  const auto gpu = make_fdas_backend_cuda(bank, BackendOptions{});
  std::mt19937_64 rng(7);
  std::normal_distribution<float> g(3.0F, 2.0F);
  for (const auto& [n, n_fft] : std::vector<std::pair<std::size_t, std::size_t>>{{1, 2},
                                                                                 {2, 2},
                                                                                 {31, 32},
                                                                                 {33, 35},
                                                                                 {255, 256},
                                                                                 {257, 270},
                                                                                 {1000, 1050},
                                                                                 {3 * 5 * 7 * 64, 3 * 5 * 7 * 64},
                                                                                 {1 << 20, 1 << 20},
                                                                                 {(1 << 20) - 5, 1 << 20}}) {
    std::vector<float> x(n);
    for (auto& v : x) v = g(rng);
    const Spectrum want = raw_spectrum(x, n_fft);
    const Spectrum got = gpu->spectrum(x, n_fft);
    ASSERT_EQ(got.size(), want.size()) << n_fft;
    ASSERT_EQ(got[0], std::complex<float>(1.0F)) << n_fft;
    // Each component of each bin at most one float ulp from FFTW's (2^-23 of the bin's size, √2
    // for the pair), plus the double transforms' own difference (far below).
    double worst = 0;
    for (std::size_t k = 1; k < want.size(); ++k) {
      const double excess =
          static_cast<double>(std::abs(got[k] - want[k])) - 2.5e-7 * static_cast<double>(std::abs(want[k]));
      worst = std::max(worst, excess);
    }
    const double tolerance = 1e-9 * std::sqrt(static_cast<double>(n_fft));
    EXPECT_LE(worst, tolerance) << "n = " << n << ", n_fft = " << n_fft;
  }
  EXPECT_THROW(gpu->spectrum(std::vector<float>(10), 8), UsageError);
}

TEST_F(CudaFdasBackend, SamplesSearchedOnTheDeviceAsThroughTheHostCopy) {
  // search_samples keeps the spectrum on the device from the samples to the plane; through the host
  // (spectrum(), normalise_spectrum, search()) the same raw spectrum gives the same normalised
  // spectrum and candidates, bit for bit, for each normalisation, with birdies, series after series
  // on one backend, and a series of a smooth non-power-of-two length. The tone drifts by about 11
  // bins over 2^17 samples, within the bank's zmax of 30: a drift of hundreds of bins would spread
  // it over more than half of a dereddening block and normalise it away on either route.
  const TemplateBank bank = make_template_bank(30, 2, Accuracy::low);
  const auto backend = make_fdas_backend_cuda(bank, BackendOptions{});
  std::mt19937_64 rng(4);
  std::normal_distribution<float> g;
  for (const std::size_t n : {std::size_t{1} << 17, std::size_t{100'000}, std::size_t{1} << 17}) {
    std::vector<float> x(n);
    for (std::size_t i = 0; i < n; ++i)
      x[i] = g(rng) + (i > 0 ? 0.5F * x[i - 1] : 0.0F) +
             2.0F * static_cast<float>(std::cos(0.31 * static_cast<double>(i) + 2e-9 * static_cast<double>(i * i)));
    // Without a normalisation the samples are scaled so that the noise powers are about 1.
    std::vector<float> scaled(x);
    for (auto& v : scaled) v /= std::sqrt(1.5F * static_cast<float>(n));
    for (const int kind : {0, 1, 2}) {
      const std::vector<float>& samples = kind == 2 ? scaled : x;
      SpectrumRequest request;
      request.n_fft = good_fft_length(n);
      request.deredden = kind == 0;
      request.known_variance_factor = kind == 1 ? known_variance_factor(n, 2.0) : 0.0F;
      request.birdies = birdie_bins(std::vector<Birdie>{{100.0, 2.0}, {3000.0, 0.5}}, 64e-6 * n, request.n_fft / 2);
      request.threads = 2;
      const SearchSettings s = settings(4, 3.0, 50, static_cast<double>(request.n_fft / 2), kind == 0);
      Spectrum expected = backend->spectrum(samples, request.n_fft);
      normalise_spectrum(expected, request);
      const SeriesCandidates via_host = backend->search(expected, s);
      const SpectrumSearch on_device = backend->search_samples(samples, request, s);
      ASSERT_EQ(on_device.spectrum.size(), expected.size());
      std::size_t differing = 0;
      for (std::size_t k = 0; k < expected.size(); ++k)
        differing +=
            std::bit_cast<std::uint64_t>(on_device.spectrum[k]) != std::bit_cast<std::uint64_t>(expected[k]) ? 1 : 0;
      EXPECT_EQ(differing, 0U) << n << " samples, normalisation " << kind;
      ASSERT_FALSE(via_host.candidates.empty()) << n << " samples, normalisation " << kind;
      ASSERT_FALSE(on_device.found.candidates.empty()) << n << " samples, normalisation " << kind;
      expect_identical(on_device.found, via_host);
    }
  }
}

TEST_F(CudaFdasBackend, BudgetTooSmallIsARuntimeError) {
  const TemplateBank bank = make_template_bank(30, 2, Accuracy::low);
  BackendOptions options;
  options.device_memory_budget = 1 << 20;
  const auto gpu = make_fdas_backend_cuda(bank, options);
  try {
    gpu->search(noise(1 << 16, 1), settings(8, 2.0, 10, 65536, true));
    FAIL() << "expected a RuntimeError";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::runtime);
    EXPECT_NE(std::string(e.what()).find("GPU memory budget"), std::string::npos) << e.what();
  }
}

TEST_F(CudaFdasBackend, TheFactoryGivesItForCudaAndAuto) {
  const TemplateBank bank = make_template_bank(10, 2, Accuracy::low);
  for (const BackendKind kind : {BackendKind::cuda, BackendKind::automatic}) {
    BackendOptions options;
    options.kind = kind;
    EXPECT_EQ(make_fdas_backend(bank, options)->describe().rfind("cuda (", 0), 0U);
  }
}

}  // namespace
}  // namespace astrosweep::fdas
