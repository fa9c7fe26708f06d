// The fdas backend seam on the CPU: search_spectrum, now built from the pieces the CUDA backend
// shares (search_geometry, insert_stage_cells), gives exactly what PRESTO's composition written out
// with detect_stage_candidates gives, on noise with many merged and capped candidates; the factory
// gives the CPU backend for --backend cpu, and refuses cuda where it cannot run with the usual
// message.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <random>
#include <string>
#include <vector>

#include "accel_statistics.hpp"
#include "candidates.hpp"
#include "core/error.hpp"
#include "device.hpp"
#include "fdas_backend.hpp"
#include "series_search.hpp"
#include "spectrum.hpp"

namespace astrosweep::fdas {
namespace {

// White noise of mean power `mean_power` in every bin.
std::vector<std::complex<float>> noise_spectrum(std::size_t bins, unsigned seed, float mean_power = 1.0F) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> g(0.0F, std::sqrt(mean_power / 2));
  std::vector<std::complex<float>> spectrum(bins);
  for (auto& v : spectrum) v = {g(rng), g(rng)};
  return spectrum;
}

// search_spectrum as it was written before the backends shared its pieces: the geometry inline,
// every stage through detect_stage_candidates (PRESTO's search_ffdotpows).
SeriesCandidates presto_composition(std::span<const std::complex<float>> spectrum, const TemplateBank& bank,
                                    const SearchSettings& settings) {
  const int H = settings.numharm;
  const double r_hi = std::min(settings.r_hi, static_cast<double>(spectrum.size()));
  const auto i_begin = static_cast<std::int64_t>(std::ceil(2 * settings.r_lo));
  const auto i_end = static_cast<std::int64_t>(std::floor(2 * r_hi));
  // The segments on PRESTO's grid: blocks from ⌊r_lo⌋, below it from bin 8.
  const auto needed_lo = static_cast<std::size_t>(std::max<std::int64_t>(0, i_begin / H / 2 - 1));
  const auto plane_hi = static_cast<std::size_t>((i_end + 1) / 2 + 1);
  const SegmentGrid grid =
      presto_segment_grid(static_cast<std::size_t>(std::floor(settings.r_lo)), needed_lo, plane_hi, bank.layout);
  const PowerPlane plane = correlate(spectrum, transform_kernels<float>(bank.taps, bank.layout.fft_length), bank.layout,
                                     grid, CorrelationOptions{settings.block_normalise, 1});
  const int z_max = static_cast<int>(bank.grid.z_max);
  const PowerPlaneView view{plane.power.data(), z_max, static_cast<std::int64_t>(2 * plane.first_bin),
                            static_cast<std::int64_t>(plane.n_r)};
  SeriesCandidates result;
  CandidateList list(settings.max_candidates);
  harmonic_sum_reference(view, i_begin, i_end, H, [&](const HarmonicStage& stage, std::span<const float> summed) {
    StageTrials trials;
    trials.numharm = stage.numharm;
    trials.n_indep = n_independent(static_cast<double>(i_begin) / 2, static_cast<double>(i_end) / 2,
                                   static_cast<int>(bank.grid.n_z), bank.grid.dz, stage.numharm);
    trials.powcut =
        static_cast<float>(power_threshold(settings.sigma_min, stage.numharm, static_cast<double>(trials.n_indep)));
    trials.above = detect_stage_candidates(stage, StagePlane{summed, z_max, i_begin, i_end - i_begin}, trials.powcut,
                                           static_cast<double>(trials.n_indep), list);
    result.stages.push_back(trials);
  });
  result.candidates = list.candidates();
  result.overflowed = list.overflowed();
  return result;
}

void expect_identical(const SeriesCandidates& got, const SeriesCandidates& want) {
  ASSERT_EQ(got.candidates.size(), want.candidates.size());
  for (std::size_t i = 0; i < want.candidates.size(); ++i) {
    const Candidate& a = got.candidates[i];
    const Candidate& b = want.candidates[i];
    EXPECT_TRUE(a.r == b.r && a.z == b.z && a.power == b.power && a.sigma == b.sigma && a.numharm == b.numharm &&
                a.stage == b.stage)
        << "candidate " << i << ": r " << a.r << " / " << b.r << ", z " << a.z << " / " << b.z;
  }
  EXPECT_EQ(got.overflowed, want.overflowed);
  ASSERT_EQ(got.stages.size(), want.stages.size());
  for (std::size_t s = 0; s < want.stages.size(); ++s) {
    EXPECT_EQ(got.stages[s].numharm, want.stages[s].numharm);
    EXPECT_EQ(got.stages[s].n_indep, want.stages[s].n_indep);
    EXPECT_EQ(got.stages[s].powcut, want.stages[s].powcut);
    EXPECT_EQ(got.stages[s].above, want.stages[s].above) << "stage " << s;
  }
}

TEST(SharedSearchPieces, SearchSpectrumIsPrestosComposition) {
  const TemplateBank bank = make_template_bank(20, 2, Accuracy::low);
  SearchSettings s;
  s.numharm = 8;
  s.sigma_min = 1.0;
  s.threads = 1;
  // Noise of mean power 1.6 read as if normalised: hundreds of cells above every threshold, so
  // merging decides the list; and, block-normalised, a spectrum whose last segment is mostly past
  // its end (the zeros there make that segment's median small, and its powers large).
  struct Case {
    std::size_t bins;
    float mean_power;
    bool block_normalise;
  };
  for (const Case c : {Case{100000, 1.6F, false}, Case{20000, 1.0F, true}}) {
    const auto spectrum = noise_spectrum(c.bins, 3, c.mean_power);
    s.block_normalise = c.block_normalise;
    s.r_lo = 37.3;
    s.r_hi = static_cast<double>(c.bins) - 9.4;
    for (const std::size_t cap : {default_max_candidates, std::size_t{50}}) {
      s.max_candidates = cap;
      const SeriesCandidates want = presto_composition(spectrum, bank, s);
      const SeriesCandidates got = search_spectrum(spectrum, bank, transform_kernels<float>(bank.taps, 2048), s);
      EXPECT_GT(want.candidates.size(), cap == 50 ? 49U : 50U);
      for (const auto& stage : want.stages) EXPECT_GT(stage.above, 150U);
      EXPECT_EQ(want.overflowed, cap == 50);
      expect_identical(got, want);
    }
  }
}

TEST(SharedSearchPieces, SearchSamplesIsTheSpectrumNormalisedThenSearched) {
  // The default search_samples (the CPU backend's): raw_spectrum, then normalise_spectrum (the
  // dereddening, or the known variance's factor as normalise_known_variance, then the birdies as
  // zap_birdies), then search(); the spectrum it returns is that one.
  const TemplateBank bank = make_template_bank(20, 2, Accuracy::low);
  const auto backend = make_fdas_backend_cpu(bank, BackendOptions{BackendKind::cpu, 2});
  std::mt19937_64 rng(6);
  std::normal_distribution<float> g;
  const std::size_t n = 30'000;
  std::vector<float> x(n);
  for (std::size_t i = 0; i < n; ++i) x[i] = g(rng) + 0.4F * (i > 0 ? x[i - 1] : 0.0F);
  const double span = static_cast<double>(n) * 1e-3;
  const std::vector<Birdie> birdies = {{60.0, 0.5}, {400.0, 2.0}};
  SearchSettings s;
  s.numharm = 4;
  s.sigma_min = 2.0;
  s.r_lo = 20;
  s.r_hi = static_cast<double>(n / 2);
  s.threads = 2;
  for (const int kind : {0, 1}) {
    SpectrumRequest request;
    request.n_fft = n;
    request.deredden = kind == 0;
    request.known_variance_factor = kind == 1 ? known_variance_factor(n, 1.2) : 0.0F;
    request.birdies = birdie_bins(birdies, span, n / 2);
    request.threads = 2;
    s.block_normalise = kind == 0;
    std::vector<std::complex<float>> expected = raw_spectrum(x, n);
    if (kind == 0)
      deredden(expected, 2);
    else
      normalise_known_variance(expected, n, 1.2);
    zap_birdies(expected, birdies, span);
    const SeriesCandidates want = backend->search(expected, s);
    const SpectrumSearch got = backend->search_samples(x, request, s);
    ASSERT_EQ(got.spectrum.size(), expected.size());
    EXPECT_TRUE(std::equal(got.spectrum.begin(), got.spectrum.end(), expected.begin())) << "normalisation " << kind;
    EXPECT_FALSE(want.candidates.empty());
    expect_identical(got.found, want);
  }
}

TEST(SharedSearchPieces, GeometryRefusesWhatCannotBeSearched) {
  const TemplateBank bank = make_template_bank(10, 2, Accuracy::low);
  SearchSettings s;
  s.numharm = 4;
  s.r_lo = 10;
  s.r_hi = 1000;
  const SearchGeometry g = search_geometry(500, bank, s);
  EXPECT_EQ(g.i_begin, 20);
  EXPECT_EQ(g.i_end, 1000);  // the band ends at the spectrum's end
  EXPECT_EQ(g.grid.plane_lo, 1U);
  EXPECT_EQ(g.grid.plane_hi, 501U);
  // PRESTO's grid: blocks from bin 10 (⌊r_lo⌋), below it from bin 8; bins 1 … 7 computed by none.
  ASSERT_EQ(g.grid.runs.size(), 2U);
  EXPECT_EQ(g.grid.runs[0].first_bin, 8U);
  EXPECT_EQ(g.grid.runs[0].columns, 4U);
  EXPECT_EQ(g.grid.runs[1].first_bin, 10U);
  EXPECT_EQ(g.grid.runs[1].columns, 2U * (501 - 10));
  ASSERT_EQ(g.stages.size(), 3U);
  EXPECT_EQ(g.stages[2].numharm, 4);
  s.r_lo = 600;
  EXPECT_THROW(search_geometry(500, bank, s), UsageError);
  s.r_lo = 10;
  s.numharm = 3;
  EXPECT_THROW(search_geometry(500, bank, s), UsageError);
}

TEST(FdasBackendFactory, CpuWhenAsked) {
  const TemplateBank bank = make_template_bank(10, 2, Accuracy::low);
  BackendOptions options;
  options.kind = BackendKind::cpu;
  options.threads = 2;
  const auto backend = make_fdas_backend(bank, options);
  ASSERT_NE(backend, nullptr);
  EXPECT_EQ(backend->describe().rfind("cpu (", 0), 0U) << backend->describe();
}

TEST(FdasBackendFactory, AutoTakesTheGpuOnlyWhenThereIsOne) {
  const TemplateBank bank = make_template_bank(10, 2, Accuracy::low);
  const auto backend = make_fdas_backend(bank, BackendOptions{});
  const bool gpu = backend->describe().rfind("cuda", 0) == 0;
  EXPECT_EQ(gpu, cuda_device_count() > 0) << backend->describe();
}

TEST(FdasBackendFactory, CudaWhereItCannotRunIsRefused) {
  const TemplateBank bank = make_template_bank(10, 2, Accuracy::low);
  BackendOptions options;
  options.kind = BackendKind::cuda;
#ifdef ASTROSWEEP_WITH_CUDA
  if (cuda_device_count() > 0) {
    EXPECT_EQ(make_fdas_backend(bank, options)->describe().rfind("cuda (", 0), 0U);
    return;
  }
  const char* expected = "no CUDA device is visible";
#else
  const char* expected = "this astrosweep build has no CUDA backend";
#endif
  try {
    (void)make_fdas_backend(bank, options);
    FAIL() << "expected a RuntimeError";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::runtime);
    EXPECT_NE(std::string(e.what()).find(expected), std::string::npos) << e.what();
    EXPECT_NE(e.hint().find("--backend cpu"), std::string::npos) << e.hint();
  }
}

}  // namespace
}  // namespace astrosweep::fdas
