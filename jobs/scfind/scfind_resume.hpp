#pragma once
// --resume for the scfind job: what rank 0 finds at the output path (no product, a complete or an
// incomplete one, its journal) and what the run therefore does: start afresh, continue after the
// kernel pairs the journal records, or nothing. The rules: docs/reliability.md.

#include <cstdint>
#include <string>

#include "io/resume_point.hpp"

namespace astrosweep::scfind {

struct ScfindResume {
  using Start = io::ResumePoint::Start;
  Start start = Start::fresh;
  std::uint64_t pairs_done = 0;     ///< when resuming: kernel pairs whose mask is in the product
  std::uint64_t journal_bytes = 0;  ///< where the journal continues (a torn tail is cut off)
  std::string note;                 ///< what was found, for the log
};

/// The journal's fingerprint: the product's, and the input file's size and modification time.
io::Fingerprint scfind_journal_fingerprint(const io::Fingerprint& product_fingerprint, const std::string& input_file);

/// Rank 0, before the product is opened. Throws UsageError when the product or journal was made
/// by another run (naming what differs), OutputError when the output is not a scfind product.
ScfindResume decide_scfind_resume(const std::string& product, std::uint64_t n_pairs,
                                  const io::Fingerprint& product_fingerprint,
                                  const io::Fingerprint& journal_fingerprint);

}  // namespace astrosweep::scfind
