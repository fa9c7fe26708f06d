// The multi-rate CUDA backend (kernels/spiir/multirate_backend_cuda.cpp: the levels interpolated,
// summed and maximised on the device) against MultirateStream, the host's sum of the same CUDA
// level backends' SNRs: bit for bit, filter()'s SNRs, filter_max's |z|², template and z, and
// snr_rows (the interpolation's arithmetic is shared, multirate_upsample_rule.hpp, and the
// maximum's rule too); and against MultirateStream over the OpenMP backends, the CPU path: FP64
// within 1e-12 of the largest |z| (the level filters differ by rounding only: test_spiir_backend_cuda's
// bound, the sums adding no error of their own), FP32 within 1e-5 of it or 4× the OpenMP FP32
// stream's own error (the same bound), the per-sample best |z| within those too. Cases: 2, 3 and
// 4 rates, a level without filters between two with; 1, 16, 17 and 33 templates (the maximum's
// template lanes, a warp) and 300 (grid rows of templates); chunks of the chunk multiple alone
// (fewer samples from below than the interpolator's history), odd multiples of it and ones longer
// than a block of the kernel (256 samples), the states carried across them; reset(); an empty
// chunk; a chunk that is not a multiple (UsageError); filter_on_device refuses a CPU backend.
// append_snr into a CUDA SNR history on the device (the top level's double sum rounded there to
// the ring's precision) against the default route (the rows down, appended on the host): the
// rings bit for bit after every chunk, FP32 and FP64 backends into FP32 and FP64 rings, 2, 3 and 4
// rates, chunks of 8 … 512 samples through rings of 512 (a whole ring in one chunk, several wraps).
// Skipped without a GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <complex>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "device.hpp"
#include "filter_test_support.hpp"
#include "multirate_backend_cuda.hpp"
#include "multirate_filter.hpp"
#include "sample_max.hpp"
#include "snr_history.hpp"
#include "snr_history_cuda.hpp"
#include "spiir_backend.hpp"
#include "spiir_backend_cuda.hpp"
#include "spiir_backend_cuda_device.hpp"

namespace astrosweep::spiir {
namespace {

using Series = std::vector<std::complex<double>>;

BackendOptions cuda_options() {
  BackendOptions options;
  options.kind = BackendKind::cuda;
  return options;
}

// Templates with filters at the rates 2048 Hz >> level for level < levels, but none at `empty`
// (no level when out of range); few filters, delays up to 60 samples of their rate.
SpiirBank random_multirate_bank(std::size_t n_templates, int levels, int empty, unsigned seed) {
  std::mt19937_64 rng(seed);
  SpiirBank bank;
  bank.sample_rate_max = 2048;
  for (int level = 0; level < levels; ++level) {
    if (level == empty) continue;
    std::vector<std::vector<IirFilter>> per_template;
    for (std::size_t t = 0; t < n_templates; ++t)
      per_template.push_back(random_filters(rng, 1 + (t + static_cast<std::size_t>(level)) % 7, 60));
    bank.rates.push_back(RateBank::pack(2048 >> level, per_template));
  }
  bank.templates.resize(n_templates);
  return bank;
}

struct ChunkedRun {
  Series z;                     // template-major over the whole input
  std::vector<SampleMax> best;  // per sample
  Series rows;                  // the rows asked for, chunk after chunk
};

std::vector<std::size_t> asked_rows(std::size_t nt) { return {nt - 1, 0, nt / 2, nt - 1}; }

// Chunks of `units` × the chunk multiple (cycled) through filter_max and snr_rows on `with_max`
// and filter() on `with_snr` (a twin of the same kind), gathered over the whole input.
ChunkedRun run_chunked(MultirateBackend& with_max, MultirateBackend& with_snr, const std::vector<double>& x,
                       const std::vector<std::size_t>& units) {
  const std::size_t nt = with_max.n_templates(), total = x.size();
  const auto rows = asked_rows(nt);
  ChunkedRun out{Series(nt * total), std::vector<SampleMax>(total), {}};
  for (std::size_t first = 0, c = 0; first < total; ++c) {
    const std::size_t n = std::min(units[c % units.size()] * with_max.chunk_multiple(), total - first);
    const auto chunk = std::span(x).subspan(first, n);
    Series z(nt * n), r(rows.size() * n);
    with_snr.filter(chunk, z);
    with_max.filter_max(chunk, std::span(out.best).subspan(first, n));
    with_max.snr_rows(rows, r);
    for (std::size_t t = 0; t < nt; ++t)
      std::copy_n(z.begin() + static_cast<std::ptrdiff_t>(t * n), n,
                  out.z.begin() + static_cast<std::ptrdiff_t>(t * total + first));
    out.rows.insert(out.rows.end(), r.begin(), r.end());
    first += n;
  }
  return out;
}

std::unique_ptr<MultirateBackend> host_sum_of_cuda_levels(const SpiirBank& bank, Precision precision) {
  return std::make_unique<MultirateStream>(
      bank, [&](const RateBank& r) { return make_spiir_backend_cuda(r, precision, cuda_options()); });
}

std::unique_ptr<MultirateBackend> cpu_stream(const SpiirBank& bank, Precision precision) {
  BackendOptions options;
  options.kind = BackendKind::cpu;
  options.threads = 2;
  return std::make_unique<MultirateStream>(
      bank, [&](const RateBank& r) { return make_spiir_backend_cpu(r, precision, options); });
}

double largest(const Series& z) {
  double m = 0;
  for (const auto& v : z) m = std::max(m, std::abs(v));
  return m;
}

double worst(const Series& a, const Series& b) {
  double m = 0;
  for (std::size_t i = 0; i < a.size(); ++i) m = std::max(m, std::abs(a[i] - b[i]));
  return m;
}

class SpiirMultirateCuda : public ::testing::Test {
 protected:
  void SetUp() override {
    if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  }

