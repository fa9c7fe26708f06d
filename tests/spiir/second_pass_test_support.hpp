#pragma once
// What the second pass's batch tests share (test_coherent_second_pass.cpp on the CPU,
// test_coherent_second_pass_cuda.cpp on a GPU): banks of random filters whose templates have very
// different filter counts (one warp to the CUDA kernel's eight), single- and multi-rate, and a
// template's SNRs filtered in a batch against the same template filtered alone, bit for bit.
#include <gtest/gtest.h>

#include <complex>
#include <cstdint>
#include <functional>
#include <memory>
#include <random>
#include <vector>

#include "coherent_second_pass.hpp"
#include "filter_test_support.hpp"
#include "spiir_backend.hpp"

namespace astrosweep::spiir::second_pass_test {

using Maker = std::function<std::unique_ptr<SpiirBackend>(const RateBank&)>;

/// Filters per template at the top rate (and, multi-rate, at half the rate): 5 to 1000, so that a
/// template's neighbours in a batch have other counts (on the GPU: 1, 2, 3 and 8 warps).
inline const std::vector<std::size_t> top_counts = {40, 300, 129, 1000, 5, 64};
inline const std::vector<std::size_t> half_counts = {20, 0, 200, 7, 90, 33};

/// A bank of random filters (filter_test_support.hpp) at 2048 Hz, or multi-rate: 2048 and 1024 Hz.
inline SpiirBank random_spiir_bank(bool multirate, unsigned seed) {
  std::mt19937_64 rng(seed);
  SpiirBank bank;
  bank.sample_rate_max = 2048;
  const auto rate = [&](std::int64_t hz, const std::vector<std::size_t>& counts) {
    std::vector<std::vector<IirFilter>> per_template;
    for (const std::size_t c : counts) per_template.push_back(random_filters(rng, c, 200));
    return RateBank::pack(hz, per_template);
  };
  bank.rates.push_back(rate(2048, top_counts));
  if (multirate) bank.rates.push_back(rate(1024, half_counts));
  bank.templates.resize(top_counts.size());
  for (std::size_t t = 0; t < bank.templates.size(); ++t) bank.templates[t].mass1 = 1.0 + static_cast<double>(t);
  return bank;
}

/// Template-major SNRs of `templates` over output samples [first, end) of x, through filter_batch
/// in chunks of 700 samples (a chunk that is no multiple of the stream's, rounded by it).
inline std::vector<std::complex<double>> batch_snr(const SpiirBank& bank, const std::vector<std::size_t>& templates,
                                                   const std::vector<double>& x, std::size_t first, std::size_t end,
                                                   const Maker& make) {
  const std::size_t n = end - first;
  std::vector<std::complex<double>> out(templates.size() * n);
  filter_batch(bank, templates, x, first, end, 700, make,
               [&](std::size_t c, std::size_t m, std::span<const std::complex<double>> z) {
                 EXPECT_EQ(z.size(), templates.size() * m);
                 for (std::size_t r = 0; r < templates.size(); ++r)
                   for (std::size_t i = 0; i < m; ++i) out[r * n + (c - first) + i] = z[r * m + i];
               });
  return out;
}

/// Every template of `bank` filtered in batches of every kind (all of them, in another order,
/// with other neighbours, duplicated) gives the bits of that template filtered alone.
inline void expect_batches_bit_identical(const SpiirBank& bank, const Maker& make) {
  const std::vector<double> x = white_noise(6000, 31);
  const std::size_t first = 512, end = 512 + 4096;
  const std::size_t n = end - first;
  std::vector<std::vector<std::complex<double>>> alone;
  for (std::size_t t = 0; t < bank.n_templates(); ++t) alone.push_back(batch_snr(bank, {t}, x, first, end, make));
  const std::vector<std::vector<std::size_t>> batches = {
      {0, 1, 2, 3, 4, 5}, {5, 3, 1, 4, 0, 2}, {3, 0}, {4, 1, 3}, {2, 2, 5}};
  for (const auto& batch : batches) {
    const auto z = batch_snr(bank, batch, x, first, end, make);
    for (std::size_t r = 0; r < batch.size(); ++r) {
      const auto& want = alone[batch[r]];
      std::size_t differ = 0;
      for (std::size_t i = 0; i < n; ++i) differ += z[r * n + i] != want[i] ? 1 : 0;
      EXPECT_EQ(differ, 0u) << "template " << batch[r] << " in row " << r << " of a batch of " << batch.size();
    }
  }
  // Not trivially so: the templates' SNRs differ from each other, and are not zero.
  EXPECT_NE(alone[0], alone[1]);
  EXPECT_NE(std::abs(alone[3][n - 1]), 0.0);
}

}  // namespace astrosweep::spiir::second_pass_test
