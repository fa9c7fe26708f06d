// The bank file (spec §5A): what is written is read back exactly; the autocorrelations are
// normalised; the reader refuses damaged and foreign files with an input error naming the file.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "bank_generation.hpp"
#include "core/error.hpp"
#include "io/h5.hpp"
#include "spiir_bank.hpp"

namespace astrosweep::spiir {
namespace {

const SpiirBank& small_bank() {
  static const SpiirBank bank = [] {
    BankSettings s;
    s.f_low = 60;
    s.sample_rate = 2048;
    s.ifos = {"H1", "L1"};
    s.autocorrelation_length = 11;
    auto b = make_spiir_bank({{1.4, 1.4}, {1.6, 1.2}}, s);
    b.command_line = "test";
    return b;
  }();
  return bank;
}

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("spiir_test_" + name + ".h5")).string();
}

TEST(SpiirBank, WrittenAndReadBackExactly) {
  const auto& bank = small_bank();
  const auto path = temp_path("roundtrip");
  write_spiir_bank(path, bank);
  const auto back = read_spiir_bank(path);
  EXPECT_EQ(back.n_templates(), 2u);
  EXPECT_EQ(back.ifos, bank.ifos);
  EXPECT_EQ(back.sample_rate_max, 2048);
  EXPECT_EQ(back.f_low, 60);
  EXPECT_EQ(back.autocorrelation_length, 11u);
  ASSERT_EQ(back.rates.size(), bank.rates.size());
  for (std::size_t r = 0; r < bank.rates.size(); ++r) {
    EXPECT_EQ(back.rates[r].rate, bank.rates[r].rate);
    EXPECT_EQ(back.rates[r].width, bank.rates[r].width);
    EXPECT_EQ(back.rates[r].a1, bank.rates[r].a1);
    EXPECT_EQ(back.rates[r].b0, bank.rates[r].b0);
    EXPECT_EQ(back.rates[r].delay, bank.rates[r].delay);
    EXPECT_EQ(back.rates[r].n_filters, bank.rates[r].n_filters);
  }
  for (std::size_t t = 0; t < 2; ++t) {
    EXPECT_EQ(back.templates[t].match, bank.templates[t].match);
    EXPECT_EQ(back.templates[t].end_offset, bank.templates[t].end_offset);
    EXPECT_GT(back.templates[t].match, 0.97);  // the spec's example requirement
  }
  EXPECT_EQ(back.sigmasq.at("L1"), bank.sigmasq.at("L1"));
  EXPECT_EQ(back.autocorrelation.at("H1"), bank.autocorrelation.at("H1"));
  // Centre = 1, |R| ≤ 1, R(−s) = conj R(s).
  const auto& ac = back.autocorrelation.at("H1");
  for (std::size_t t = 0; t < 2; ++t) {
    EXPECT_NEAR(std::abs(ac[t * 11 + 5] - 1.0), 0.0, 1e-12);
    for (std::size_t s = 0; s < 11; ++s) EXPECT_LE(std::abs(ac[t * 11 + s]), 1.0 + 1e-12);
    for (std::size_t s = 1; s <= 5; ++s)
      EXPECT_NEAR(std::abs(ac[t * 11 + 5 + s] - std::conj(ac[t * 11 + 5 - s])), 0, 1e-9);
  }
  std::filesystem::remove(path);
}

// The reader's message for `path` names it.
void expect_refused(const std::string& path, const std::string& words) {
  try {
    read_spiir_bank(path);
    ADD_FAILURE() << "accepted " << path;
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
  }
}

// Writes the small bank, lets `edit` damage it through HDF5, and returns the path.
template <class Edit>
std::string damaged(const std::string& name, Edit edit) {
  const auto path = temp_path(name);
  write_spiir_bank(path, small_bank());
  {
    h5::Id file = h5::open_file(path, h5::Access::read_write);
    edit(file.get());
    h5::close_file(file);
  }
  return path;
}

TEST(SpiirBank, RefusesDamagedAndForeignFiles) {
  expect_refused(temp_path("absent"), "does not exist");
  const auto text = temp_path("text");
  std::ofstream(text) << "not a bank\n";
  expect_refused(text, "not an HDF5 file");
  expect_refused(damaged("format", [](hid_t f) { h5::set_attribute(f, "format", std::string("astrosweep.period")); }),
                 "format");
  expect_refused(damaged("status", [](hid_t f) { h5::set_attribute(f, "status", std::string("incomplete")); }),
                 "status");
  expect_refused(damaged("version", [](hid_t f) { h5::set_attribute(f, "format_version", std::int64_t{9}); }),
                 "version 9");
  expect_refused(damaged("missing", [](hid_t f) { H5Ldelete(f, "templates/match", H5P_DEFAULT); }), "match");
  expect_refused(damaged("unstable",
                         [](hid_t f) {
                           h5::Id ds = h5::open_dataset(f, "rates/2048/a1");
                           const double one[2] = {1.0, 0.0};
                           h5::write_hyperslab(ds.get(), H5T_NATIVE_DOUBLE, {0, 0, 0}, {1, 1, 2}, one);
                         }),
                 "stable");
  expect_refused(damaged("rate", [](hid_t f) { H5Lmove(f, "rates/2048", f, "rates/2000", H5P_DEFAULT, H5P_DEFAULT); }),
                 "power of two");
  // Cut in half, as an interrupted copy leaves it.
  const auto cut = temp_path("truncated");
  write_spiir_bank(cut, small_bank());
  std::string bytes;
  {
    std::ifstream in(cut, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  std::ofstream(cut, std::ios::binary | std::ios::trunc) << bytes.substr(0, bytes.size() / 2);
  expect_refused(cut, "");
}

}  // namespace
}  // namespace astrosweep::spiir
