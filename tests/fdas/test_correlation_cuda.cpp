// The GPU overlap-save correlation, both methods (inverse FFTs in shared memory, and the cuFFT
// baseline), against the CPU's double-precision pipeline (same taps, same geometry, the same
// segment grids: one run, and PRESTO's runs with zeros below them): the FP32 plane within the
// spec's 1e-4·max(1, P) per cell, with numbetween 2 and 1 (the odd columns interbinned, the last
// one of each segment from the output after its last kept one). Segment lengths 64 (cuFFT only)
// and every shared-memory length 256 … 4096; one template, templates around the shared-memory
// kernel's group of 8, many; one segment and thousands. Skipped without a GPU.
#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include <algorithm>
#include <bit>
#include <complex>
#include <cstdint>
#include <random>
#include <span>
#include <sstream>
#include <string>
#include <vector>

#include "correlation.hpp"
#include "correlation_cuda.hpp"
#include "cuda_memory.hpp"
#include "deredden_launch.hpp"
#include "device.hpp"
#include "random_taps.hpp"
#include "segment_grid.hpp"

namespace astrosweep::fdas {
namespace {

using test_support::Taps;

using test_support::random_taps;

struct Case {
  std::size_t L, m;
  int b;
  std::size_t templates, bins;
  std::size_t budget;
};

class CudaCorrelation : public ::testing::TestWithParam<Case> {};

// The grids each case is correlated on: one run from bin 0 over the spectrum, from bin 7 to the
// middle (`inner`), past the end; then PRESTO's (presto_segment_grid): blocks from rlo, low blocks
// from bin 8, the plane from one of them, zeros below bin 8 (after a plane that wrote there, so the
// zeros are written, not left); and with rlo = 3 (zeros below it, its first block reading zeros).
std::vector<SegmentGrid> test_grids(const Case& c, const CorrelationLayout& layout, bool inner) {
  std::vector<SegmentGrid> grids{uniform_segment_grid(0, c.bins)};
  if (inner) grids.push_back(uniform_segment_grid(7, c.bins / 2));
  grids.push_back(uniform_segment_grid(c.bins - 3, c.bins + 9));
  const std::size_t rlo = c.bins / 5;
  grids.push_back(presto_segment_grid(rlo, rlo / 4, c.bins + 9, layout));
  grids.push_back(presto_segment_grid(rlo, 0, c.bins / 2, layout));
  grids.push_back(presto_segment_grid(3, 0, c.bins / 2, layout));
  return grids;
}

// A stream, not string sums: GCC 12 warns (-Wrestrict, a false positive) on "…" + to_string at -O3.
std::string describe(const SegmentGrid& grid) {
  std::ostringstream text;
  text << "plane [" << grid.plane_lo << ", " << grid.plane_hi << "), runs from";
  for (const SegmentRun& run : grid.runs) text << ' ' << run.first_bin;
  return text.str();
}

TEST_P(CudaCorrelation, MatchesTheFp64Pipeline) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  const Case c = GetParam();
  std::mt19937_64 rng(11);
  const Taps taps = random_taps(c.L, static_cast<std::size_t>(c.b) * c.m, c.templates, rng);
  std::normal_distribution<float> g(0.0F, std::sqrt(0.5F));
  std::vector<std::complex<float>> spectrum(c.bins);
  for (auto& v : spectrum) v = {g(rng), g(rng)};
  spectrum[c.bins / 3] += std::complex<float>(30.0F, -10.0F);  // a strong cell among the noise
  const CorrelationLayout layout{c.L, c.m, c.b};
  for (const auto method : {kernels::CudaCorrelator::Method::shared_memory, kernels::CudaCorrelator::Method::cufft}) {
    kernels::CudaCorrelator gpu(layout, taps, c.budget, method);
    const bool shared = method == kernels::CudaCorrelator::Method::shared_memory;
    EXPECT_EQ(gpu.method() == kernels::CudaCorrelator::Method::shared_memory,
              shared && kernels::CudaCorrelator::shared_memory_supports(c.L));
    for (const SegmentGrid& grid : test_grids(c, layout, true)) {
      for (bool normalise : {false, true}) {
        const PowerPlane want = correlate(spectrum, transform_kernels<double>(taps, c.L), layout, grid, {normalise, 2});
        const PowerPlane got = gpu.correlate(spectrum, grid, normalise);
        ASSERT_EQ(got.n_r, want.n_r);
        ASSERT_EQ(got.n_z, want.n_z);
        ASSERT_EQ(got.first_bin, want.first_bin);
        for (std::size_t i = 0; i < want.power.size(); ++i)
          ASSERT_NEAR(got.power[i], want.power[i], 1e-4 * static_cast<double>(std::max(1.0F, want.power[i])))
              << "cell " << i << (shared ? ", shared memory" : ", cuFFT") << ", L " << c.L << ", " << describe(grid);
      }
    }
  }
}

TEST(CudaCorrelationLaunches, MoreSegmentsThanOneGridHolds) {
  // The shared-memory kernel's grid has the template groups along x and at most 65,535 segments
  // along y: 66,001 segments (L = 256, 124 bins a segment) take two launches, the second starting
  // where the first ended; 9 templates, two groups (8 and 1). The whole plane against the FP64
  // pipeline, the last segments' columns included.
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  std::mt19937_64 rng(13);
  const CorrelationLayout layout{256, 2, 2};
  ASSERT_EQ(layout.step_bins(), 124U);
  const std::size_t bins = 124 * 66000 + 50;
  const Taps taps = random_taps(layout.fft_length, 4, 9, rng);
  std::normal_distribution<float> g(0.0F, std::sqrt(0.5F));
  std::vector<std::complex<float>> spectrum(bins);
  for (auto& v : spectrum) v = {g(rng), g(rng)};
  spectrum[bins - 70] += std::complex<float>(30.0F, -10.0F);  // a strong cell in the second launch
  kernels::CudaCorrelator gpu(layout, taps, 0, kernels::CudaCorrelator::Method::shared_memory);
  ASSERT_EQ(gpu.method(), kernels::CudaCorrelator::Method::shared_memory);
  const PowerPlane want =
      correlate(spectrum, transform_kernels<double>(taps, layout.fft_length), layout, 0, bins, {false, 2});
  const PowerPlane got = gpu.correlate(spectrum, 0, bins, false);
  ASSERT_EQ(got.n_r, want.n_r);
  ASSERT_EQ(got.n_z, want.n_z);
  for (std::size_t i = 0; i < want.power.size(); ++i)
    ASSERT_NEAR(got.power[i], want.power[i], 1e-4 * static_cast<double>(std::max(1.0F, want.power[i])))
        << "cell " << i << " (row " << i / want.n_r << ", column " << i % want.n_r << ")";
}

// From a spectrum left on the device (the bins gathered and the segments' medians taken there) the
// plane is the one made from the same spectrum's host copy, bit for bit: the gather is a copy and
// the medians are the host's (deredden_arith.hpp). Ties and zeros in the medians (a quantised
// spectrum), ranges reaching past both ends, PRESTO's grids, both methods, and the host path for
// segments too long for shared memory (cuFFT, L = 32768).
class CudaCorrelationFromDevice : public CudaCorrelation {};

TEST_P(CudaCorrelationFromDevice, IsTheHostPathBitForBit) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  const Case c = GetParam();
  std::mt19937_64 rng(12);
  const Taps taps = random_taps(c.L, static_cast<std::size_t>(c.b) * c.m, c.templates, rng);
  std::uniform_int_distribution<int> part(-3, 3);
  std::vector<std::complex<float>> spectrum(c.bins);
  for (auto& v : spectrum) v = {0.5F * static_cast<float>(part(rng)), static_cast<float>(part(rng))};
  kernels::CudaSpectrum on_device;
  on_device.load(spectrum);
  const CorrelationLayout layout{c.L, c.m, c.b};
  for (const auto method : {kernels::CudaCorrelator::Method::shared_memory, kernels::CudaCorrelator::Method::cufft}) {
    kernels::CudaCorrelator gpu(layout, taps, c.budget, method);
    for (const SegmentGrid& grid : test_grids(c, layout, false)) {
      for (bool normalise : {false, true}) {
        const PowerPlane want = gpu.correlate(spectrum, grid, normalise);
        const auto got = gpu.correlate_on_device(on_device.on_device(), grid, normalise);
        ASSERT_EQ(got.n_r, want.n_r);
        std::vector<float> power(got.n_z * got.n_r);
        ASSERT_EQ(cudaMemcpy(power.data(), got.data, power.size() * sizeof(float), cudaMemcpyDeviceToHost),
                  cudaSuccess);
        std::size_t differing = 0;
        for (std::size_t i = 0; i < power.size(); ++i)
          differing += std::bit_cast<std::uint32_t>(power[i]) != std::bit_cast<std::uint32_t>(want.power[i]) ? 1 : 0;
        EXPECT_EQ(differing, 0U) << "L " << c.L << ", " << describe(grid) << ", normalise " << normalise;
      }
    }
  }
}

