// The spool (io/spool.hpp): records come back as appended, across ranks and attempts; what a kill
// can leave (a tail cut at any byte, a damaged hash) ends a file's readable part with a note; a
// foreign file is refused naming it; a directory that cannot be made is an OutputError. Both hash
// forms and a layout with header fields, since the jobs use both; the bytes of a record are
// checked against the format written out by hand here.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>

#include "core/error.hpp"
#include "io/light_curves.hpp"
#include "io/spool.hpp"
#include "test_data.hpp"

namespace astrosweep::io {
namespace {

namespace fs = std::filesystem;

constexpr SpoolLayout hex_layout{{'T', 'E', 'S', 'T', 'H', 'E', 'X', '1'}, 2, SpoolHash::hex, ""};
constexpr SpoolLayout binary_layout{{'T', 'E', 'S', 'T', 'B', 'I', 'N', '1'}, 0, SpoolHash::binary, ".bin"};

void write_bytes(const fs::path& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

std::string u64_bytes(std::uint64_t v) { return std::string(reinterpret_cast<const char*>(&v), sizeof v); }

class SpoolTest : public ::testing::TestWithParam<SpoolLayout> {
 protected:
  void SetUp() override { dir_ = (test::scratch_directory("spool") / "product.h5.spool").string(); }
  void TearDown() override { fs::remove_all(fs::path(dir_).parent_path()); }

  [[nodiscard]] const SpoolLayout& layout() const { return GetParam(); }
  [[nodiscard]] std::vector<std::uint64_t> fields(std::uint64_t seed) const {
    std::vector<std::uint64_t> f;
    for (std::size_t i = 0; i < layout().header_fields; ++i) f.push_back(seed * 10 + i);
    return f;
  }
  // Writes records keyed 100, 101, ... with payloads "payload-<key>" (the first one empty).
  // A record with a payload of n bytes.
  [[nodiscard]] std::size_t record_bytes(std::size_t n) const {
    return 8 + 8 * (2 + layout().header_fields) + (layout().hash == SpoolHash::hex ? 16 : 8) + n;
  }
  std::string write(int attempt, int rank, int n, std::uint64_t first_key = 100) {
    SpoolWriter w(dir_, layout(), attempt, rank);
    for (int i = 0; i < n; ++i) {
      const std::uint64_t key = first_key + static_cast<std::uint64_t>(i);
      w.append(key, fields(key), i == 0 ? std::string() : "payload-" + std::to_string(key));
    }
    w.sync();
    return w.path();
  }

  std::string dir_;
};

TEST_P(SpoolTest, AnEmptyOrMissingDirectory) {
  EXPECT_EQ(next_spool_attempt(dir_), 1);
  EXPECT_THROW(read_spool(dir_, layout()), InputError);  // missing: the finished units' results are lost
  fs::create_directories(dir_);
  const SpoolRecords r = read_spool(dir_, layout());
  EXPECT_TRUE(r.records.empty());
  EXPECT_TRUE(r.notes.empty());
  EXPECT_EQ(next_spool_attempt(dir_), 1);
  remove_spool(dir_);
  EXPECT_FALSE(fs::exists(dir_));
  remove_spool(dir_);  // missing: nothing to do
}

TEST_P(SpoolTest, OneRecordComesBackAsAppended) {
  std::string path;
  {
    SpoolWriter w(dir_, layout(), 3, 7);
    path = w.path();
    w.append(42, fields(42), std::string("a\0b", 3));
    w.sync();
  }
  EXPECT_EQ(fs::path(path).filename().string(), "attempt-0003.rank-00007" + std::string(layout().file_suffix));
  const SpoolRecords r = read_spool(dir_, layout());
  ASSERT_EQ(r.records.size(), 1u);
  EXPECT_TRUE(r.notes.empty());
  EXPECT_EQ(r.records[0].key, 42u);
  EXPECT_EQ(r.records[0].attempt, 3);
  EXPECT_EQ(r.records[0].rank, 7);
  EXPECT_EQ(r.records[0].fields, fields(42));
  EXPECT_EQ(r.records[0].payload, std::string("a\0b", 3));
  EXPECT_EQ(r.records[0].file, path);
  EXPECT_EQ(next_spool_attempt(dir_), 4);
}

// The format, written out here by hand: a change to it breaks the jobs' spools left by an earlier
// build (their own tests read files written before the spool was shared).
TEST_P(SpoolTest, TheBytesOfARecord) {
  const std::string path = write(1, 0, 2);
  const std::string payload = "payload-101";
  Fnv1a64 h;
  h.update(payload.data(), payload.size());
  std::string second(layout().magic.data(), 8);
  second += u64_bytes(101);
  for (const auto f : fields(101)) second += u64_bytes(f);
  second += u64_bytes(payload.size());
  second += layout().hash == SpoolHash::hex ? h.hex() : u64_bytes(h.value());
  second += payload;
  const std::string bytes = test::file_bytes(path);
  ASSERT_GE(bytes.size(), second.size());
  EXPECT_EQ(bytes.substr(bytes.size() - second.size()), second);
}

TEST_P(SpoolTest, ManyRanksAndAttempts) {
  for (int attempt = 1; attempt <= 3; ++attempt)
    for (int rank = 0; rank < 5; ++rank) write(attempt, rank, rank, 100 + static_cast<std::uint64_t>(rank));
  EXPECT_EQ(next_spool_attempt(dir_), 4);
  const SpoolRecords r = read_spool(dir_, layout());
  EXPECT_TRUE(r.notes.empty());
  ASSERT_EQ(r.records.size(), 3u * (0 + 1 + 2 + 3 + 4));
  // File by file in name order, each in the order appended; the same key in several files given each time.
  std::size_t i = 0;
  for (int attempt = 1; attempt <= 3; ++attempt)
    for (int rank = 0; rank < 5; ++rank)
      for (int k = 0; k < rank; ++k, ++i) {
        const std::uint64_t key = 100 + static_cast<std::uint64_t>(rank + k);
        EXPECT_EQ(r.records[i].attempt, attempt);
        EXPECT_EQ(r.records[i].rank, rank);
        EXPECT_EQ(r.records[i].key, key);
        EXPECT_EQ(r.records[i].fields, fields(key));
        EXPECT_EQ(r.records[i].payload, k == 0 ? std::string() : "payload-" + std::to_string(key));
      }
}

// A kill in the middle of the last append, at every byte: the records before it come back, the
// cut one is noted (the file and the byte where it starts), and a later attempt reads on.
TEST_P(SpoolTest, ATailCutAtEveryByteOfTheLastRecord) {
  const std::string path = write(1, 0, 3);
  const std::string whole = test::file_bytes(path);
  const std::size_t last_record = record_bytes(0) + record_bytes(11);
  ASSERT_EQ(whole.size(), last_record + record_bytes(11));
  ASSERT_LT(last_record, whole.size());
  for (std::size_t cut = last_record; cut < whole.size(); ++cut) {
    write_bytes(path, whole.substr(0, cut));
    const SpoolRecords r = read_spool(dir_, layout());
    ASSERT_EQ(r.records.size(), 2u) << "cut at " << cut;
    EXPECT_EQ(r.records[1].payload, "payload-101");
    if (cut == last_record) {
      EXPECT_TRUE(r.notes.empty());
    } else {
      ASSERT_EQ(r.notes.size(), 1u) << "cut at " << cut;
      EXPECT_NE(r.notes[0].find(path), std::string::npos) << r.notes[0];
      EXPECT_NE(r.notes[0].find("2 whole records, then a cut or damaged one at byte " + std::to_string(last_record)),
                std::string::npos)
          << r.notes[0];
    }
  }
  write_bytes(path, whole.substr(0, whole.size() - 1));
  write(2, 0, 2, 200);
  const SpoolRecords r = read_spool(dir_, layout());
  EXPECT_EQ(r.records.size(), 4u);
  EXPECT_EQ(r.notes.size(), 1u);
}

// A hash that does not match the payload, or a payload that does not match its hash: the record
// and those after it in that file are dropped, with a note; other files are read.
TEST_P(SpoolTest, ADamagedRecordEndsItsFile) {
  const std::string path = write(1, 0, 3);
  write(1, 1, 2, 300);
  const std::string whole = test::file_bytes(path);
  const std::size_t first_record = record_bytes(0);
  const std::size_t header = record_bytes(0);
  // The second record's hash, then its payload's last byte.
  for (const std::size_t at : {first_record + header - 1, first_record + header + 10}) {
    std::string damaged = whole;
    damaged[at] = static_cast<char>(damaged[at] ^ 0x20);
    write_bytes(path, damaged);
    const SpoolRecords r = read_spool(dir_, layout());
    ASSERT_EQ(r.records.size(), 1u + 2u) << "damaged at " << at;
    EXPECT_EQ(r.records[0].key, 100u);
    EXPECT_EQ(r.records[1].key, 300u);
    ASSERT_EQ(r.notes.size(), 1u);
    EXPECT_NE(r.notes[0].find("1 whole records, then a cut or damaged one at byte " + std::to_string(first_record)),
              std::string::npos)
        << r.notes[0];
  }
  // A payload size beyond the file (a damaged header) is not allocated, only noted.
  std::string damaged = whole;
  const std::uint64_t huge = std::uint64_t{1} << 62;
  std::memcpy(damaged.data() + first_record + 8 + 8 * (1 + layout().header_fields), &huge, sizeof huge);
  write_bytes(path, damaged);
  EXPECT_EQ(read_spool(dir_, layout()).notes.size(), 1u);
}

TEST_P(SpoolTest, AForeignFileIsRefusedNamingIt) {
  write(1, 0, 2);
  for (const std::string name : {"notes.txt", "attempt-1.rank-0.other", "attempt-0.rank-0", "rank0.attempt1"}) {
    const std::string foreign = dir_ + "/" + std::string(name) + std::string(layout().file_suffix);
    write_bytes(foreign, "left by hand");
    try {
      read_spool(dir_, layout());
      ADD_FAILURE() << name << " was read";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("'" + foreign + "' in the spool directory is not a spool file"),
                std::string::npos)
          << e.what();
    }
    fs::remove(foreign);
  }
  EXPECT_EQ(read_spool(dir_, layout()).records.size(), 2u);
}

TEST_P(SpoolTest, ADirectoryThatCannotBeMadeIsAnOutputError) {
  const fs::path parent = fs::path(dir_).parent_path();
  write_bytes(parent / "a_file", "not a directory");
  const std::string under_a_file = (parent / "a_file" / "product.h5.spool").string();
  try {
    SpoolWriter w(under_a_file, layout(), 1, 0);
    ADD_FAILURE() << "a spool was made under a file";
  } catch (const OutputError& e) {
    EXPECT_NE(std::string(e.what()).find("cannot create the spool directory '" + under_a_file + "'"), std::string::npos)
        << e.what();
  }
}

INSTANTIATE_TEST_SUITE_P(Layouts, SpoolTest, ::testing::Values(hex_layout, binary_layout), [](const auto& param_info) {
  return param_info.param.hash == SpoolHash::hex ? "hex" : "binary";
});

}  // namespace
}  // namespace astrosweep::io
