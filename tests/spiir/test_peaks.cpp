// The single-detector peak selection of spec §9 on hand-made SNRs: per sample the loudest template,
// per template the loudest of the samples it won, kept above the threshold; unusable samples skipped.
#include <gtest/gtest.h>

#include <complex>
#include <vector>

#include "chunk_peaks.hpp"

namespace astrosweep::spiir {
namespace {

TEST(ChunkPeaks, LoudestTemplatePerSampleThenPerTemplate) {
  // 3 templates × 6 samples (|z| given; phases vary). Winners per sample: t0, t1, t1, t2, t0, t0.
  const std::vector<double> magnitude = {
      9, 1, 1, 1, 7, 5,  // t0: wins samples 0, 4, 5 → its peak is sample 0 (9)
      2, 8, 9, 1, 1, 1,  // t1: wins 1, 2 → sample 2 (9); its 8 at sample 1 is not a peak
      3, 3, 3, 6, 2, 2,  // t2: wins 3 → sample 3 (6)
  };
  std::vector<std::complex<double>> z(magnitude.size());
  for (std::size_t i = 0; i < z.size(); ++i) z[i] = std::polar(magnitude[i], 0.1 * static_cast<double>(i));
  const std::vector<bool> usable(6, true);
  const auto peaks = chunk_peaks(z, 3, 6, usable, 4.0);
  ASSERT_EQ(peaks.size(), 3u);
  EXPECT_EQ(peaks[0].template_index, 0u);
  EXPECT_EQ(peaks[0].sample, 0u);
  EXPECT_EQ(peaks[1].template_index, 1u);
  EXPECT_EQ(peaks[1].sample, 2u);
  EXPECT_EQ(peaks[2].template_index, 2u);
  EXPECT_EQ(peaks[2].sample, 3u);
  EXPECT_EQ(peaks[1].z, z[1 * 6 + 2]);  // the complex SNR as filtered
  // Threshold 6.5: t2's 6 goes; a template that wins nowhere has no peak either.
  EXPECT_EQ(chunk_peaks(z, 3, 6, usable, 6.5).size(), 2u);
}

TEST(ChunkPeaks, UnusableSamplesAndTies) {
  std::vector<std::complex<double>> z = {5, 9, 5, 5,   // t0
                                         5, 1, 1, 5};  // t1
  // Sample 1 unusable: t0's 9 is not seen. Samples 0 and 3 tie (5 = 5): the lower template wins,
  // so t0 wins 0, 2 and 3, all at 5, and its peak is the earliest; t1 wins nothing, has no peak.
  const std::vector<bool> usable = {true, false, true, true};
  const auto peaks = chunk_peaks(z, 2, 4, usable, 4.0);
  ASSERT_EQ(peaks.size(), 1u);
  EXPECT_EQ(peaks[0].template_index, 0u);
  EXPECT_EQ(peaks[0].sample, 0u);
  EXPECT_TRUE(chunk_peaks(z, 2, 4, std::vector<bool>(4, false), 0.0).empty());
}

}  // namespace
}  // namespace astrosweep::spiir
