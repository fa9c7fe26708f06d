#pragma once
// What --resume finds at a job's output path, by the rules every job shares (docs/reliability.md,
// "What --resume does"): no product → start; a product of another run → refuse (exit 2); a
// complete one → nothing to do; an incomplete one whose journal has entries → continue from them;
// otherwise start over. Each job reads its own product (`inspect`) and interprets the entries.

#include <functional>
#include <optional>
#include <string>

#include "io/journal.hpp"

namespace astrosweep::io {

/// A product found on disk, as --resume sees it.
struct ExistingProduct {
  Fingerprint fingerprint;  ///< read back from its attributes
  bool complete = false;
};

struct ResumePoint {
  enum class Start : int { fresh, resume, complete };
  Start start = Start::fresh;
  std::optional<JournalContents> journal;  ///< when resuming: the journal, with entries
  std::string note;                        ///< what was found, for the log (empty: nothing to say)
};

/// `fingerprint` and, for each file in `paths` (newline-separated; a file named twice counts
/// once), its size and modification time, one entry each ("input_file N" = path, size, time): a
/// rewritten or touched input refuses --resume, and the refusal names the file and what changed.
Fingerprint with_input_files(Fingerprint fingerprint, const std::string& paths);

/// Rank 0, before the product is opened. `job` names the product in messages ("period",
/// "scfind"), `entries` what a journal entry records ("finished unit", "checkpoint"). `inspect`
/// returns nullopt when the file is not a readable product of the job. Throws UsageError when the
/// product or journal was made by another run (naming each difference), OutputError when the
/// output is somebody else's file.
ResumePoint find_resume_point(const std::string& product, const std::string& job, const std::string& entries,
                              const std::function<std::optional<ExistingProduct>(const std::string&)>& inspect,
                              const Fingerprint& product_fingerprint, const Fingerprint& journal_fingerprint);

}  // namespace astrosweep::io
