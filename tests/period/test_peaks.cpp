// Peak selection from chunked periodograms: independent of chunking, plateaus resolve like
// numpy's argmax, edges count, and kept peaks are distinct.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "peaks.hpp"

namespace astrosweep::period {
namespace {

PeakSelection select_chunked(const std::vector<double>& p, std::size_t chunk, int k, double sep,
                             const FrequencyGrid& g) {
  std::vector<ChunkPeaks> chunks;
  for (std::size_t k0 = 0; k0 < p.size(); k0 += chunk) {
    const std::size_t n = std::min(chunk, p.size() - k0);
    chunks.push_back(summarize_chunk<double>(k0, std::span<const double>(p.data() + k0, n), candidates_per_chunk(k)));
  }
  return select_peaks(chunks, g, k, sep);
}

TEST(Peaks, IndependentOfChunkSize) {
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> u(0, 1);
  std::vector<double> p(5000);
  for (auto& v : p) v = u(rng);
  const FrequencyGrid g{1.0, 0.01, p.size()};
  const auto whole = select_chunked(p, p.size(), 5, 0.05, g);
  for (std::size_t chunk : {1u, 2u, 3u, 31u, 32u, 33u, 1000u, 4999u}) {
    const auto part = select_chunked(p, chunk, 5, 0.05, g);
    EXPECT_EQ(part.best.index, whole.best.index) << chunk;
    ASSERT_EQ(part.peaks.size(), whole.peaks.size()) << chunk;
    for (std::size_t i = 0; i < part.peaks.size(); ++i) EXPECT_EQ(part.peaks[i].index, whole.peaks[i].index) << chunk;
  }
  EXPECT_EQ(whole.best.index, static_cast<std::uint64_t>(std::max_element(p.begin(), p.end()) - p.begin()));
}

TEST(Peaks, PlateauTakesFirstIndexAndEdgesCount) {
  const FrequencyGrid g{1.0, 1.0, 7};
  const std::vector<double> p{5, 1, 3, 3, 1, 2, 4};
  const auto sel = select_chunked(p, 2, 3, 0.0, g);
  EXPECT_EQ(sel.best.index, 0u);
  ASSERT_EQ(sel.peaks.size(), 3u);
  EXPECT_EQ(sel.peaks[1].index, 6u);  // right edge
  EXPECT_EQ(sel.peaks[2].index, 2u);  // first of the plateau
}

TEST(Peaks, KeptPeaksAreSeparated) {
  const FrequencyGrid g{1.0, 0.1, 9};
  const std::vector<double> p{0, 9, 0, 8, 0, 7, 0, 6, 0};
  const auto sel = select_chunked(p, 4, 3, 0.35, g);  // 0.2 apart are too close
  ASSERT_EQ(sel.peaks.size(), 2u);
  EXPECT_EQ(sel.peaks[0].index, 1u);
  EXPECT_EQ(sel.peaks[1].index, 5u);
}

TEST(Peaks, SingleValueAndFewerPeaksThanAsked) {
  const FrequencyGrid g{1.0, 0.1, 1};
  const auto sel = select_chunked({0.5}, 1, 4, 0.0, g);
  EXPECT_EQ(sel.best.index, 0u);
  EXPECT_EQ(sel.peaks.size(), 1u);
}

}  // namespace
}  // namespace astrosweep::period
