#pragma once
// Where a spiir rank keeps its units' samples until the run ends (docs/spiir.md, "Work units and
// resume"): the shared spool (io/spool.hpp), as fdas's, one file per rank and run attempt in
// PRODUCT.spool/, one record per unit, synced before the unit enters the journal; rank 0 reads
// them all when every unit is done, merges them into the peaks, and the spool is removed with the
// journal. This file is spiir's record: the key is the unit, the payload per detector its count
// and samples. A record cut short by a kill or whose hash does not match ends that file's
// readable part (its unit was not journalled, so it is computed again).

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "io/spool.hpp"
#include "spiir_units.hpp"

namespace astrosweep::spiir {

/// Per detector, the samples a unit kept.
using UnitSamples = std::vector<std::vector<SampleBest>>;

/// PRODUCT.spool
inline std::string spiir_spool_directory(const std::string& product) { return io::spool_directory(product); }
/// One above every attempt in `directory` (1 when there is none).
inline int next_spiir_spool_attempt(const std::string& directory) { return io::next_spool_attempt(directory); }
/// Removes `directory` and what it holds (missing: nothing to do); OutputError naming it.
inline void remove_spiir_spool(const std::string& directory) { io::remove_spool(directory); }

class SpiirSpoolWriter {
 public:
  /// Creates `directory` if needed and this (attempt, rank)'s file; OutputError naming it.
  SpiirSpoolWriter(const std::string& directory, int attempt, int rank);
  void append(std::uint64_t unit, const UnitSamples& samples);
  void sync() { writer_.sync(); }

 private:
  io::SpoolWriter writer_;
};

struct SpiirSpoolContents {
  std::map<std::uint64_t, UnitSamples> units;
  std::vector<std::string> notes;  ///< files whose tail was cut or damaged
};

/// Every whole record in `directory`; a unit found twice (computed again after a kill) is the
/// same computation, so either copy serves. InputError naming a file that is not a spool file, or
/// a record that does not hold `n_detectors` detectors' samples.
SpiirSpoolContents read_spiir_spool(const std::string& directory, std::size_t n_detectors);

}  // namespace astrosweep::spiir
