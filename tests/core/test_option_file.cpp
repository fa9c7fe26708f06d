// Parameter files of command-line options (period --config): values are stored unless the command
// line gave them, and every mistake names FILE:LINE; a misspelt name gets the nearest option's.
#include <gtest/gtest.h>

#include <boost/program_options.hpp>
#include <fstream>
#include <string>

#include "core/error.hpp"
#include "core/option_file.hpp"
#include "test_data.hpp"

namespace astrosweep {
namespace {

namespace po = boost::program_options;

po::options_description options() {
  po::options_description d("test");
  d.add_options()("fmin", po::value<double>(), "")("n-freq", po::value<std::string>(), "")(
      "model", po::value<std::string>()->default_value("generalized"), "")("periodograms", po::bool_switch(), "")(
      "config", po::value<std::string>(), "")("help,h", "");
  return d;
}

struct Read {
  po::variables_map vm;
  std::map<std::string, std::string> where;
  std::string path;
};

Read read(const test::TempDir& dir, const std::string& text, const std::vector<std::string>& command_line = {}) {
  Read r;
  r.path = dir.path("run.conf");
  std::ofstream(r.path) << text;
  const auto d = options();
  po::store(po::command_line_parser(command_line).options(d).run(), r.vm);
  r.where = store_option_file(r.path, d, r.vm);
  return r;
}

// The message of the `Expected` error reading `text` throws, after its "FILE" prefix.
template <class Expected>
std::string error(const std::string& text) {
  const test::TempDir dir;
  try {
    read(dir, text);
  } catch (const Expected& e) {
    const std::string message = e.what();
    const std::string path = dir.path("run.conf");
    EXPECT_EQ(message.rfind(path + ":", 0), 0u) << message;
    return message.substr(path.size());
  }
  ADD_FAILURE() << "no error for:\n" << text;
  return {};
}

TEST(OptionFile, StoresValuesTheCommandLineDidNotGive) {
  const test::TempDir dir;
  const Read r = read(dir, "# a run\nfmin = 0.5   # 1/day\nmodel = standard\nperiodograms = true\nn-freq = 1e5\n",
                      {"--fmin", "2"});
  EXPECT_EQ(r.vm["fmin"].as<double>(), 2.0);  // the command line wins
  EXPECT_EQ(r.vm["model"].as<std::string>(), "standard");
  EXPECT_TRUE(r.vm["periodograms"].as<bool>());
  EXPECT_EQ(r.vm["n-freq"].as<std::string>(), "1e5");
  EXPECT_EQ(r.where.count("fmin"), 0u);
  EXPECT_EQ(r.where.at("model"), r.path + ":3");
  EXPECT_EQ(r.where.at("n-freq"), r.path + ":5");
}

TEST(OptionFile, MisspeltNameNamesFileLineAndTheOptionMeant) {
  EXPECT_EQ(error<UsageError>("model = standard\nfmni = 0.5\n"), ":2: unknown option 'fmni' (did you mean 'fmin'?)");
  EXPECT_EQ(error<UsageError>("n-freqs = 10\n"), ":1: unknown option 'n-freqs' (did you mean 'n-freq'?)");
  EXPECT_EQ(error<UsageError>("frequency-max = 3\n"), ":1: unknown option 'frequency-max'");
  EXPECT_EQ(error<UsageError>("config = other.conf\n"), ":1: 'config' cannot be set in a parameter file");
}

TEST(OptionFile, OtherMistakesNameFileAndLine) {
  EXPECT_EQ(error<UsageError>("model = a\n\nmodel = b\n"), ":3: 'model' is given twice (first on line 1)");
  EXPECT_EQ(error<UsageError>("fmin = low\n"), ":1: the argument ('low') for option 'fmin' is invalid");
  EXPECT_EQ(error<InputError>("fmin 0.5\n"), ":1: expected 'name = value', found 'fmin 0.5'");
  EXPECT_EQ(error<InputError>("= 0.5\n"), ":1: expected 'name = value', found '= 0.5'");
}

TEST(OptionFile, LocatesMessagesAboutItsValues) {
  const std::map<std::string, std::string> where{{"top-k", "run.conf:4"}, {"n-freq", "run.conf:2"}};
  EXPECT_EQ(option_file_location("--top-k must be between 1 and 1000", where), "run.conf:4");
  EXPECT_EQ(option_file_location("--n-freq needs a whole number, got 'x'", where), "run.conf:2");
  EXPECT_EQ(option_file_location("--top-kk is something else", where), "");
  EXPECT_EQ(option_file_location("fmin must be smaller than fmax", where), "");
}

}  // namespace
}  // namespace astrosweep
