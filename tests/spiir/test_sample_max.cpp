// The per-sample maximum over templates (sample_max.hpp), what the first pass keeps of a chunk:
// the plain loop against the job's earlier sample-major loop (std::norm, the lowest template on a
// tie) on hand-made SNRs (ties, NaN, no templates, one sample); the OpenMP backend's filter_max
// and snr_rows against filter() and that loop, chunk after chunk, bit for bit; the multi-rate
// stream's filter_max the same; the misuses of snr_rows. The CUDA twin is
// test_spiir_sample_max_cuda.cpp.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <limits>
#include <random>
#include <vector>

#include "core/error.hpp"
#include "filter_test_support.hpp"
#include "multirate_filter.hpp"
#include "sample_max.hpp"
#include "spiir_backend.hpp"
#include "spiir_units.hpp"

namespace astrosweep::spiir {
namespace {

using Series = std::vector<std::complex<double>>;

// The first pass's loop before filter_max (append_sample_best's), sample by sample: the oracle.
std::vector<SampleMax> sample_major(const Series& z, std::size_t n_templates, std::size_t n) {
  std::vector<SampleMax> out(n);
  for (std::size_t i = 0; i < n; ++i) {
    double best = -1;
    std::size_t winner = 0;
    for (std::size_t t = 0; t < n_templates; ++t) {
      const double p = std::norm(z[t * n + i]);
      if (p > best) {
        best = p;
        winner = t;
      }
    }
    out[i] = {best, static_cast<std::int32_t>(winner), n_templates > 0 ? z[winner * n + i] : std::complex<double>()};
  }
  return out;
}

// Bit for bit: the same |z|² (NaN-free here), template and z.
void expect_same(const std::vector<SampleMax>& got, const std::vector<SampleMax>& want, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (std::size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(got[i].power, want[i].power) << what << ", sample " << i;
    EXPECT_EQ(got[i].template_index, want[i].template_index) << what << ", sample " << i;
    EXPECT_EQ(got[i].z, want[i].z) << what << ", sample " << i;
  }
}

std::vector<SampleMax> plain(const Series& z, std::size_t n_templates, std::size_t n) {
  std::vector<SampleMax> out(n);
  sample_max(z, n_templates, n, out);
  return out;
}

TEST(SampleMax, PlainLoopIsTheSampleMajorLoop) {
  std::mt19937_64 rng(3);
  std::normal_distribution<double> g;
  for (const std::size_t nt : {1u, 2u, 31u, 32u, 33u, 100u})
    for (const std::size_t n : {1u, 7u, 64u}) {
      Series z(nt * n);
      for (auto& v : z) v = {g(rng), g(rng)};
      expect_same(plain(z, nt, n), sample_major(z, nt, n), std::to_string(nt) + " templates x " + std::to_string(n));
    }
}

TEST(SampleMax, TiesGoToTheLowestTemplate) {
  // 4 templates x 3 samples, template-major. Sample 0: templates 1 (3 + 4i) and 3 (5) tie at
  // |z|² = 25; sample 1: every template ties at 0; sample 2: templates 2 (2) and 3 (2i) tie at 4.
  const Series z{0,      0, {0, 1},  //
                 {3, 4}, 0, 0,       //
                 1,      0, 2,       //
                 5,      0, {0, 2}};
  const auto best = plain(z, 4, 3);
  EXPECT_EQ(best[0].template_index, 1);
  EXPECT_EQ(best[0].power, 25.0);
  EXPECT_EQ(best[1].template_index, 0);
  EXPECT_EQ(best[1].power, 0.0);
  EXPECT_EQ(best[2].template_index, 2);
  EXPECT_EQ(best[2].z, std::complex<double>(2, 0));
  expect_same(best, sample_major(z, 4, 3), "hand-made ties");
}

TEST(SampleMax, NanNeverWinsAndNoTemplatesGiveNone) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const Series z{{nan, 0}, {1, 0}, {2, 0}, {nan, 1}};  // 2 templates x 2 samples
  const auto best = plain(z, 2, 2);
  EXPECT_EQ(best[0].template_index, 1);  // sample 0: NaN, then 2² = 4
  EXPECT_EQ(best[0].power, 4.0);
  EXPECT_EQ(best[1].template_index, 0);  // sample 1: 1, then NaN
  EXPECT_EQ(best[1].power, 1.0);
  const Series all_nan{{nan, 0}, {0, nan}};  // 2 templates x 1 sample
  const auto none = plain(all_nan, 2, 1);
  EXPECT_EQ(none[0].power, -1.0);
  EXPECT_EQ(none[0].template_index, 0);
  const auto empty = plain({}, 0, 3);
  for (const auto& b : empty) EXPECT_EQ(b.power, -1.0);
  // Neither is ever kept, whatever the threshold.
  std::vector<SampleBest> kept;
  append_sample_best(none, std::vector<bool>(1, true), 0.0, 0, 0, kept);
  append_sample_best(empty, std::vector<bool>(3, true), 0.0, 0, 0, kept);
  EXPECT_TRUE(kept.empty());
}

// The CUDA kernel's split (spiir_sample_max.cu) on the host: lane y of `lanes` takes templates
// y, y + lanes, … by the rule, then the lanes' bests are combined pairwise in a halving tree. The
// rule being an order, that is the sequential loop's choice, ties included.
TEST(SampleMax, LanesAndTreeOfTheKernelGiveTheLoopsChoice) {
  std::mt19937_64 rng(8);
  std::uniform_int_distribution<int> level(0, 3);  // few distinct |z|²: ties everywhere
  for (const std::size_t nt : {1u, 5u, 16u, 17u, 33u, 64u}) {
    std::vector<double> power(nt);
    for (auto& p : power) p = level(rng);
    sample_max_rule::Best sequential;
    for (std::size_t t = 0; t < nt; ++t) sample_max_rule::consider(sequential, power[t], static_cast<std::int32_t>(t));
    for (const std::size_t lanes : {1u, 2u, 16u}) {
      std::vector<sample_max_rule::Best> lane(lanes);
      for (std::size_t y = 0; y < lanes; ++y)
        for (std::size_t t = y; t < nt; t += lanes)
          sample_max_rule::consider(lane[y], power[t], static_cast<std::int32_t>(t));
      for (std::size_t half = lanes / 2; half > 0; half /= 2)
        for (std::size_t y = 0; y < half; ++y)
          sample_max_rule::consider(lane[y], lane[y + half].power, lane[y + half].index);
      EXPECT_EQ(lane[0].index, sequential.index) << nt << " templates, " << lanes << " lanes";
      EXPECT_EQ(lane[0].power, sequential.power) << nt << " templates, " << lanes << " lanes";
    }
  }
}

RateBank random_bank(std::size_t n_templates, std::size_t filters, std::int64_t rate, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::vector<IirFilter>> per_template;
  for (std::size_t t = 0; t < n_templates; ++t) per_template.push_back(random_filters(rng, filters, 60));
  return RateBank::pack(rate, per_template);
}

// filter_max on one backend and filter() on its twin, chunk after chunk: the same best, bit for
// bit, and snr_rows gives filter()'s rows.
void check_backend(const RateBank& bank, Precision precision, const std::vector<std::size_t>& sizes) {
  BackendOptions options;
  options.kind = BackendKind::cpu;
  options.threads = 2;
  auto with_max = make_spiir_backend_cpu(bank, precision, options);
  auto with_snr = make_spiir_backend_cpu(bank, precision, options);
  const std::size_t nt = bank.n_templates;
  const auto x = white_noise(3000, 9);
  std::size_t first = 0;
  for (std::size_t c = 0; first < x.size() && c < 3 * sizes.size(); ++c) {
    const std::size_t n = std::min(sizes[c % sizes.size()], x.size() - first);
    const auto chunk = std::span(x).subspan(first, n);
    std::vector<SampleMax> best(n);
    with_max->filter_max(chunk, best);
    Series z(nt * n);
    with_snr->filter(chunk, z);
    const std::string what = std::to_string(nt) + " templates, chunk " + std::to_string(c) + " of " +
                             std::to_string(n) + (precision == Precision::fp32 ? ", fp32" : ", fp64");
    expect_same(best, sample_major(z, nt, n), what);
    // The rows of the first, the last and the winner of the chunk's first sample, with a repeat.
    const std::vector<std::size_t> rows{nt - 1, 0, static_cast<std::size_t>(best[0].template_index), nt - 1};
    Series got(rows.size() * n);
    with_max->snr_rows(rows, got);
    for (std::size_t r = 0; r < rows.size(); ++r)
      for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(got[r * n + i], z[rows[r] * n + i]) << what << ", row " << r;
    first += n;
  }
}

TEST(SampleMax, OpenMpBackendFilterMaxIsFilterThenTheLoop) {
  for (const Precision p : {Precision::fp32, Precision::fp64}) {
    check_backend(random_bank(1, 5, 2048, 1), p, {1, 100, 33});
    check_backend(random_bank(33, 7, 2048, 2), p, {1000, 1, 31, 32});
  }
}

TEST(SampleMax, SnrRowsMisuse) {
  auto backend = make_spiir_backend_cpu(random_bank(3, 4, 2048, 4), Precision::fp64, {});
  const std::vector<std::size_t> row{0};
  Series out(10);
  EXPECT_THROW(backend->snr_rows(row, out), UsageError);  // no filter_max yet
  const auto x = white_noise(10, 1);
  std::vector<SampleMax> best(10);
  EXPECT_THROW(backend->filter_max(x, std::span(best).first(9)), UsageError);
  backend->filter_max(x, best);
  backend->snr_rows(row, out);
  const std::vector<std::size_t> beyond{3};
  EXPECT_THROW(backend->snr_rows(beyond, out), UsageError);
  EXPECT_THROW(backend->snr_rows(row, std::span(out).first(9)), UsageError);
  Series z(30);
  backend->filter(x, z);  // filter() does not keep its SNRs for snr_rows
  EXPECT_THROW(backend->snr_rows(row, out), UsageError);
  // An empty chunk keeps an empty one.
  backend->filter_max({}, {});
  backend->snr_rows(row, {});
}

TEST(SampleMax, MultirateStreamFilterMaxIsFilterThenTheLoop) {
  // Two rates: template t's filters at 2048 Hz and at 1024 Hz.
  SpiirBank bank;
  bank.sample_rate_max = 2048;
  bank.templates.resize(5);
  bank.rates = {random_bank(5, 6, 2048, 7), random_bank(5, 3, 1024, 8)};
  const auto make = [](const RateBank& r) { return make_spiir_backend_cpu(r, Precision::fp64, {}); };
  MultirateStream with_max(bank, make), with_snr(bank, make);
  const auto x = white_noise(2 * 600, 3);
  for (std::size_t first = 0; first < x.size(); first += 600) {
    const auto chunk = std::span(x).subspan(first, 600);
    std::vector<SampleMax> best(600);
    with_max.filter_max(chunk, best);
    Series z(5 * 600);
    with_snr.filter(chunk, z);
    expect_same(best, sample_major(z, 5, 600), "multi-rate, chunk at " + std::to_string(first));
  }
}

}  // namespace
}  // namespace astrosweep::spiir
