#pragma once
// --resume for the scfind job: what its journal entries mean (the run lifecycle decides how a run
// starts, run/lifecycle.hpp). Guarantees and the rules: docs/reliability.md.

#include <cstdint>
#include <string>

#include "io/resume_point.hpp"

namespace astrosweep::scfind {

/// What the journal of an interrupted run records, read the scfind way: one entry per checkpoint,
/// naming how many kernel pairs' mask it made durable.
struct JournalledPairs {
  std::uint64_t pairs = 0;  ///< kernel pairs whose mask is in the product
  std::string note;         ///< what was found, for the log
};

/// The journal's fingerprint: the product's, and the input file's size and modification time.
io::Fingerprint scfind_journal_fingerprint(const io::Fingerprint& product_fingerprint, const std::string& input_file);

/// Rank 0, when --resume continues `product` (run::Lifecycle::begin): the kernel pairs its journal
/// records. Throws OutputError when an entry names a checkpoint this run cannot have made.
JournalledPairs journalled_pairs(const io::ResumePoint& point, const std::string& product, std::uint64_t n_pairs);

}  // namespace astrosweep::scfind
