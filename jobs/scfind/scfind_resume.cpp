#include "scfind_resume.hpp"

#include <algorithm>

#include "core/error.hpp"
#include "io/resume_point.hpp"

namespace astrosweep::scfind {

io::Fingerprint scfind_journal_fingerprint(const io::Fingerprint& product_fingerprint, const std::string& input_file) {
  return io::with_input_files(product_fingerprint, input_file);
}

JournalledPairs journalled_pairs(const io::ResumePoint& point, const std::string& product, std::uint64_t n_pairs) {
  JournalledPairs d;
  const io::JournalContents& journal = *point.journal;
  const std::string journal_file = io::journal_path(product);
  for (const auto& e : journal.entries) {
    AS_EXPECTS(e.first >= 1 && e.first <= n_pairs && e.count == 0, OutputError,
               "the journal '" + journal_file + "' records a checkpoint this run cannot have made",
               "remove the product and its journal to start over");
    d.pairs = std::max(d.pairs, e.first);
  }
  d.note = "resuming '" + product + "': " + std::to_string(d.pairs) + " of " + std::to_string(n_pairs) +
           " kernel pairs done, recorded in '" + journal_file + "'" +
           (journal.torn_tail ? " (an unfinished last record is dropped)" : "");
  return d;
}

}  // namespace astrosweep::scfind
