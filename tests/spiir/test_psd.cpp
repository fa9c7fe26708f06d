// Banks whitened by PSDs (spec §5B, §6, §7): a flat PSD equal to white data's gives the white bank;
// a detector with 4 times the PSD gets a quarter of the norm; a coloured PSD changes the filters
// and autocorrelations but not the quality of the fit; the PSD reader refuses what it cannot use.
#include <gtest/gtest.h>

#include <filesystem>

#include "bank_generation.hpp"
#include "core/error.hpp"
#include "gw_strain.hpp"

namespace astrosweep::spiir {
namespace {

constexpr double rate = 2048;

SampledPsd sampled(double scale, double knee) {
  SampledPsd p;
  for (double f = 0; f <= rate / 2; f += 0.5) {
    p.frequency.push_back(f);
    p.value.push_back(scale * 2 / rate * (knee > 0 ? 1 + (f / knee) * (f / knee) : 1.0));
  }
  return p;
}

BankSettings settings() {
  BankSettings s;
  s.f_low = 60;
  s.sample_rate = rate;
  s.n_rates = 1;
  s.ifos = {"H1", "L1"};
  return s;
}

TEST(SpiirPsd, FlatPsdsGiveTheWhiteBankAndScaleTheNorms) {
  const std::vector<Binary> binaries{{1.4, 1.4}};
  const auto white = make_spiir_bank(binaries, settings());
  auto s = settings();
  s.psds["H1"] = sampled(1, 0);  // S = 2/f_s: the white PSD itself
  s.psds["L1"] = sampled(4, 0);
  const auto flat = make_spiir_bank(binaries, s);
  EXPECT_EQ(flat.rates.front().a1, white.rates.front().a1);
  EXPECT_EQ(flat.rates.front().b0, white.rates.front().b0);
  EXPECT_NEAR(flat.sigmasq.at("H1")[0] / white.sigmasq.at("H1")[0], 1.0, 1e-12);
  EXPECT_NEAR(flat.sigmasq.at("L1")[0] / flat.sigmasq.at("H1")[0], 0.25, 1e-12);
  const auto& a = flat.autocorrelation.at("L1");
  const auto& b = white.autocorrelation.at("L1");
  for (std::size_t i = 0; i < a.size(); ++i) EXPECT_NEAR(std::abs(a[i] - b[i]), 0.0, 1e-12);
}

TEST(SpiirPsd, ColouredPsdChangesFiltersNotTheFit) {
  const std::vector<Binary> binaries{{1.4, 1.4}};
  const auto white = make_spiir_bank(binaries, settings());
  auto s = settings();
  s.psds["H1"] = sampled(1, 100);  // rising above 100 Hz: less of the merger counts
  s.psds["L1"] = sampled(1, 0);
  const auto coloured = make_spiir_bank(binaries, s);
  EXPECT_NE(coloured.rates.front().b0, white.rates.front().b0);
  EXPECT_GE(coloured.templates[0].match, 0.97);
  // The detector with the noisier high band has the smaller norm, and a broader autocorrelation.
  EXPECT_LT(coloured.sigmasq.at("H1")[0], coloured.sigmasq.at("L1")[0]);
  const std::size_t centre = coloured.autocorrelation_length / 2;
  EXPECT_GT(std::abs(coloured.autocorrelation.at("H1")[centre + 1]),
            std::abs(coloured.autocorrelation.at("L1")[centre + 1]));
}

TEST(SpiirPsd, ReaderRefusesUnusablePsds) {
  const auto path = (std::filesystem::temp_directory_path() / "spiir_test_psd.h5").string();
  DetectorStrain d;
  d.ifo = "H1";
  d.sample_rate = rate;
  d.strain.assign(16, 0.0f);
  write_gw_strain(path, {d}, {sampled(1, 0)});
  const auto psd = read_psd(path, "H1", 60, 921.6);
  EXPECT_NEAR(psd(100.25), 2 / rate, 1e-18);
  const auto refused = [&](const std::string& ifo, double f_high, const std::string& words) {
    try {
      read_psd(path, ifo, 60, f_high);
      ADD_FAILURE() << "accepted";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
    }
  };
  refused("L1", 900, "has no");
  refused("H1", 2000, "covers 0 ... 1024 Hz");
  auto bad = sampled(1, 0);
  bad.value[10] = -1;
  write_gw_strain(path, {d}, {bad});
  refused("H1", 900, "not positive");
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace astrosweep::spiir
