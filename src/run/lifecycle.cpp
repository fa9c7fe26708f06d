#include "run/lifecycle.hpp"

#include <cstdio>
#include <cstring>

#include "core/interrupt.hpp"
#include "io/output_path.hpp"

namespace astrosweep::run {

Lifecycle::Lifecycle(std::string job, const CommonOptions& options, MPI_Comm parent,
                     const std::vector<std::pair<std::string, std::string>>& more_outputs)
    : job_(std::move(job)),
      options_(options),
      comm_((interrupt::install_handlers(), parent)),
      journal_file_(io::journal_path(options.output)) {
  // Before anything takes long: a bad output path ends the run before its input is read. An
  // existing product is allowed with --resume: begin() decides whether it may be continued.
  mpi::on_root_then_share_failure(comm(), [&] {
    // One run per output: the lock is taken before anything of the product or its journal is
    // opened, and before "already exists" (a second run, however started, is told who writes).
    io::check_output_path(options.output, true);  // the lock file's directory exists and is writable
    lock_.emplace(io::OutputLock::acquire(options.output, options.command_line));
    if (!lock_->held()) log("warning: " + lock_->unsupported());
    io::check_output_path(options.output, options.overwrite || options.resume);
    for (const auto& [path, option] : more_outputs) {
      AS_EXPECTS(path != options.output, UsageError, "the " + option + " output and the product have the same name",
                 "give " + option + " another path");
      io::check_output_path(path, options.overwrite || options.resume, option);
    }
  });
}

Start Lifecycle::begin(const ResumeRules& rules, const std::function<std::string(const io::ResumePoint&)>& interpret) {
  Start start;
  mpi::on_root_then_share_failure(comm(), [&] {
    if (options_.resume)
      start.point = io::find_resume_point(options_.output, job_, rules.entries, rules.inspect,
                                          rules.product_fingerprint, rules.journal_fingerprint);
    start.kind = start.point.start;
    if (start.resuming() && interpret) {
      const std::string note = interpret(start.point);
      if (!note.empty()) start.point.note = note;
    }
    if (!start.point.note.empty()) log(start.point.note);
    if (start.fresh()) journal_ = io::Journal::create(journal_file_, rules.journal_fingerprint);
    if (start.resuming()) journal_ = io::Journal::resume(journal_file_, start.point.journal->valid_bytes);
  });
  int kind = static_cast<int>(start.kind);
  mpi::broadcast_value(comm(), kind);
  start.kind = static_cast<io::ResumePoint::Start>(kind);
  if (start.complete() && root()) {
    log("product '" + options_.output + "' is complete: nothing to do");
    finished();  // a journal is left behind when a run was killed right after completing
  }
  return start;
}

BackendOptions Lifecycle::backend_options() const {
  BackendOptions b = options_.backend;
  const auto local = mpi::node_local(comm());
  b.node_local_rank = local.rank;
  b.node_local_size = local.size;
  return b;
}

void Lifecycle::log(const std::string& message) const {
  if (!root()) return;
  std::fprintf(stderr, "[astrosweep] %s: %s\n", job_.c_str(), message.c_str());
  std::fflush(stderr);
}

void Lifecycle::interrupted(const std::function<void()>& close, const std::string& progress,
                            const std::string& recorded) const {
  close();
  throw interrupt::Interrupted(
      interrupt::received(), progress,
      "the product '" + options_.output + "' stays incomplete; " + recorded + " recorded in '" + journal_file_ + "'");
}

void Lifecycle::finished() {
  if (!root()) return;
  journal_.reset();
  try {
    io::remove_journal(journal_file_);  // the product says complete: the journal has served
  } catch (const Error& e) {
    log(std::string("warning: ") + e.what());
  }
  if (lock_) lock_->release();  // the lock file goes with the journal
  lock_.reset();
}

void Lifecycle::print_summary(const std::string& header, const std::string& row, std::FILE* out) const {
  if (options_.quiet) return;
  std::vector<char> mine(row.begin(), row.end());
  int length = static_cast<int>(mine.size());
  std::vector<int> lengths(static_cast<std::size_t>(size()));
  AS_MPI_TRY(MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, comm()));
  std::vector<int> offsets(lengths.size() + 1, 0);
  for (std::size_t r = 0; r < lengths.size(); ++r) offsets[r + 1] = offsets[r] + lengths[r];
  std::vector<char> all(static_cast<std::size_t>(root() ? offsets.back() : 0));
  AS_MPI_TRY(
      MPI_Gatherv(mine.data(), length, MPI_CHAR, all.data(), lengths.data(), offsets.data(), MPI_CHAR, 0, comm()));
  if (!root()) return;
  std::fputs(header.c_str(), out);
  std::fwrite(all.data(), 1, all.size(), out);
  std::fflush(out);
}

}  // namespace astrosweep::run
