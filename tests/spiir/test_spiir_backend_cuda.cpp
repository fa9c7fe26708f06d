// The CUDA filtering backend against the double-precision recurrence (spec §11) and the OpenMP
// backend (§12.1): one filter; filter counts around the warp (31/32/33), the two-filter pass
// (63/64/65), a warp's four filters per thread (127/128/129), several warps (257) and the
// eight-warp block with four filters per thread (1000);
// delays longer than the chunk; chunks of 1, 31, 32, 33, 1000 and 70000 samples and mixtures of
// them; a chunked run against a whole run (bit for bit: the kernel's sums do not depend on where a
// sample falls in a tile or a chunk); reset(); an empty chunk; every rate of a multi-rate bank
// through the stream. Skipped without a GPU.
//
// Tolerances. FP64: ≤ 1e-12 · max|z| (the OpenMP backend's own bound against the reference; the two
// differ only in fused multiply-adds and the order of the filters' sum, each ~1e-16 relative per
// operation, amplified by at most 1/(1 − |a1|) = 1000 in the states). FP32: the same recurrence
// rounded to float; its error against the reference is a random walk of ~6e-8 per step in states
// of memory up to 1000 samples, ~1e-6 of max|z| in the banks here, so ≤ 1e-5 · max|z| (100×
// tighter than spec §12.1's 1e-3), or 4× the OpenMP FP32 backend's own error where that is larger.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <random>
#include <vector>

#include "bank_generation.hpp"
#include "device.hpp"
#include "filter_test_support.hpp"
#include "multirate_filter.hpp"
#include "spiir_backend.hpp"
#include "spiir_backend_cuda.hpp"
#include "spiir_reference.hpp"

namespace astrosweep::spiir {
namespace {

using Series = std::vector<std::complex<double>>;

RateBank random_bank(const std::vector<std::size_t>& counts, std::int64_t max_delay, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::vector<IirFilter>> per_template;
  for (std::size_t c : counts) per_template.push_back(random_filters(rng, c, max_delay));
  return RateBank::pack(2048, per_template);
}

std::unique_ptr<SpiirBackend> cuda_backend(const RateBank& bank, Precision precision) {
  BackendOptions options;
  options.kind = BackendKind::cuda;
  return make_spiir_backend_cuda(bank, precision, options);
}

std::unique_ptr<SpiirBackend> cpu_backend(const RateBank& bank, Precision precision) {
  BackendOptions options;
  options.kind = BackendKind::cpu;
  options.threads = 2;
  return make_spiir_backend_cpu(bank, precision, options);
}

// Runs the backend over x in chunks of the given sizes (cycled); template-major output for all x.
Series run_chunked(SpiirBackend& backend, const std::vector<double>& x, const std::vector<std::size_t>& sizes) {
  const std::size_t nt = backend.n_templates();
  Series out(nt * x.size());
  std::size_t first = 0;
  for (std::size_t c = 0; first < x.size(); ++c) {
    const std::size_t n = std::min(sizes[c % sizes.size()], x.size() - first);
    Series z(nt * n);
    backend.filter(std::span(x).subspan(first, n), z);
    for (std::size_t t = 0; t < nt; ++t)
      for (std::size_t i = 0; i < n; ++i) out[t * x.size() + first + i] = z[t * n + i];
    first += n;
  }
  return out;
}

double peak(std::span<const std::complex<double>> z) {
  double m = 0;
  for (const auto& v : z) m = std::max(m, std::abs(v));
  return m;
}

double worst(std::span<const std::complex<double>> a, std::span<const std::complex<double>> b) {
  double m = 0;
  for (std::size_t i = 0; i < a.size(); ++i) m = std::max(m, std::abs(a[i] - b[i]));
  return m;
}

class SpiirBackendCuda : public ::testing::Test {
 protected:
  void SetUp() override {
    if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  }

