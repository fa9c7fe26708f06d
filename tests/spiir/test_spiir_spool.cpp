// spiir's spool (spiir_spool.hpp) over the shared one: a spool written by spiir's own code before it
// was shared (tests/data/spool, its README) is read, and the same records written now give those
// files byte for byte (the names now zero-padded as fdas's; the old names are still read).
#include <gtest/gtest.h>

#include <filesystem>

#include "core/error.hpp"
#include "spiir_spool.hpp"
#include "test_data.hpp"

namespace astrosweep::spiir {
namespace {

namespace fs = std::filesystem;

const std::string written_before = test::data_path("spool/spiir.h5.spool");

TEST(SpiirSpoolFormat, ASpoolWrittenBeforeTheSharedSpoolIsRead) {
  const SpiirSpoolContents c = read_spiir_spool(written_before, 2);
  EXPECT_TRUE(c.notes.empty());
  ASSERT_EQ(c.units.size(), 3u);
  ASSERT_EQ(c.units.at(3).size(), 2u);
  ASSERT_EQ(c.units.at(3)[0].size(), 2u);
  EXPECT_EQ(c.units.at(3)[0][0].sample, 5);
  EXPECT_EQ(c.units.at(3)[0][0].template_index, 1);
  EXPECT_EQ(c.units.at(3)[0][0].z, std::complex<double>(1.5, -2));
  EXPECT_TRUE(c.units.at(3)[1].empty());
  EXPECT_EQ(c.units.at(4)[1].at(0).sample, 70);
  EXPECT_EQ(c.units.at(5)[0].at(0).sample, -3);
  EXPECT_EQ(c.units.at(5)[0].at(0).z, std::complex<double>(0.125, 1e300));
  EXPECT_EQ(c.units.at(5)[1].at(0).template_index, 0);
  EXPECT_EQ(next_spiir_spool_attempt(written_before), 3);
}

TEST(SpiirSpoolFormat, WritesTheSameBytesAsBefore) {
  const fs::path dir = test::scratch_directory("spiir_spool") / "spiir.h5.spool";
  {
    SpiirSpoolWriter a(dir.string(), 1, 0);
    a.append(3, {{{5, 1, {1.5, -2}}, {9, 0, {3, 4}}}, {}});
    a.append(4, {{}, {{70, 2, {-1, 0.25}}}});
    a.sync();
    SpiirSpoolWriter b(dir.string(), 2, 1);
    b.append(5, {{{-3, 7, {0.125, 1e300}}}, {{11, 0, {0, -0.0}}}});
    b.sync();
  }
  EXPECT_EQ(test::file_bytes(dir / "attempt-0001.rank-00000.bin"),
            test::file_bytes(written_before + "/attempt-1.rank-0.bin"));
  EXPECT_EQ(test::file_bytes(dir / "attempt-0002.rank-00001.bin"),
            test::file_bytes(written_before + "/attempt-2.rank-1.bin"));
  fs::remove_all(dir.parent_path());
}

// A record whose hash holds but which does not hold the run's detectors: a spool of another run.
TEST(SpiirSpoolFormat, ARecordOfOtherDetectorsIsRefused) {
  try {
    read_spiir_spool(written_before, 3);
    ADD_FAILURE() << "read";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("attempt-1.rank-0.bin': the record of unit 3 does not hold 3 detectors'"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace astrosweep::spiir
