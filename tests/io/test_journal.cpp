// The work journal: what a kill can leave of it (no file, a half-written header, a torn last entry,
// a damaged entry) and what --resume then trusts.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "io/journal.hpp"
#include "test_data.hpp"

namespace astrosweep::io {
namespace {

namespace fs = std::filesystem;

class JournalTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = test::scratch_directory("journal");
    path_ = (dir_ / "product.h5.journal").string();
  }
  void TearDown() override { fs::remove_all(dir_); }

  [[nodiscard]] std::string text() const {
    std::ifstream in(path_, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  void write(const std::string& t) const { std::ofstream(path_, std::ios::binary) << t; }

  fs::path dir_;
  std::string path_;
  const Fingerprint fp_{{"format", "astrosweep.period"},
                        {"input_paths", "a.fits\nb.fits"},
                        {"grid_n", "1000"},
                        {"weird", "back\\slash = and\\n"}};
};

TEST_F(JournalTest, NoFileIsNoJournal) { EXPECT_FALSE(read_journal(path_).has_value()); }

TEST_F(JournalTest, FingerprintAndEntriesRoundTrip) {
  {
    Journal j = Journal::create(path_, fp_);
    j.append({0, 4});
    j.append({81, 4});
  }
  const auto got = read_journal(path_);
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->fingerprint, fp_);  // values with newlines and backslashes survive
  ASSERT_EQ(got->entries.size(), 2u);
  EXPECT_EQ(got->entries[1].first, 81u);
  EXPECT_EQ(got->entries[1].count, 4u);
  EXPECT_FALSE(got->torn_tail);
  EXPECT_EQ(got->valid_bytes, text().size());
  EXPECT_FALSE(fs::exists(path_ + ".new"));
}

TEST_F(JournalTest, CreateReplacesAnOldJournal) {
  {
    Journal j = Journal::create(path_, fp_);
    j.append({0, 4});
  }
  { Journal j = Journal::create(path_, fp_); }
  const auto got = read_journal(path_);
  ASSERT_TRUE(got.has_value());
  EXPECT_TRUE(got->entries.empty());
}

TEST_F(JournalTest, TornLastEntryIsDroppedAndCutOffOnResume) {
  {
    Journal j = Journal::create(path_, fp_);
    j.append({0, 4});
  }
  const std::string whole = text();
  write(whole + "done 4 4 0123");  // a kill in the middle of an append: no newline
  auto got = read_journal(path_);
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->entries.size(), 1u);
  EXPECT_TRUE(got->torn_tail);
  EXPECT_EQ(got->valid_bytes, whole.size());
  {
    Journal j = Journal::resume(path_, got->valid_bytes);
    j.append({4, 4});
  }
  got = read_journal(path_);
  ASSERT_TRUE(got.has_value());
  ASSERT_EQ(got->entries.size(), 2u);
  EXPECT_EQ(got->entries[1].first, 4u);
  EXPECT_FALSE(got->torn_tail);
}

TEST_F(JournalTest, AnEntryWithAWrongChecksumEndsWhatIsTrusted) {
  {
    Journal j = Journal::create(path_, fp_);
    j.append({0, 4});
    j.append({4, 4});
    j.append({8, 4});
  }
  std::string t = text();
  t.replace(t.find("done 4 4"), 8, "done 4 5");  // damaged in place: its checksum no longer matches
  write(t);
  const auto got = read_journal(path_);
  ASSERT_TRUE(got.has_value());
  ASSERT_EQ(got->entries.size(), 1u);  // the entries after it are computed again, too
  EXPECT_TRUE(got->torn_tail);
}

TEST_F(JournalTest, AnIncompleteHeaderIsNoJournal) {
  { Journal j = Journal::create(path_, fp_); }
  const std::string t = text();
  write(t.substr(0, t.find("end-of-header")));
  EXPECT_FALSE(read_journal(path_).has_value());
  write("something else\n");
  EXPECT_FALSE(read_journal(path_).has_value());
}

TEST_F(JournalTest, RemoveIsFineWhenAbsent) {
  { Journal j = Journal::create(path_, fp_); }
  remove_journal(path_);
  EXPECT_FALSE(fs::exists(path_));
  EXPECT_NO_THROW(remove_journal(path_));
}

TEST(Fingerprint, DifferencesNameEachKey) {
  const Fingerprint a{{"grid_n", "1000"}, {"top_k", "3"}, {"model", "generalized"}};
  const Fingerprint b{{"grid_n", "2000"}, {"top_k", "3"}, {"extra", "x"}};
  const auto d = fingerprint_differences(a, b);
  ASSERT_EQ(d.size(), 3u);
  EXPECT_NE(d[0].find("grid_n: '1000' for this run, '2000' before"), std::string::npos);
  EXPECT_NE(d[1].find("model: 'generalized' for this run, (none) before"), std::string::npos);
  EXPECT_NE(d[2].find("extra: (none) for this run, 'x' before"), std::string::npos);
  EXPECT_TRUE(fingerprint_differences(a, a).empty());
}

}  // namespace
}  // namespace astrosweep::io
