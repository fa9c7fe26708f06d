// SoFiA-2 parameter files as scfind reads them: a misspelt key is an error naming its file, its
// line and the key meant; a SoFiA-2 setting scfind does not implement is listed for a warning,
// unless it is SoFiA-2's default or off; the keys scfind uses are taken with where they came from.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "core/error.hpp"
#include "sofia_defaults.hpp"
#include "sofia_parameter_file.hpp"
#include "test_data.hpp"

namespace astrosweep::scfind {
namespace {

std::string write(const test::TempDir& dir, const std::string& text) {
  const std::string path = dir.path("sofia.par");
  std::ofstream(path) << text;
  return path;
}

// The UsageError reading `text` throws (fails the test when none is thrown).
std::string usage_error(const std::string& text) {
  const test::TempDir dir;
  const std::string path = write(dir, text);
  try {
    read_sofia_parameter_file(path);
  } catch (const UsageError& e) {
    const std::string message = e.what();
    EXPECT_EQ(message.rfind(path + ":", 0), 0u) << message;  // starts with FILE:LINE
    return message.substr(path.size());
  }
  ADD_FAILURE() << "no UsageError for:\n" << text;
  return {};
}

TEST(SofiaParameterFile, MisspeltKeyNamesFileLineAndTheKeyMeant) {
  EXPECT_EQ(usage_error("scfind.enable = true\n\n# the clip level\nscfind.threshhold = 3.0\n"),
            ":4: unknown parameter 'scfind.threshhold' (did you mean 'scfind.threshold'?)");
  EXPECT_EQ(usage_error("scfind.kernelsxy = 0, 3\n"),
            ":1: unknown parameter 'scfind.kernelsxy' (did you mean 'scfind.kernelsXY'?)");
  // Namespaces scfind does not implement are checked too.
  EXPECT_EQ(usage_error("linker.radiusXYZ = 2\n"),
            ":1: unknown parameter 'linker.radiusXYZ' (did you mean 'linker.radiusXY'?)");
  // Nothing near: no guess.
  EXPECT_EQ(usage_error("foo.bar = 1\n"), ":1: unknown parameter 'foo.bar'");
  // SoFiA-2 v2.0's names, renamed since.
  EXPECT_EQ(usage_error("linker.radiusSpatial = 1\n"), ":1: unknown parameter 'linker.radiusSpatial'");
}

TEST(SofiaParameterFile, UnimplementedSettingsAreListedNotRefused) {
  const test::TempDir dir;
  const std::string path = write(dir,
                                 "linker.enable = true\n"                     // taken: the linker
                                 "dilation.iterationsXY = 3\n"                // not: listed
                                 "reliability.enable = false\n"               // taken: the reliability filter
                                 "reliability.parameters = peak,sum, mean\n"  // taken
                                 "dilation.iterationsZ = 5.0\n"               // the default, written otherwise
                                 "parameter.enable = false\n"                 // taken: the catalogue
                                 "output.writeNoise = true\n"                 // listed
                                 "output.writeRawMask = true\n"               // taken: the FITS raw mask
                                 "pipeline.threads = 4\n"                     // listed: --threads is scfind's
                                 "dilation.threshold =\n");                   // empty: off
  const SofiaParameterFile file = read_sofia_parameter_file(path);
  ASSERT_EQ(file.not_implemented.size(), 3u);
  EXPECT_EQ(file.not_implemented[0], "dilation.iterationsXY = 3 (" + path + ":2)");
  EXPECT_EQ(file.not_implemented[1], "output.writeNoise = true (" + path + ":7)");
  EXPECT_EQ(file.not_implemented[2], "pipeline.threads = 4 (" + path + ":9)");
  ASSERT_EQ(file.values.size(), 5u);
  EXPECT_EQ(file.values.at("linker.enable"), "true");
  EXPECT_EQ(file.values.at("reliability.enable"), "false");
  EXPECT_EQ(file.values.at("reliability.parameters"), "peak,sum, mean");
  EXPECT_EQ(file.values.at("parameter.enable"), "false");
  EXPECT_EQ(file.values.at("output.writeRawMask"), "true");
}

TEST(SofiaParameterFile, UsedKeysAreTakenWithWhereTheyCameFrom) {
  const test::TempDir dir;
  const std::string path = write(dir, "scfind.threshold = 3.5  # lower\ninput.data = cube.fits\n");
  const SofiaParameterFile file = read_sofia_parameter_file(path);
  EXPECT_EQ(file.values.at("scfind.threshold"), "3.5");
  EXPECT_EQ(file.where.at("scfind.threshold"), path + ":1");
  EXPECT_EQ(file.values.at("input.data"), "cube.fits");
  EXPECT_TRUE(file.not_implemented.empty());
}

TEST(SofiaParameterFile, StepsThatChangeTheInputAreStillRefused) {
  EXPECT_NE(usage_error("contsub.enable = true\n").find(":1: contsub.enable = true is not supported"),
            std::string::npos);
  EXPECT_NE(usage_error("input.mask = mask.fits\n").find(":1: input.mask is not supported"), std::string::npos);
}

TEST(SofiaDefaults, ComparesValuesAsSofiaReadsThem) {
  EXPECT_TRUE(is_default_or_off("scfind.threshold", "5"));
  EXPECT_TRUE(is_default_or_off("scfind.kernelsZ", "0,3,7,15"));
  EXPECT_FALSE(is_default_or_off("scfind.kernelsZ", "0,3,7"));
  EXPECT_FALSE(is_default_or_off("linker.minSizeXY", "8"));
  EXPECT_TRUE(is_default_or_off("linker.enable", "false"));
  EXPECT_FALSE(is_default_or_off("reliability.enable", "true"));
  EXPECT_FALSE(is_default_or_off("no.such", "1"));
  EXPECT_EQ(sofia_default("scfind.fluxRange"), "negative");
  EXPECT_FALSE(sofia_default("scfind.threshhold"));
}

}  // namespace
}  // namespace astrosweep::scfind
