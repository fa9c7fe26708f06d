#pragma once
// Where a rank keeps the candidates of its series until the run ends (docs/fdas.md, "Product").
// Candidates vary in number per series and parallel HDF5 allocates datasets up front, so they are
// not written into the product as they are found: each rank appends one record per series to its
// own file in the spool, PRODUCT.spool/ (io/spool.hpp: files, hashes, a cut tail, durability),
// and syncs it before its unit enters the journal. When every series is done, rank 0 reads the
// spool, writes /candidates, /harmonics and /sifted, and the spool is removed with the journal.
//
// This file is fdas's record: the key is the series, the header fields its candidate and harmonic
// counts, the payload its rows as their bytes. The same series in several attempts (computed, not
// journalled, computed again): the highest attempt's record is the one the journal vouches for,
// since a journalled series is never searched again.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "candidate_rows.hpp"
#include "io/spool.hpp"

namespace astrosweep::fdas {

using io::next_spool_attempt;
using io::remove_spool;
using io::spool_directory;

struct SeriesRecord {
  SeriesRow series;
  std::vector<CandidateRow> candidates;
  std::vector<HarmonicRow> harmonics;
};

/// Appends this rank's records of one attempt.
class SpoolWriter {
 public:
  /// Creates `directory` if needed and the file for (attempt, rank); OutputError naming it.
  SpoolWriter(const std::string& directory, int attempt, int rank);
  void append(const SeriesRecord& record);
  /// Returns once every record appended is on disk.
  void sync() { writer_.sync(); }
  [[nodiscard]] const std::string& path() const noexcept { return writer_.path(); }

 private:
  io::SpoolWriter writer_;
};

struct SpoolContents {
  std::map<std::uint64_t, SeriesRecord> records;  ///< by series
  std::vector<std::string> notes;                 ///< files whose tail was cut or damaged
};

/// Every record of every file in `directory`, the highest attempt's for a series found twice.
/// InputError naming the file for one that is not a spool file, or a record that is not fdas's.
SpoolContents read_spool(const std::string& directory);

}  // namespace astrosweep::fdas