  static void check(const SpiirBank& bank, const std::vector<std::size_t>& units) {
    const auto x = white_noise(3000, 23);
    const std::size_t nt = bank.n_templates();
    const auto cpu64 = [&] {
      auto a = cpu_stream(bank, Precision::fp64), b = cpu_stream(bank, Precision::fp64);
      return run_chunked(*a, *b, x, units);
    }();
    const auto cpu32 = [&] {
      auto a = cpu_stream(bank, Precision::fp32), b = cpu_stream(bank, Precision::fp32);
      return run_chunked(*a, *b, x, units);
    }();
    const double scale = largest(cpu64.z);
    for (const Precision precision : {Precision::fp64, Precision::fp32}) {
      const bool fp64 = precision == Precision::fp64;
      SCOPED_TRACE(fp64 ? "fp64" : "fp32");
      auto device_max = make_multirate_backend_cuda(bank, precision, cuda_options());
      auto device_snr = make_multirate_backend_cuda(bank, precision, cuda_options());
      auto host_max = host_sum_of_cuda_levels(bank, precision), host_snr = host_sum_of_cuda_levels(bank, precision);
      EXPECT_EQ(device_max->latency(), host_max->latency());
      EXPECT_EQ(device_max->chunk_multiple(), host_max->chunk_multiple());
      const ChunkedRun got = run_chunked(*device_max, *device_snr, x, units);
      const ChunkedRun want = run_chunked(*host_max, *host_snr, x, units);
      // Bit for bit against the host's sum of the same levels.
      ASSERT_EQ(got.z.size(), want.z.size());
      std::size_t z_differ = 0, best_differ = 0, rows_differ = 0;
      for (std::size_t i = 0; i < got.z.size(); ++i) z_differ += got.z[i] != want.z[i];
      for (std::size_t i = 0; i < got.best.size(); ++i)
        best_differ += got.best[i].power != want.best[i].power ||
                       got.best[i].template_index != want.best[i].template_index || got.best[i].z != want.best[i].z;
      for (std::size_t i = 0; i < got.rows.size(); ++i) rows_differ += got.rows[i] != want.rows[i];
      EXPECT_EQ(z_differ, 0u) << "SNRs that differ from the host's sum of " << nt << " templates";
      EXPECT_EQ(best_differ, 0u) << "samples whose best differs from the host's";
      EXPECT_EQ(rows_differ, 0u) << "snr_rows samples that differ from the host's";
      // The maximum is the plain loop's over the device's own SNRs.
      std::vector<SampleMax> loop(x.size());
      sample_max(got.z, nt, x.size(), loop);
      for (std::size_t i = 0; i < x.size(); ++i) {
        ASSERT_EQ(got.best[i].power, loop[i].power) << "sample " << i;
        ASSERT_EQ(got.best[i].template_index, loop[i].template_index) << "sample " << i;
      }
      // Against the CPU path.
      const double bound = fp64 ? 1e-12 * scale : std::max(1e-5 * scale, 4 * worst(cpu32.z, cpu64.z));
      EXPECT_LE(worst(got.z, cpu64.z), bound);
      double best_worst = 0;
      for (std::size_t i = 0; i < x.size(); ++i)
        best_worst = std::max(best_worst, std::abs(std::sqrt(got.best[i].power) - std::sqrt(cpu64.best[i].power)));
      EXPECT_LE(best_worst, bound) << "the per-sample best |z| against the CPU path's";
    }
  }
};

TEST_F(SpiirMultirateCuda, TwoRates) { check(random_multirate_bank(17, 2, -1, 1), {1, 37, 300}); }

TEST_F(SpiirMultirateCuda, ThreeRatesOneTemplate) { check(random_multirate_bank(1, 3, -1, 2), {1, 1, 5, 129}); }

TEST_F(SpiirMultirateCuda, FourRatesWithAnEmptyLevel) {
  check(random_multirate_bank(33, 4, 2, 3), {1, 3, 64, 17});
  check(random_multirate_bank(16, 4, 1, 4), {2, 33});
}

TEST_F(SpiirMultirateCuda, ManyTemplates) { check(random_multirate_bank(300, 3, -1, 5), {97, 2}); }

TEST_F(SpiirMultirateCuda, ResetEmptyAndBadChunks) {
  const SpiirBank bank = random_multirate_bank(5, 3, -1, 6);
  auto device = make_multirate_backend_cuda(bank, Precision::fp64, cuda_options());
  const auto x = white_noise(256, 8);
  Series first(5 * 256), again(5 * 256);
  device->filter(x, first);
  std::vector<SampleMax> none;
  device->filter_max(std::span<const double>(), none);  // an empty chunk moves nothing on
  device->reset();
  device->filter(x, again);
  EXPECT_EQ(first, again);
  std::vector<SampleMax> best(6);
  EXPECT_THROW(device->filter_max(std::vector<double>(6, 0.0), best), UsageError);  // not a multiple of 4
  EXPECT_NE(device->describe().find("levels summed on the device"), std::string::npos) << device->describe();
  // The levels' SNRs are left on the device by CUDA backends only.
  const auto cpu = make_spiir_backend_cpu(bank.rates.front(), Precision::fp64, {});
  EXPECT_THROW((void)filter_on_device(*cpu, x), UsageError);
}

// Every sample `h` holds, template after template, oldest first.
Series held(const SnrHistory& h) {
  const auto n = static_cast<std::size_t>(h.written() - h.oldest());
  std::vector<HistoryRead> all;
  for (std::size_t t = 0; t < h.n_templates(); ++t) all.push_back({t, h.oldest()});
  Series out(all.size() * n);
  h.read(all, n, out);
  return out;
}

std::size_t differing_bits(const Series& a, const Series& b) {
  std::size_t count = 0;
  for (std::size_t i = 0; i < a.size(); ++i)
    count += std::bit_cast<std::uint64_t>(a[i].real()) != std::bit_cast<std::uint64_t>(b[i].real()) ||
             std::bit_cast<std::uint64_t>(a[i].imag()) != std::bit_cast<std::uint64_t>(b[i].imag());
  return count;
}

TEST_F(SpiirMultirateCuda, AppendSnrWritesTheDeviceRingAsTheRowsWould) {
  struct Bank {
    std::size_t n_templates;
    int levels, empty;
  };
  constexpr std::size_t length = 512;
  // Multiples of 8 (every case's chunk multiple), a whole ring among them; 10 chunks wrap 4 times.
  const std::vector<std::size_t> chunks{296, 8, length, 200};
  const auto x = white_noise(2400, 31);
  for (const Bank& b : {Bank{17, 2, -1}, Bank{1, 3, -1}, Bank{33, 4, 2}}) {
    const SpiirBank bank = random_multirate_bank(b.n_templates, b.levels, b.empty, 7);
    for (const Precision filtered : {Precision::fp32, Precision::fp64})
      for (const Precision kept : {Precision::fp32, Precision::fp64}) {
        SCOPED_TRACE(std::to_string(b.levels) + " rates, " + std::to_string(b.n_templates) + " templates, " +
                     (filtered == Precision::fp32 ? "fp32" : "fp64") + " filters into an " +
                     (kept == Precision::fp32 ? "fp32" : "fp64") + " ring");
        auto backend = make_multirate_backend_cuda(bank, filtered, cuda_options());
        auto on_device = make_snr_history_cuda(b.n_templates, length, kept, cuda_options());
        // The default route: a host ring is no CUDA ring, so its chunk comes down as rows.
        auto by_rows = make_snr_history_host(b.n_templates, length, kept);
        std::vector<SampleMax> best;
        std::size_t first = 0;
        for (std::size_t c = 0; c < 10; ++c) {
          const std::size_t n = chunks[c % chunks.size()];
          ASSERT_LE(first + n, x.size());
          ASSERT_EQ(n % backend->chunk_multiple(), 0u);
          best.resize(n);
          backend->filter_max(std::span(x).subspan(first, n), best);
          backend->append_snr(*on_device);
          backend->append_snr(*by_rows);
          first += n;
          ASSERT_EQ(on_device->written(), static_cast<std::int64_t>(first));
          ASSERT_EQ(by_rows->written(), on_device->written());
          const Series got = held(*on_device), want = held(*by_rows);
          ASSERT_EQ(got.size(), want.size());
          EXPECT_EQ(differing_bits(got, want), 0u) << "samples of the device ring that differ after chunk " << c;
        }
        auto other = make_snr_history_cuda(b.n_templates + 1, length, kept, cuda_options());
        EXPECT_THROW(backend->append_snr(*other), UsageError);  // not this backend's templates
      }
  }
}

}  // namespace
}  // namespace astrosweep::spiir
