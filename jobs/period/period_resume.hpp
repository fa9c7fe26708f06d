#pragma once
// --resume for the period job: what its journal entries mean (the run lifecycle decides how a run
// starts, run/lifecycle.hpp). Guarantees and the rules: docs/reliability.md.

#include <cstdint>
#include <string>
#include <vector>

#include "io/resume_point.hpp"

namespace astrosweep::period {

/// What the journal of an interrupted run records, read the period way: one entry per finished
/// work unit, naming its object range.
struct JournalledObjects {
  std::vector<bool> done;          ///< per object: its rows are in the product (empty: none)
  std::uint64_t objects_done = 0;  ///< objects marked in `done`
  std::uint64_t units_done = 0;    ///< journal entries (units finished by earlier runs)
  std::string note;                ///< what was found, for the log
};

/// The fingerprint kept in the journal: the product's, and the modification times of the input
/// files (an HDF5 catalog's digest covers its index only, not the light curves).
io::Fingerprint journal_fingerprint(const io::Fingerprint& product_fingerprint, const std::string& input_paths);

/// Rank 0, when --resume continues `product` (run::Lifecycle::begin): the objects its journal
/// records. Throws OutputError when an entry names objects beyond the product's.
JournalledObjects journalled_objects(const io::ResumePoint& point, const std::string& product, std::uint64_t n_objects);

}  // namespace astrosweep::period
