#pragma once
// Where a rank keeps the candidates of its series until the run ends (docs/fdas.md, "Product").
// Candidates vary in number per series and parallel HDF5 allocates datasets up front, so they are
// not written into the product as they are found: each rank appends one record per series to its
// own file in PRODUCT.spool/ and makes it durable (fsync) before its unit enters the journal. When
// every series is done, rank 0 reads the spool, writes /candidates, /harmonics and /sifted, and
// the spool is removed with the journal. A resumed run appends to new files (one attempt number
// per run), so no file is ever written by two runs.
//
// A record: an 8-byte magic, the series index, the counts, the payload size and its FNV-1a hash,
// then the rows. A record cut short by a kill, or whose hash does not match, ends that file's
// readable part (its unit was not journalled: the file is synced before the journal entry).
// The same series in several attempts (computed, not journalled, computed again): the highest
// attempt's record is the one the journal vouches for, since a journalled series is never
// searched again.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "candidate_rows.hpp"
#include "io/posix_file.hpp"

namespace astrosweep::fdas {

struct SeriesRecord {
  SeriesRow series;
  std::vector<CandidateRow> candidates;
  std::vector<HarmonicRow> harmonics;
};

/// PRODUCT.spool
std::string spool_directory(const std::string& product);

/// One attempt number above every file in `directory` (1 when there is none).
int next_spool_attempt(const std::string& directory);

/// Removes `directory` and everything in it (missing: nothing to do); OutputError naming it.
void remove_spool(const std::string& directory);

/// Appends this rank's records of one attempt.
class SpoolWriter {
 public:
  /// Creates `directory` if needed and the file for (attempt, rank); OutputError naming it.
  SpoolWriter(const std::string& directory, int attempt, int rank);
  void append(const SeriesRecord& record);
  /// Returns once every record appended is on disk.
  void sync();
  [[nodiscard]] const std::string& path() const noexcept { return path_; }

 private:
  std::string path_;
  io::PosixFile file_;
};

struct SpoolContents {
  std::map<std::uint64_t, SeriesRecord> records;  ///< by series
  std::vector<std::string> notes;                 ///< files whose tail was cut or damaged
};

/// Every record of every file in `directory`, the highest attempt's for a series found twice.
/// InputError naming the file for one that is not a spool file.
SpoolContents read_spool(const std::string& directory);

}  // namespace astrosweep::fdas