  // Every template of `bank` through the CUDA backend in chunks of `sizes`, in FP64 against the
  // reference and in FP32 against the reference and the OpenMP FP32 backend (tolerances above).
  static void check(const RateBank& bank, const std::vector<double>& x, const std::vector<std::size_t>& sizes) {
    const std::size_t n = x.size();
    auto gpu64 = cuda_backend(bank, Precision::fp64);
    auto gpu32 = cuda_backend(bank, Precision::fp32);
    const Series z64 = run_chunked(*gpu64, x, sizes);
    const Series z32 = run_chunked(*gpu32, x, sizes);
    auto cpu32 = cpu_backend(bank, Precision::fp32);
    const Series c32 = run_chunked(*cpu32, x, {n});
    for (std::size_t t = 0; t < bank.n_templates; ++t) {
      const Series want = iir_filter_reference(bank.filters(t), x);
      const std::span<const std::complex<double>> g64(z64.data() + t * n, n), g32(z32.data() + t * n, n),
          cpu(c32.data() + t * n, n);
      const double scale = peak(want);
      EXPECT_LE(worst(g64, want), 1e-12 * scale) << "fp64, template " << t << " (" << bank.n_filters[t] << " filters)";
      const double fp32_bound = std::max(1e-5 * scale, 4 * worst(cpu, want));
      EXPECT_LE(worst(g32, want), fp32_bound) << "fp32, template " << t << " (" << bank.n_filters[t] << " filters)";
      EXPECT_LE(worst(g32, want), 1e-3 * scale) << "spec §12.1, template " << t;
    }
  }
};

TEST_F(SpiirBackendCuda, OneTemplateOneFilter) {
  const RateBank bank = random_bank({1}, 10, 1);
  check(bank, white_noise(2000, 2), {1, 31, 32, 33, 1000});
  // An impulse: the closed form b0 · a1^(n − n0 − d) from the filter's delay on.
  std::vector<double> x(300, 0.0);
  x[13] = 1;
  auto gpu = cuda_backend(bank, Precision::fp64);
  Series z(x.size());
  gpu->filter(x, z);
  const IirFilter f = bank.filter(0, 0);
  for (std::size_t n = 0; n < x.size(); ++n) {
    const auto lag = static_cast<std::int64_t>(n) - 13 - f.delay;
    const std::complex<double> want = lag < 0 ? 0.0 : f.b0 * std::pow(f.a1, static_cast<double>(lag));
    EXPECT_LE(std::abs(z[n] - want), 1e-13) << "sample " << n;
  }
}

// Filter counts at the edges of the warp, of the two-filter pass and of the block: each alone
// (its own block size) and all in one bank (blocks of 8 warps, most templates padded).
TEST_F(SpiirBackendCuda, FilterCountsAroundWarpsAndBlocks) {
  const std::vector<std::size_t> counts{31, 32, 33, 63, 64, 65, 127, 128, 129, 257, 1000};
  const auto x = white_noise(1500, 3);
  for (std::size_t c : counts) {
    SCOPED_TRACE("filters " + std::to_string(c));
    check(random_bank({c}, 300, static_cast<unsigned>(c)), x, {1500});
  }
  check(random_bank(counts, 300, 4), x, {700, 33, 767});
}

TEST_F(SpiirBackendCuda, ChunkLengthsAndDelaysLongerThanAChunk) {
  // Delays up to 2500 samples: longer than every chunk but the whole run.
  const RateBank bank = random_bank({1, 33, 200}, 2500, 5);
  const auto x = white_noise(3000, 6);
  for (const std::vector<std::size_t>& sizes :
       std::vector<std::vector<std::size_t>>{{1}, {31}, {32}, {33}, {1000}, {31, 1, 32, 1000, 33}}) {
    SCOPED_TRACE("chunks of " + std::to_string(sizes.front()) + (sizes.size() > 1 ? " and others" : ""));
    check(bank, x, sizes);
  }
}

TEST_F(SpiirBackendCuda, LongChunk) {
  const RateBank bank = random_bank({1, 64, 1000}, 4000, 7);
  check(bank, white_noise(70000, 8), {70000});
}

// The sum for a sample does not depend on its place in a tile or a chunk (the same operations in
// the same order, fused multiply-adds explicit), nor on an empty chunk; reset() starts afresh.
TEST_F(SpiirBackendCuda, ChunkedEqualsWholeRunBitForBitAndResetStartsAfresh) {
  const RateBank bank = random_bank({1, 33, 65, 1000}, 700, 9);
  const auto x = white_noise(5000, 10);
  for (Precision precision : {Precision::fp32, Precision::fp64}) {
    auto gpu = cuda_backend(bank, precision);
    const Series whole = run_chunked(*gpu, x, {x.size()});
    gpu->reset();
    const Series chunked = run_chunked(*gpu, x, {1, 31, 32, 33, 1000, 0, 17});  // 0: an empty chunk
    EXPECT_EQ(worst(whole, chunked), 0.0);
    gpu->reset();
    const Series again = run_chunked(*gpu, x, {x.size()});
    EXPECT_EQ(worst(whole, again), 0.0);
  }
}

TEST_F(SpiirBackendCuda, EmptyChunkAndBuffers) {
  const RateBank bank = random_bank({3, 5}, 20, 11);
  auto gpu = cuda_backend(bank, Precision::fp32);
  Series none;
  EXPECT_NO_THROW(gpu->filter({}, none));
  EXPECT_EQ(gpu->n_templates(), 2u);
  Series wrong(3);
  EXPECT_THROW(gpu->filter(std::vector<double>(2, 0.0), wrong), UsageError);
  EXPECT_NE(gpu->describe().find("cuda ("), std::string::npos) << gpu->describe();
  EXPECT_NE(gpu->describe().find("fp32"), std::string::npos) << gpu->describe();
}

// A real multi-rate bank (several rates, delays lengthened by the stream's latency): the CUDA
// backend per rate against the OpenMP one, chunks of 1, 512 and 37 times the stream's multiple.
TEST_F(SpiirBackendCuda, MultirateStreamWithCudaPerRate) {
  BankSettings s;
  s.f_low = 60;
  s.sample_rate = 2048;
  s.ifos = {"H1"};
  const SpiirBank bank = make_spiir_bank({{1.4, 1.4}, {1.2, 1.2}}, s);
  ASSERT_GT(bank.rates.size(), 1u);
  const auto x = white_noise(8 * 2048, 12);
  const std::size_t nt = bank.n_templates();
  // The stream over x in chunks of 1, 512 and 37 times its multiple; template-major output.
  const auto stream_run = [&](const BackendMaker& make) {
    MultirateStream stream(bank, make);
    const std::size_t m = stream.chunk_multiple();  // 8 for 4 rates
    const std::size_t sizes[] = {m, 512 * m, 37 * m};
    Series out(nt * x.size());
    for (std::size_t first = 0, c = 0; first < x.size(); ++c) {
      const std::size_t n = std::min(sizes[c % 3], x.size() - first);
      Series z(nt * n);
      stream.filter(std::span(x).subspan(first, n), z);
      for (std::size_t t = 0; t < nt; ++t)
        for (std::size_t i = 0; i < n; ++i) out[t * x.size() + first + i] = z[t * n + i];
      first += n;
    }
    return out;
  };
  const Series want = stream_run([](const RateBank& r) { return cpu_backend(r, Precision::fp64); });
  const Series cpu32 = stream_run([](const RateBank& r) { return cpu_backend(r, Precision::fp32); });
  const Series gpu64 = stream_run([](const RateBank& r) { return cuda_backend(r, Precision::fp64); });
  const Series gpu32 = stream_run([](const RateBank& r) { return cuda_backend(r, Precision::fp32); });
  const double scale = peak(want);
  ASSERT_GT(scale, 0.0);
  EXPECT_LE(worst(gpu64, want), 1e-12 * scale);
  EXPECT_LE(worst(gpu32, want), std::max(1e-5 * scale, 4 * worst(cpu32, want)));
}

TEST_F(SpiirBackendCuda, FactoryTakesTheGpu) {
  const RateBank bank = random_bank({3}, 5, 13);
  BackendOptions options;
  options.kind = BackendKind::automatic;
  EXPECT_EQ(make_spiir_backend(bank, Precision::fp32, options)->describe().rfind("cuda (", 0), 0u);
  options.kind = BackendKind::cpu;
  EXPECT_EQ(make_spiir_backend(bank, Precision::fp32, options)->describe().rfind("OpenMP", 0), 0u);
}

}  // namespace
}  // namespace astrosweep::spiir
