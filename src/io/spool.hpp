#pragma once
// A spool: where each rank keeps the results of its finished work units, beside the product, until
// rank 0 reads them all at the end of the run (fdas's candidates, spiir's samples: results whose
// size per unit is not known in advance, so that parallel HDF5, which allocates datasets up
// front, cannot take them as they come). docs/reliability.md, "Spools".
//
// PRODUCT.spool/ holds one file per (attempt, rank), attempt-AAAA.rank-RRRRR[suffix]: a resumed
// run takes the next attempt number, so no file is ever written by two runs or two ranks. A file
// is a sequence of records,
//
//   magic (8 bytes) | key (u64) | the job's header fields (u64 each) | payload size (u64) |
//   FNV-1a 64 of the payload (8 bytes binary, or 16 hex digits) | payload
//
// integers in the machine's order (a spool is read back by the same build on the same kind of
// machine, within one run's life). The writer's records reach the disk at sync(), which the job
// calls before its unit enters the journal; so a record cut short by a kill or whose hash does not
// match belongs to a unit that was not journalled: it ends its file's readable part, with a note.
// A file whose name is not a spool file's is refused (InputError naming it): nothing but
// astrosweep's files belong there.
//
// The layout (magic, header fields, hash form, file suffix) is the job's: each job's spool was
// written so before this code was shared, and spools left by a stopped run are read after an
// upgrade (tests/io/test_spool.cpp reads files written by the jobs' earlier code).

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "io/posix_file.hpp"

namespace astrosweep::io {

/// How a record's payload hash is stored.
enum class SpoolHash {
  hex,     ///< 16 lower-case hex digits
  binary,  ///< a u64
};

/// One job's record layout and file names.
struct SpoolLayout {
  std::array<char, 8> magic{};
  std::size_t header_fields = 0;  ///< u64s between the key and the payload size, the job's own
  SpoolHash hash = SpoolHash::binary;
  std::string_view file_suffix;  ///< after attempt-A.rank-R
};

/// PRODUCT.spool
std::string spool_directory(const std::string& product);

/// One attempt number above every spool file's in `directory` (1 when there is none, or no
/// directory).
int next_spool_attempt(const std::string& directory);

/// Removes `directory` and everything in it (missing: nothing to do); OutputError naming it.
void remove_spool(const std::string& directory);

/// Appends this rank's records of one attempt to its own file.
class SpoolWriter {
 public:
  /// Creates `directory` if needed and the file for (attempt, rank), durably (the directory is
  /// synced too); OutputError naming what could not be created.
  SpoolWriter(const std::string& directory, const SpoolLayout& layout, int attempt, int rank);
  /// One record; `fields` has the layout's header_fields values.
  void append(std::uint64_t key, std::span<const std::uint64_t> fields, std::string_view payload);
  /// Returns once every record appended is on disk.
  void sync();
  [[nodiscard]] const std::string& path() const noexcept { return path_; }

 private:
  SpoolLayout layout_;
  std::string path_;
  PosixFile file_;
};

/// A whole, checked record.
struct SpoolRecord {
  std::uint64_t key = 0;
  int attempt = 0;
  int rank = 0;
  std::vector<std::uint64_t> fields;  ///< the layout's header fields
  std::string payload;
  std::string file;  ///< the file it came from, for messages
};

struct SpoolRecords {
  std::vector<SpoolRecord> records;  ///< file by file (by name), each in the order appended
  std::vector<std::string> notes;    ///< files whose tail was cut or damaged
};

/// Every whole record of every file in `directory`; a key found twice is given twice (the job
/// knows which copy counts). InputError naming the directory when it cannot be listed, or a file
/// that is not a spool file or cannot be read.
SpoolRecords read_spool(const std::string& directory, const SpoolLayout& layout);

}  // namespace astrosweep::io
