// fdas's spool (fdas_spool.hpp) over the shared one: a spool written by fdas's own code before it
// was shared (tests/data/spool, its README) is read, the highest attempt's record kept for a series
// found twice, and the same records written now give those files byte for byte.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>

#include "core/error.hpp"
#include "fdas_spool.hpp"
#include "test_data.hpp"

namespace astrosweep::fdas {
namespace {

namespace fs = std::filesystem;

// Zeroed first, as the program that wrote the committed files did: the rows' padding is written too.
template <class T>
T zeroed() {
  T t;
  std::memset(static_cast<void*>(&t), 0, sizeof t);
  return t;
}

// The records tests/data/spool/README.md's program wrote.
SeriesRecord series(std::uint64_t s, int n_cand, int n_harm, double base) {
  SeriesRecord r;
  r.series = zeroed<SeriesRow>();
  r.series.series = s;
  r.series.dm = base;
  r.series.tsamp = 6.4e-5;
  r.series.n_samples = 1024 + s;
  r.series.n_candidates = static_cast<std::uint32_t>(n_cand);
  r.series.n_stages = 2;
  r.series.powcut[1] = 3.5f;
  r.series.n_indep[0] = -7;
  for (int i = 0; i < n_cand; ++i) {
    auto c = zeroed<CandidateRow>();
    c.series = s;
    c.number = i + 1;
    c.numharm = 2;
    c.sigma = base + i;
    c.r = 100.25 * (i + 1);
    c.z = -2.5;
    c.notes = to_notes_text("cand" + std::to_string(i));
    r.candidates.push_back(c);
  }
  for (int i = 0; i < n_harm; ++i) {
    auto h = zeroed<HarmonicRow>();
    h.series = s;
    h.number = 1;
    h.harmonic = i + 1;
    h.power = base * (i + 1);
    h.phase_deg = 90;
    r.harmonics.push_back(h);
  }
  return r;
}

const std::string written_before = test::data_path("spool/fdas.h5.spool");

TEST(FdasSpool, ASpoolWrittenBeforeTheSharedSpoolIsRead) {
  const SpoolContents c = read_spool(written_before);
  EXPECT_TRUE(c.notes.empty());
  ASSERT_EQ(c.records.size(), 3u);
  // Series 0 was written by attempts 1 and 2: the second is kept.
  const SeriesRecord& s0 = c.records.at(0);
  EXPECT_EQ(s0.series.dm, 30.0);
  ASSERT_EQ(s0.candidates.size(), 1u);
  ASSERT_EQ(s0.harmonics.size(), 2u);
  EXPECT_EQ(s0.candidates[0].sigma, 30.0);
  EXPECT_EQ(s0.harmonics[1].power, 60.0);
  const SeriesRecord& s1 = c.records.at(1);
  EXPECT_EQ(s1.series.n_samples, 1025u);
  EXPECT_EQ(s1.series.n_indep[0], -7);
  EXPECT_EQ(s1.series.powcut[1], 3.5f);
  EXPECT_TRUE(s1.candidates.empty());
  EXPECT_TRUE(s1.harmonics.empty());
  const SeriesRecord& s2 = c.records.at(2);
  ASSERT_EQ(s2.candidates.size(), 1u);
  EXPECT_EQ(s2.candidates[0].r, 100.25);
  EXPECT_EQ(from_notes_text(s2.candidates[0].notes), "cand0");
  EXPECT_EQ(s2.harmonics.at(0).phase_deg, 90.0);
}

TEST(FdasSpool, WritesTheSameBytesAsBefore) {
  const fs::path dir = test::scratch_directory("fdas_spool") / "fdas.h5.spool";
  {
    SpoolWriter a(dir.string(), 1, 0);
    a.append(series(0, 2, 3, 10.0));
    a.append(series(1, 0, 0, 20.0));
    a.sync();
    SpoolWriter b(dir.string(), 2, 1);
    b.append(series(0, 1, 2, 30.0));
    b.append(series(2, 1, 1, 40.0));
    b.sync();
  }
  std::size_t n_files = 0;
  for (const auto& entry : fs::directory_iterator(written_before)) {
    ++n_files;
    EXPECT_EQ(test::file_bytes(dir / entry.path().filename()), test::file_bytes(entry.path())) << entry.path();
  }
  EXPECT_EQ(n_files, 2u);
  EXPECT_EQ(next_spool_attempt(dir.string()), 3);
  remove_spool(dir.string());
  fs::remove_all(dir.parent_path());
}

// A record whose hash holds but whose counts do not match its rows: not a cut (the hash vouches
// for the bytes), a spool of another layout, refused naming the file.
TEST(FdasSpool, ARecordOfAnotherLayoutIsRefused) {
  const fs::path dir = test::scratch_directory("fdas_spool") / "fdas.h5.spool";
  {
    io::SpoolWriter w(dir.string(),
                      io::SpoolLayout{{'A', 'S', 'F', 'D', 'S', 'P', '0', '1'}, 2, io::SpoolHash::hex, ""}, 1, 0);
    const std::array<std::uint64_t, 2> counts{1, 0};
    w.append(4, counts, std::string(sizeof(SeriesRow), '\0'));
    w.sync();
  }
  try {
    read_spool(dir.string());
    ADD_FAILURE() << "read";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("attempt-0001.rank-00000': the record of series 4 does not hold the rows"),
              std::string::npos)
        << e.what();
  }
  fs::remove_all(dir.parent_path());
}

}  // namespace
}  // namespace astrosweep::fdas