// The device's segment norms (deredden.cu's segment_norms: PRESTO's median of each segment's
// powers, the mean of the two middle values for an even count) against block_normalisation on the
// host, bit for bit: odd and even lengths, one value, a thread block's worth and more, ties and
// zeros, and segments that straddle bin 0 or the spectrum's end (their padding zeros counted).
TEST(CudaSegmentNorms, AreTheHostsBitForBit) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  std::mt19937_64 rng(13);
  std::uniform_int_distribution<int> part(-3, 3);
  std::normal_distribution<float> g(0.0F, 0.7F);
  cuda::Stream stream;
  for (const std::size_t length : {1U, 2U, 3U, 32U, 33U, 256U, 257U, 1024U, 1025U}) {
    for (const bool quantised : {false, true}) {
      const std::size_t K = 3 * length + 7, step = std::max<std::size_t>(length / 3, 1);
      std::vector<std::complex<float>> spectrum(K);
      for (auto& v : spectrum)
        v = quantised ? std::complex<float>(0.5F * static_cast<float>(part(rng)), static_cast<float>(part(rng)))
                      : std::complex<float>(g(rng), g(rng));
      // The bins the segments read, as the correlator gathers them: from `pad` bins before bin 0
      // to past the last bin, zeros outside.
      const std::size_t pad = length / 2 + 1, segments = (K + 2 * pad - length) / step + 1;
      const std::size_t n_bins = (segments - 1) * step + length;
      std::vector<std::complex<float>> bins(n_bins);
      for (std::size_t k = 0; k < n_bins; ++k)
        bins[k] = k >= pad && k - pad < K ? spectrum[k - pad] : std::complex<float>{};
      cuda::DeviceMemory d_bins, d_powers, d_norm;
      d_bins.reserve(n_bins * sizeof(float2));
      d_powers.reserve(n_bins * sizeof(float));
      d_norm.reserve(segments * sizeof(float));
      AS_CUDA_TRY(cudaMemcpyAsync(d_bins.as<float2>(), bins.data(), n_bins * sizeof(float2), cudaMemcpyHostToDevice,
                                  stream.get()));
      kernels::launch_bin_powers(d_bins.as<float2>(), d_powers.as<float>(), n_bins, stream.get());
      kernels::launch_segment_norms(d_powers.as<float>(), segments, step, length, true, d_norm.as<float>(),
                                    stream.get());
      std::vector<float> norm(segments);
      AS_CUDA_TRY(cudaMemcpyAsync(norm.data(), d_norm.as<float>(), segments * sizeof(float), cudaMemcpyDeviceToHost,
                                  stream.get()));
      stream.synchronize();
      for (std::size_t s = 0; s < segments; ++s) {
        const float want = block_normalisation(std::span<const std::complex<float>>(bins).subspan(s * step, length));
        EXPECT_EQ(std::bit_cast<std::uint32_t>(norm[s]), std::bit_cast<std::uint32_t>(want))
            << "length " << length << ", segment " << s << " of " << segments << ", quantised " << quantised;
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Layouts, CudaCorrelation,
                         ::testing::Values(Case{64, 5, 2, 3, 1000, 0}, Case{64, 5, 1, 4, 777, 0},
                                           Case{2048, 126, 2, 9, 20000, 0},
                                           // a budget of two templates' products: chunks and a short last one
                                           Case{2048, 126, 2, 5, 20000, 2 * 26 * 2048 * 8},
                                           Case{1024, 68, 1, 97, 5000, 0}, Case{256, 20, 2, 1, 3000, 0},
                                           // numbetween 1 (interbinned): every shared-memory length, a
                                           // cuFFT-only one, one segment, cuFFT chunks and a short last one
                                           Case{256, 20, 1, 9, 3000, 0}, Case{512, 40, 1, 8, 4000, 0},
                                           Case{2048, 126, 1, 9, 20000, 0}, Case{4096, 300, 1, 17, 30000, 0},
                                           Case{96, 7, 1, 3, 1000, 0}, Case{2048, 126, 1, 7, 1500, 0},
                                           Case{2048, 126, 1, 5, 20000, 2 * 12 * 2048 * 8},
                                           Case{512, 40, 2, 8, 4000, 0}, Case{4096, 300, 2, 17, 30000, 0},
                                           // one segment's worth of bins
                                           Case{2048, 126, 2, 7, 600, 0}));

INSTANTIATE_TEST_SUITE_P(Layouts, CudaCorrelationFromDevice,
                         ::testing::Values(Case{64, 5, 2, 3, 1000, 0}, Case{64, 5, 1, 4, 777, 0},
                                           Case{2048, 126, 2, 9, 20000, 0},
                                           Case{2048, 126, 2, 5, 20000, 2 * 26 * 2048 * 8},
                                           Case{4096, 300, 2, 17, 30000, 0}, Case{2048, 126, 2, 7, 600, 0},
                                           // segments of 16,384 bins: their medians on the host
                                           Case{32768, 126, 2, 2, 40000, 0},
                                           // numbetween 1: segments of L bins (16,384: medians on the host)
                                           Case{2048, 126, 1, 9, 20000, 0}, Case{16384, 126, 1, 2, 40000, 0}));

}  // namespace
}  // namespace astrosweep::fdas
