#pragma once
// One run of a job, from the stop-signal handlers to the per-rank summary: what every job does
// around its own compute loop, written once (docs/architecture.md, "The run lifecycle").
//
//   run::Lifecycle run("period", options.common, comm);   // handlers, communicator, output lock and check
//   ... the job reads its input and computes its fingerprints ...
//   const run::Start start = run.begin(rules);            // --resume decision, journal, broadcast
//   if (start.complete()) return;                         // "nothing to do" said, journal removed
//   auto backend = make_..._backend(run.backend_options());  // its GPU by node-local rank
//   ... product created or reopened, the compute loop (run.journal() on rank 0) ...
//   if (stopped) run.interrupted(product, "7 of 20 units done", "finished units");  // exit 6
//   product.finish(); run.finished();                     // journal removed
//   run.print_summary(header, my_row);                    // rank 0 prints every rank's row
//
// A job supplies only what is its own: its fingerprints, how to inspect an existing product, what
// a journal entry means, its compute loop and its summary columns.

#include <mpi.h>

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/mpi.hpp"
#include "io/journal.hpp"
#include "io/output_lock.hpp"
#include "io/resume_point.hpp"
#include "run/common_options.hpp"

namespace astrosweep::run {

/// What --resume may find of a job's product (io::find_resume_point's inputs).
struct ResumeRules {
  std::string entries;  ///< what a journal entry records, for messages: "finished unit", "checkpoint"
  std::function<std::optional<io::ExistingProduct>(const std::string&)> inspect;
  io::Fingerprint product_fingerprint;
  io::Fingerprint journal_fingerprint;
};

/// How the run starts, the same on every rank; `point` (the journal's entries) on rank 0 only.
struct Start {
  io::ResumePoint::Start kind = io::ResumePoint::Start::fresh;
  io::ResumePoint point;
  [[nodiscard]] bool fresh() const noexcept { return kind == io::ResumePoint::Start::fresh; }
  [[nodiscard]] bool resuming() const noexcept { return kind == io::ResumePoint::Start::resume; }
  [[nodiscard]] bool complete() const noexcept { return kind == io::ResumePoint::Start::complete; }
};

class Lifecycle {
 public:
  /// Collective. Installs the stop-signal handlers, duplicates `parent`, and on rank 0 takes the
  /// output's lock (io::OutputLock: another run writing it stops this one with exit code 4) and
  /// checks that the product and `more_outputs` ((path, option) pairs) can be written: absent, or
  /// replaceable with --overwrite, or the run's own with --resume.
  Lifecycle(std::string job, const CommonOptions& options, MPI_Comm parent,
            const std::vector<std::pair<std::string, std::string>>& more_outputs = {});

  [[nodiscard]] MPI_Comm comm() const noexcept { return comm_.get(); }
  [[nodiscard]] int rank() const noexcept { return comm_.rank(); }
  [[nodiscard]] int size() const noexcept { return comm_.size(); }
  [[nodiscard]] bool root() const noexcept { return comm_.rank() == 0; }
  [[nodiscard]] const std::string& journal_file() const noexcept { return journal_file_; }

  /// Collective. Rank 0 decides how the run starts (with --resume: io::find_resume_point on the
  /// job's rules; otherwise fresh), replaces the journal (fresh: before the product is created, so
  /// no stale entry outlives its rows) or reopens it past its last whole entry (resume), and says
  /// what it found; every rank gets the decision. `interpret`, on rank 0 when resuming, reads the
  /// journal's entries the job's way and may throw; it returns the note to log (empty: the
  /// lifecycle's own). A complete product: "nothing to do" is said and its left-over journal removed.
  Start begin(const ResumeRules& rules, const std::function<std::string(const io::ResumePoint&)>& interpret = {});

  /// Rank 0: the journal of this run (nullptr elsewhere, and before begin()).
  [[nodiscard]] io::Journal* journal() noexcept { return journal_ ? &*journal_ : nullptr; }

  /// The options for the job's backend factory, with this rank's place on its node (which picks
  /// its GPU and its share of that GPU's memory).
  [[nodiscard]] BackendOptions backend_options() const;

  /// "[astrosweep] JOB: message" on stderr, from rank 0 only; nothing on other ranks.
  void log(const std::string& message) const;

  /// Every rank together, after a stop signal (interrupt::any_rank): `close` leaves the product
  /// resumable, then throws interrupt::Interrupted (exit code 6) saying `progress` and where the
  /// finished work (`recorded`, e.g. "its finished units") is recorded.
  [[noreturn]] void interrupted(const std::function<void()>& close, const std::string& progress,
                                const std::string& recorded) const;

  /// After the product says complete: the journal has served (rank 0 removes it; a failure to is
  /// a warning), and rank 0 removes the lock file and releases the lock (a run that fails does so
  /// as the lifecycle is destroyed; a killed one leaves the file, which locks nothing).
  void finished();

  /// Collective: rank 0 prints `header` and every rank's `row`, in rank order, to `out`; with
  /// --quiet nothing.
  void print_summary(const std::string& header, const std::string& row, std::FILE* out) const;

 private:
  std::string job_;
  const CommonOptions& options_;
  mpi::Communicator comm_;
  std::string journal_file_;
  std::optional<io::OutputLock> lock_;  ///< rank 0: one run per output; released last
  std::optional<io::Journal> journal_;
};

}  // namespace astrosweep::run
