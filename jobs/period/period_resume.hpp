#pragma once
// --resume for the period job: what rank 0 finds at the output path (no product, a complete or
// an incomplete one, its journal) and what the run therefore does: start afresh, continue with the
// objects the journal does not record, or nothing. Guarantees and the rules: docs/reliability.md.

#include <cstdint>
#include <string>
#include <vector>

#include "io/resume_point.hpp"

namespace astrosweep::period {

struct ResumeDecision {
  using Start = io::ResumePoint::Start;
  Start start = Start::fresh;
  std::vector<bool> done;           ///< per object, when resuming: its rows are in the product
  std::uint64_t objects_done = 0;   ///< objects marked in `done`
  std::uint64_t units_done = 0;     ///< journal entries (units finished by earlier runs)
  std::uint64_t journal_bytes = 0;  ///< where the journal continues (a torn tail is cut off)
  std::string note;                 ///< what was found, for the log (empty: nothing worth saying)
};

/// The fingerprint kept in the journal: the product's, and the modification times of the input
/// files (an HDF5 catalog's digest covers its index only, not the light curves).
io::Fingerprint journal_fingerprint(const io::Fingerprint& product_fingerprint, const std::string& input_paths);

/// Rank 0, before any product is created. Throws UsageError when the product or its journal was
/// made by another run (other input, parameters or astrosweep version), naming what differs;
/// OutputError when the output is a file that is not a period product.
ResumeDecision decide_resume(const std::string& product, std::uint64_t n_objects,
                             const io::Fingerprint& product_fingerprint, const io::Fingerprint& journal_fingerprint);

}  // namespace astrosweep::period
