// The fdas job's options: PRESTO's defaults, every bad value refused with a usage error naming
// the option, a birdie file's bad line named by FILE:LINE.
#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "fdas_options.hpp"
#include "test_data.hpp"

namespace astrosweep::fdas {
namespace {

std::vector<std::string> with(std::vector<std::string> more) {
  std::vector<std::string> args{"-i", "beam.tim", "-o", "out.h5"};
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

void write_text(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

ExitCode code_of(const std::vector<std::string>& args, std::string* message = nullptr) {
  try {
    (void)parse_fdas_options(args, MPI_COMM_SELF);
  } catch (const Error& e) {
    if (message) *message = e.what();
    return e.code();
  }
  return ExitCode::ok;
}

TEST(FdasOptions, DefaultsArePrestos) {
  const auto o = parse_fdas_options(with({}), MPI_COMM_SELF);
  ASSERT_TRUE(o);
  EXPECT_EQ(o->z_max, 200.0);
  EXPECT_EQ(o->numharm, 8);
  EXPECT_EQ(o->numbetween, 2);
  EXPECT_EQ(o->sigma_min, 2.0);
  EXPECT_EQ(o->f_lo, 1.0);
  EXPECT_EQ(o->f_hi, 10000.0);
  EXPECT_EQ(o->normalisation, Normalisation::deredden);
  EXPECT_EQ(o->max_candidates, 2000U);
  EXPECT_EQ(o->accuracy, Accuracy::low);
  EXPECT_EQ(o->output, "out.h5");
  EXPECT_FALSE(o->command_line.empty());
  const auto k =
      parse_fdas_options(with({"--norm", "known-variance", "--variance", "2.5", "--zmax", "96"}), MPI_COMM_SELF);
  EXPECT_EQ(k->normalisation, Normalisation::known_variance);
  EXPECT_EQ(k->known_variance, 2.5);
  EXPECT_EQ(k->z_max, 96.0);
  // numbetween 1: the half bins interbinned (spec §5).
  EXPECT_EQ(parse_fdas_options(with({"--numbetween", "1"}), MPI_COMM_SELF)->numbetween, 1);
}

TEST(FdasOptions, BadValuesAreUsageErrorsNamingTheOption) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases{
      {{"--zmax", "-2"}, "--zmax"},
      {{"--zmax", "1202"}, "--zmax"},
      {{"--numharm", "3"}, "--numharm"},
      {{"--numharm", "64"}, "--numharm"},
      {{"--numbetween", "0"}, "--numbetween"},
      {{"--numbetween", "3"}, "--numbetween"},
      {{"--sigma", "0"}, "--sigma"},
      {{"--flo", "5", "--fhi", "5"}, "--flo"},
      {{"--norm", "median"}, "--norm"},
      {{"--norm", "known-variance"}, "--variance"},
      {{"--max-candidates", "0"}, "--max-candidates"},
      {{"--accuracy", "best"}, "--accuracy"},
      {{"--fft-length", "-1"}, "--fft-length"},
      {{"--zmax", "lots"}, "zmax"},
      {{"--resume", "--overwrite"}, "--resume"}};
  for (const auto& [args, option] : cases) {
    std::string message;
    EXPECT_EQ(code_of(with(args), &message), ExitCode::usage) << args.front();
    EXPECT_NE(message.find(option), std::string::npos) << message;
  }
  EXPECT_EQ(code_of({"-o", "out.h5"}), ExitCode::usage);    // no input
  EXPECT_EQ(code_of({"-i", "beam.tim"}), ExitCode::usage);  // no output
}

TEST(FdasOptions, BirdieFilesAreReadAndTheirBadLinesNamed) {
  test::TempDir dir;
  write_text(dir.path("good.txt"), "# f width\n50.0 1.0\n\n 60 0.5  # mains harmonic\n");
  const auto birdies = read_birdies(dir.path("good.txt"));
  ASSERT_EQ(birdies.size(), 2U);
  EXPECT_EQ(birdies[1].frequency, 60.0);
  EXPECT_EQ(birdies[1].width, 0.5);
  write_text(dir.path("bad.txt"), "50.0 1.0\n60 wide\n");
  try {
    (void)read_birdies(dir.path("bad.txt"));
    FAIL() << "a bad line was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("bad.txt:2"), std::string::npos) << e.what();
  }
  EXPECT_THROW(read_birdies(dir.path("missing.txt")), InputError);
  EXPECT_EQ(code_of(with({"--birdies", dir.path("bad.txt")})), ExitCode::input);
}

}  // namespace
}  // namespace astrosweep::fdas
