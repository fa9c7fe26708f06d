// The spectrum's normalisation on the device against the CPU's (jobs/fdas/spectrum.cpp), bit for
// bit: the dereddening (powers, PRESTO's block medians, the level ramps, the division by √level)
// over spectra of 2^k bins, smooth lengths, tiny ones (2, 7, 64 bins) and every length up to 400
// (where the last block ends short of the spectrum by every amount), on red noise, on powers with
// ties and exact zeros; the known variance's factor; the birdies' zeros; and the whole chain from
// samples (cuFFT's raw spectrum, then the normalisations on the device) against the same raw
// spectrum normalised on the host. Skipped without a GPU.
#include <gtest/gtest.h>

#include <bit>
#include <complex>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "device.hpp"
#include "spectrum.hpp"
#include "spectrum_cuda.hpp"

namespace astrosweep::fdas {
namespace {

using Spectrum = std::vector<std::complex<float>>;

// Red noise (an AR(1) series' spectrum): the levels change from block to block.
std::vector<float> red_series(std::size_t n, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> g;
  std::vector<float> x(n);
  for (std::size_t i = 0; i < n; ++i) x[i] = g(rng) + (i > 0 ? 0.9F * x[i - 1] : 0.0F);
  return x;
}

// A spectrum of K bins with few distinct parts (many equal powers: ties in every median) and
// some bins exactly zero (powers 0, and -0 parts whose sign the scaling must keep).
Spectrum quantised_spectrum(std::size_t K, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> part(-3, 3);
  Spectrum f(K);
  for (auto& v : f) v = {static_cast<float>(part(rng)) * 0.5F, part(rng) == 0 ? -0.0F : static_cast<float>(part(rng))};
  if (K > 0) f[0] = 1;
  return f;
}

std::size_t differing_bins(const Spectrum& a, const Spectrum& b) {
  if (a.size() != b.size()) return std::max(a.size(), b.size());
  std::size_t n = 0;
  for (std::size_t k = 0; k < a.size(); ++k)
    n += std::bit_cast<std::uint64_t>(a[k]) != std::bit_cast<std::uint64_t>(b[k]) ? 1 : 0;
  return n;
}

Spectrum dereddened_on_host(Spectrum f) {
  deredden(f, 2);
  return f;
}

class SpectrumCuda : public ::testing::Test {
 protected:
  void SetUp() override {
    if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  }
};

TEST_F(SpectrumCuda, DereddeningIsTheHostsBitForBit) {
  for (const std::size_t n :
       {std::size_t{1} << 21, std::size_t{1} << 16, std::size_t{3 * 5 * 7 * 1024}, std::size_t{100'000},
        std::size_t{2 * 3 * 3 * 5 * 7 * 7}, std::size_t{128}, std::size_t{14}, std::size_t{4}}) {
    const Spectrum raw = raw_spectrum(red_series(n, 3), n);
    EXPECT_EQ(differing_bins(kernels::deredden_cuda(raw), dereddened_on_host(raw)), 0U) << n / 2 << " bins";
  }
}

TEST_F(SpectrumCuda, DereddeningMatchesAtEveryShortLengthWithTiesAndZeros) {
  // Lengths 0 … 400: too short for a block (≤ 6), one block, the last block short of the end by
  // every amount, the first ramps; and a long one with ties in every block.
  for (std::size_t K = 0; K <= 400; ++K) {
    const Spectrum f = quantised_spectrum(K, static_cast<unsigned>(K));
    ASSERT_EQ(differing_bins(kernels::deredden_cuda(f), dereddened_on_host(f)), 0U) << K << " bins";
  }
  const Spectrum f = quantised_spectrum(300'007, 1);
  EXPECT_EQ(differing_bins(kernels::deredden_cuda(f), dereddened_on_host(f)), 0U);
}

TEST_F(SpectrumCuda, TheChainFromSamplesIsTheHostsOnTheDevicesRawSpectrum) {
  // cuFFT's raw spectrum differs from FFTW's by float ulps, so the host normalises the device's
  // raw spectrum: what stays on the device must then be that, bit for bit, for each normalisation.
  const std::size_t n = 100'000, n_fft = good_fft_length(n);
  const std::vector<float> x = red_series(n, 8);
  const double span = static_cast<double>(n_fft) * 64e-6;
  const std::vector<Birdie> birdies = {{50.0, 1.0}, {0.0, 0.2}, {7000.0, 3.0}, {1e6, 1.0}};
  const auto ranges = birdie_bins(birdies, span, n_fft / 2);
  for (const int kind : {0, 1, 2}) {
    kernels::CudaSpectrum device;
    const Spectrum raw = device.transform(x, n_fft);
    Spectrum expected = raw;
    device.transform_on_device(x, n_fft);
    if (kind == 0) {
      deredden(expected, 2);
      device.deredden();
    } else if (kind == 1) {
      normalise_known_variance(expected, n, 4.0);
      device.scale(known_variance_factor(n, 4.0));
    }
    zap_birdies(expected, birdies, span);
    device.zero(ranges);
    const auto on_device = device.on_device();
    EXPECT_EQ(on_device.size, n_fft / 2);
    device.download();
    const auto copy = device.host_copy();
    EXPECT_EQ(differing_bins(Spectrum(copy.begin(), copy.end()), expected), 0U) << "normalisation " << kind;
    EXPECT_EQ(copy[0], std::complex<float>(1.0F));
    EXPECT_EQ(copy[ranges.front().first], std::complex<float>{});
  }
}

}  // namespace
}  // namespace astrosweep::fdas
