#pragma once
// Signals that ask a job to stop early: Slurm's SIGTERM (scancel, the end of the time limit) and
// the warning it sends before the limit with `--signal` (SIGUSR1 in our scripts), Ctrl-C
// (SIGINT), SIGUSR2. The handler only records the signal; jobs look at the record between work
// units, stop handing out new ones, leave a product that `--resume` continues, and exit with
// ExitCode::interrupted (docs/reliability.md). SIGKILL cannot be caught: the journal of finished
// units is what makes a killed run resumable.

#include <mpi.h>

#include <string>

#include "core/mpi.hpp"

namespace astrosweep::interrupt {

/// Installs the recording handler for SIGTERM, SIGINT, SIGUSR1 and SIGUSR2; calling it again does
/// nothing. Repeated signals are recorded once, except that a SIGINT after any recorded signal
/// ends the process at once (Ctrl-C twice), as it would without the handler.
void install_handlers();

/// The signal this process received (the first one), 0 if none. Async-signal-safe. Once any_rank
/// has returned true, it names a signal on every rank (the one another rank received).
int received() noexcept;

/// Collective over `comm`: true on every rank when any rank has received one of the signals.
bool any_rank(MPI_Comm comm);

/// "SIGTERM", "SIGINT", "SIGUSR1", "SIGUSR2"; "signal N" otherwise.
std::string signal_name(int signal);

/// ExitCode::interrupted, e.g. "interrupted by SIGTERM; 7 of 20 units done; rerun the same command
/// with --resume". Throw it on every rank together (after any_rank) once the product is left
/// resumable: like every SharedError, main reports it once and no rank aborts the others.
class Interrupted : public mpi::SharedError {
 public:
  /// `progress`: how far the run got, e.g. "7 of 20 units done"; `hint`: where the finished work is.
  Interrupted(int signal, const std::string& progress, std::string hint = {});
  [[nodiscard]] int signal() const noexcept { return signal_; }

 private:
  int signal_;
};

}  // namespace astrosweep::interrupt
