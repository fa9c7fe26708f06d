// The CUDA backend's filter_max and snr_rows (kernels/spiir/spiir_sample_max.cu) against its own
// filter() and the plain loop (sample_max.hpp) over those SNRs: bit for bit, the |z|², the
// template and z (the kernel's rule is the loop's, shared; the SNRs are the same kernel's). Edge
// cases: one template; 15/16/17 (the kernel's template lanes) and 31/32/33 templates; chunks of 1,
// 31, 32, 33 samples (a partial block of samples) and of 4,097 (129 blocks); exact ties (templates
// that repeat one another's filters: the lowest must win on every sample); snr_rows with repeats.
// Against the OpenMP backend (FP64, differing by rounding only): the same template wherever the
// best |z|² leads the runner-up by more than 1e-9 of the largest |z|², the |z|² within 1e-11 of it.
// Skipped without a GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <random>
#include <vector>

#include "device.hpp"
#include "filter_test_support.hpp"
#include "sample_max.hpp"
#include "spiir_backend.hpp"
#include "spiir_backend_cuda.hpp"

namespace astrosweep::spiir {
namespace {

using Series = std::vector<std::complex<double>>;

std::unique_ptr<SpiirBackend> cuda_backend(const RateBank& bank, Precision precision) {
  BackendOptions options;
  options.kind = BackendKind::cuda;
  return make_spiir_backend_cuda(bank, precision, options);
}

// `n_templates` templates of random filters; with `distinct` < n_templates, template t repeats
// template t mod distinct's filters, so their SNRs are equal to the bit.
RateBank bank_of(std::size_t n_templates, std::size_t distinct, std::size_t filters, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::vector<IirFilter>> own;
  for (std::size_t t = 0; t < distinct; ++t) own.push_back(random_filters(rng, filters, 40));
  std::vector<std::vector<IirFilter>> per_template;
  for (std::size_t t = 0; t < n_templates; ++t) per_template.push_back(own[t % distinct]);
  return RateBank::pack(2048, per_template);
}

class SpiirSampleMaxCuda : public ::testing::Test {
 protected:
  void SetUp() override {
    if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  }

  // Chunks of `sizes` (cycled) through filter_max on one backend and filter() on its twin: the
  // same best as the plain loop over the twin's SNRs, and snr_rows gives the twin's rows.
  static void check(const RateBank& bank, Precision precision, const std::vector<std::size_t>& sizes) {
    auto with_max = cuda_backend(bank, precision);
    auto with_snr = cuda_backend(bank, precision);
    const std::size_t nt = bank.n_templates;
    const auto x = white_noise(5000, 17);
    std::size_t first = 0;
    for (std::size_t c = 0; c < sizes.size() && first < x.size(); ++c) {
      const std::size_t n = std::min(sizes[c], x.size() - first);
      const auto chunk = std::span(x).subspan(first, n);
      std::vector<SampleMax> best(n), want(n);
      with_max->filter_max(chunk, best);
      Series z(nt * n);
      with_snr->filter(chunk, z);
      sample_max(z, nt, n, want);
      const std::string what = std::to_string(nt) + " templates, " + std::to_string(n) + " samples, " +
                               (precision == Precision::fp32 ? "fp32" : "fp64");
      for (std::size_t i = 0; i < n; ++i) {
        ASSERT_EQ(best[i].template_index, want[i].template_index) << what << ", sample " << i;
        ASSERT_EQ(best[i].power, want[i].power) << what << ", sample " << i;
        ASSERT_EQ(best[i].z, want[i].z) << what << ", sample " << i;
      }
      const std::vector<std::size_t> rows{nt - 1, static_cast<std::size_t>(best[n - 1].template_index), 0, nt - 1};
      Series got(rows.size() * n);
      with_max->snr_rows(rows, got);
      for (std::size_t r = 0; r < rows.size(); ++r)
        for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(got[r * n + i], z[rows[r] * n + i]) << what << ", row " << r;
      first += n;
    }
  }
};

TEST_F(SpiirSampleMaxCuda, OneTemplate) {
  for (const Precision p : {Precision::fp32, Precision::fp64}) check(bank_of(1, 1, 3, 1), p, {1, 31, 32, 33, 4097});
}

TEST_F(SpiirSampleMaxCuda, TemplateCountsAroundTheLanesAndTheWarp) {
  for (const std::size_t nt : {15u, 16u, 17u, 31u, 32u, 33u})
    for (const Precision p : {Precision::fp32, Precision::fp64})
      check(bank_of(nt, nt, 5, static_cast<unsigned>(nt)), p, {33, 1, 32, 31});
}

TEST_F(SpiirSampleMaxCuda, ManyBlocksAndManyTemplates) {
  check(bank_of(300, 300, 9, 5), Precision::fp32, {4097, 4096, 100});
}

TEST_F(SpiirSampleMaxCuda, ExactTiesGoToTheLowestTemplate) {
  // 37 templates repeating 5: every sample's best is one of templates 0 … 4 (its copies tie).
  const RateBank bank = bank_of(37, 5, 6, 9);
  for (const Precision p : {Precision::fp32, Precision::fp64}) {
    check(bank, p, {1, 1000, 33});
    auto backend = cuda_backend(bank, p);
    const auto x = white_noise(1000, 3);
    std::vector<SampleMax> best(x.size());
    backend->filter_max(x, best);
    for (std::size_t i = 0; i < x.size(); ++i) ASSERT_LT(best[i].template_index, 5) << "sample " << i;
  }
}

TEST_F(SpiirSampleMaxCuda, AgreesWithTheOpenMpBackendAwayFromNearTies) {
  const RateBank bank = bank_of(64, 64, 20, 21);
  auto gpu = cuda_backend(bank, Precision::fp64);
  BackendOptions options;
  options.kind = BackendKind::cpu;
  options.threads = 2;
  auto cpu = make_spiir_backend_cpu(bank, Precision::fp64, options);
  const auto x = white_noise(3000, 4);
  std::vector<SampleMax> g(x.size()), c(x.size());
  gpu->filter_max(x, g);
  cpu->filter_max(x, c);
  Series z(bank.n_templates * x.size());
  std::vector<std::size_t> all(bank.n_templates);
  for (std::size_t t = 0; t < all.size(); ++t) all[t] = t;
  cpu->snr_rows(all, z);
  // The backends' SNRs differ by up to 1e-12 of the largest |z| (test_spiir_backend_cuda), so
  // the |z|² by up to ~2e-12 of the largest |z|²: bounds relative to that.
  double largest = 0;
  for (const auto& b : c) largest = std::max(largest, b.power);
  std::size_t compared = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    EXPECT_NEAR(g[i].power, c[i].power, 1e-11 * largest) << "sample " << i;
    double runner_up = -1;
    for (std::size_t t = 0; t < bank.n_templates; ++t)
      if (static_cast<std::int32_t>(t) != c[i].template_index)
        runner_up = std::max(runner_up, std::norm(z[t * x.size() + i]));
    if (c[i].power - runner_up > 1e-9 * largest) {
      EXPECT_EQ(g[i].template_index, c[i].template_index) << "sample " << i;
      ++compared;
    }
  }
  EXPECT_GT(compared, x.size() * 9 / 10);
}

TEST_F(SpiirSampleMaxCuda, EmptyChunk) {
  auto backend = cuda_backend(bank_of(3, 3, 2, 1), Precision::fp32);
  backend->filter_max({}, {});
  const std::vector<std::size_t> row{2};
  backend->snr_rows(row, {});
}

}  // namespace
}  // namespace astrosweep::spiir
