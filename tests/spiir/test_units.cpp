// The spiir job's work units (spiir_units.hpp, spiir_spool.hpp): peaks merged from any split of
// the bank into template blocks and of the samples into ranges equal chunk_peaks over the whole
// bank (the oracle), ties included; the spool gives back what was appended and stops at a cut record.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <vector>

#include "chunk_peaks.hpp"
#include "spiir_spool.hpp"
#include "spiir_units.hpp"

namespace astrosweep::spiir {
namespace {

// |z| drawn from few values so that ties (between templates and between samples) are common.
std::vector<std::complex<double>> tied_snr(std::size_t n_templates, std::size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<std::complex<double>> z(n_templates * n);
  for (auto& v : z) v = std::polar(static_cast<double>(rng() % 12), 0.01 * static_cast<double>(rng() % 600));
  return z;
}

TEST(SpiirUnits, MergedPeaksEqualChunkPeaksForAnySplit) {
  const std::size_t nt = 7, n = 300, chunk = 64;
  const double threshold = 4.0;
  for (unsigned seed = 1; seed <= 5; ++seed) {
    const auto z = tied_snr(nt, n, seed);
    std::vector<bool> usable(n, true);
    for (std::size_t i = 0; i < n; i += 13) usable[i] = false;
    // The oracle: one process, chunk by chunk over the whole bank.
    std::vector<SampleBest> expected;
    for (std::size_t first = 0; first < n; first += chunk) {
      const std::size_t m = std::min(chunk, n - first);
      std::vector<std::complex<double>> zc(nt * m);
      for (std::size_t t = 0; t < nt; ++t)
        for (std::size_t i = 0; i < m; ++i) zc[t * m + i] = z[t * n + first + i];
      const std::vector<bool> uc(usable.begin() + static_cast<std::ptrdiff_t>(first),
                                 usable.begin() + static_cast<std::ptrdiff_t>(first + m));
      for (const auto& p : chunk_peaks(zc, nt, m, uc, threshold))
        expected.push_back(
            {static_cast<std::int64_t>(first + p.sample), static_cast<std::int32_t>(p.template_index), p.z});
    }
    ASSERT_FALSE(expected.empty());
    for (std::size_t block : {1u, 2u, 3u, 7u})
      for (std::size_t range : {1u, 50u, 64u, 300u}) {
        std::vector<SampleBest> samples;
        for (std::size_t t0 = 0; t0 < nt; t0 += block)
          for (std::size_t s0 = 0; s0 < n; s0 += range) {
            const std::size_t bt = std::min(block, nt - t0), m = std::min(range, n - s0);
            std::vector<std::complex<double>> zc(bt * m);
            for (std::size_t t = 0; t < bt; ++t)
              for (std::size_t i = 0; i < m; ++i) zc[t * m + i] = z[(t0 + t) * n + s0 + i];
            const std::vector<bool> uc(usable.begin() + static_cast<std::ptrdiff_t>(s0),
                                       usable.begin() + static_cast<std::ptrdiff_t>(s0 + m));
            append_sample_best(zc, bt, m, uc, threshold, static_cast<std::int64_t>(s0), t0, samples);
          }
        const auto got = merged_peaks(samples, chunk, threshold);
        ASSERT_EQ(got.size(), expected.size()) << "seed " << seed << " block " << block << " range " << range;
        for (std::size_t i = 0; i < got.size(); ++i) {
          EXPECT_EQ(got[i].sample, expected[i].sample) << i;
          EXPECT_EQ(got[i].template_index, expected[i].template_index) << i;
          EXPECT_EQ(got[i].z, expected[i].z) << i;
        }
      }
  }
}

TEST(SpiirUnits, GridCoversEverySampleAndTemplateOnce) {
  UnitGrid g{5, 2, 128, 1000};
  EXPECT_EQ(g.n_blocks(), 3u);
  EXPECT_EQ(g.n_ranges(), 8u);
  std::vector<int> covered(5 * 1000, 0);
  for (std::size_t u = 0; u < g.n_units(); ++u)
    for (std::size_t t = g.first_template(u); t < g.first_template(u) + g.n_unit_templates(u); ++t)
      for (std::size_t s = g.first_sample(u); s < g.first_sample(u) + g.n_unit_samples(u); ++s) ++covered[t * 1000 + s];
  for (int c : covered) EXPECT_EQ(c, 1);
}

TEST(SpiirSpool, RecordsComeBackAndACutRecordEndsTheFile) {
  const std::string dir = ::testing::TempDir() + "/spiir_units_spool.h5.spool";
  remove_spiir_spool(dir);
  const UnitSamples a{{{5, 1, {1.5, -2}}, {9, 0, {3, 4}}}, {}};
  const UnitSamples b{{}, {{70, 2, {-1, 0.25}}}};
  {
    SpiirSpoolWriter w(dir, next_spiir_spool_attempt(dir), 0);
    w.append(3, a);
    w.append(4, b);
    w.sync();
  }
  auto c = read_spiir_spool(dir, 2);
  ASSERT_EQ(c.units.size(), 2u);
  EXPECT_TRUE(c.notes.empty());
  ASSERT_EQ(c.units.at(3)[0].size(), 2u);
  EXPECT_EQ(c.units.at(3)[0][1].sample, 9);
  EXPECT_EQ(c.units.at(3)[0][1].z, std::complex<double>(3, 4));
  EXPECT_EQ(c.units.at(4)[1][0].template_index, 2);
  // A kill while the second record was written: the first survives, the cut is noted.
  const auto file = std::filesystem::directory_iterator(dir)->path();
  std::filesystem::resize_file(file, std::filesystem::file_size(file) - 5);
  c = read_spiir_spool(dir, 2);
  EXPECT_EQ(c.units.size(), 1u);
  EXPECT_EQ(c.notes.size(), 1u);
  EXPECT_EQ(next_spiir_spool_attempt(dir), 2);
  remove_spiir_spool(dir);
  EXPECT_FALSE(std::filesystem::exists(dir));
}

}  // namespace
}  // namespace astrosweep::spiir
