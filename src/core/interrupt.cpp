#include "core/interrupt.hpp"

#include <signal.h>

#include <atomic>
#include <csignal>
#include <mutex>

namespace astrosweep::interrupt {

namespace {

// Written by the handler, which may run on any thread of the process: a lock-free atomic is
// async-signal-safe, and the first signal wins.
std::atomic<int> first_signal{0};
static_assert(std::atomic<int>::is_always_lock_free);

constexpr int handled[] = {SIGTERM, SIGINT, SIGUSR1, SIGUSR2};

extern "C" void record_signal(int signal) {
  int none = 0;
  if (first_signal.compare_exchange_strong(none, signal) || signal != SIGINT) return;
  // Ctrl-C a second time: the default action, at once (raise only delivers it after we return,
  // SIGINT being blocked inside its own handler).
  struct sigaction fallback = {};
  fallback.sa_handler = SIG_DFL;
  sigemptyset(&fallback.sa_mask);
  sigaction(SIGINT, &fallback, nullptr);
  raise(SIGINT);
}

}  // namespace

void install_handlers() {
  static std::once_flag once;
  std::call_once(once, [] {
    struct sigaction action = {};
    action.sa_handler = record_signal;
    sigemptyset(&action.sa_mask);
    for (int s : handled) sigaddset(&action.sa_mask, s);
    // Interrupted system calls resume: the handler only records, the job decides when to stop.
    action.sa_flags = SA_RESTART;
    for (int s : handled)
      AS_EXPECTS(sigaction(s, &action, nullptr) == 0, InternalError, "cannot install a handler for " + signal_name(s));
  });
}

int received() noexcept { return first_signal.load(); }

bool any_rank(MPI_Comm comm) {
  int local = received();
  int any = 0;
  AS_MPI_TRY(MPI_Allreduce(&local, &any, 1, MPI_INT, MPI_MAX, comm));
  if (any != 0 && local == 0) {
    int none = 0;
    first_signal.compare_exchange_strong(none, any);
  }
  return any != 0;
}

std::string signal_name(int signal) {
  switch (signal) {
    case SIGTERM: return "SIGTERM";
    case SIGINT: return "SIGINT";
    case SIGUSR1: return "SIGUSR1";
    case SIGUSR2: return "SIGUSR2";
    default: return "signal " + std::to_string(signal);
  }
}

Interrupted::Interrupted(int signal, const std::string& progress, std::string hint)
    : mpi::SharedError(
          ExitCode::interrupted,
          "interrupted by " + signal_name(signal) + "; " + progress + "; rerun the same command with --resume",
          std::move(hint)),
      signal_(signal) {}

}  // namespace astrosweep::interrupt
