#pragma once
// One run per output: an advisory lock that a second run writing the same product finds held
// (issue 17; docs/reliability.md, "One run per output").
//
// Rank 0 takes a POSIX record lock (fcntl F_SETLK, write lock on the whole file) on
// `<product>.lock` before anything of the product or its journal is opened for writing, and
// writes who it is into that file: host, pid, Slurm job id, start time, command. A second run
// finds the lock held and is refused (OutputError, exit code 4) with the holder's text.
//
// Why fcntl and not flock(2): fcntl locks are the ones network file systems carry across nodes
// (NFS through its lock manager or NFSv4 itself, GPFS, Lustre mounted with -o flock). A file
// system that cannot lock answers ENOLCK, EOPNOTSUPP, ENOSYS or EINVAL: the run goes on without
// the lock, and says so. Lustre with -o localflock, and NFS with -o nolock, lock per node only:
// two runs on different nodes are then not detected, and nothing here can tell.
//
// The lock goes with the process: a run that ends in any way (an error, a signal, SIGKILL, a lost
// node once its lease expires) releases it, and a lock file left behind (by a killed run) locks
// nothing. The owner removes the file while it still holds the lock, then closes it; a run that
// opened the file just before finds, once it has the lock, that the path names another file (or
// none) and tries again on the new one, so two runs never both hold "the" lock.
//
// The holder must not open the lock file anywhere else: closing any descriptor of a file releases
// every POSIX record lock the process has on it. Only this class opens it.

#include <string>

#include "io/posix_file.hpp"

namespace astrosweep::io {

/// `<product>.lock`.
std::string lock_path(const std::string& product);

/// Who holds a lock, as its lock file records it.
struct LockHolder {
  std::string host;
  std::string pid;
  std::string slurm_job;  ///< SLURM_JOB_ID; empty outside Slurm
  std::string since;      ///< "2026-11-21 14:03:12 UTC"
  std::string command;

  /// This process, running `command`.
  static LockHolder this_process(const std::string& command);
  /// The lock file's text; a field the text lacks stays empty.
  static LockHolder parse(const std::string& text);
  /// The lock file's text: "astrosweep-lock 1" then one "key = value" per line.
  [[nodiscard]] std::string text() const;
  /// "host node12 pid 4242 (Slurm job 981) since 2026-11-21 14:03:12 UTC".
  [[nodiscard]] std::string description() const;
};

class OutputLock {
 public:
  /// Takes the lock on `lock_path(product)` (creating the file) and records this process, running
  /// `command`, in it. Throws OutputError when another process holds it (naming that run) or when
  /// the lock file cannot be opened. On a file system that cannot lock, the returned object holds
  /// nothing and `unsupported()` says why.
  static OutputLock acquire(const std::string& product, const std::string& command);

  OutputLock(OutputLock&&) noexcept = default;
  OutputLock& operator=(OutputLock&&) = delete;  // would drop a lock without removing its file
  OutputLock(const OutputLock&) = delete;
  OutputLock& operator=(const OutputLock&) = delete;
  /// release().
  ~OutputLock() { release(); }

  [[nodiscard]] bool held() const noexcept { return file_.valid(); }
  /// Why nothing is held ("the file system ... cannot lock files ..."); empty when the lock is held.
  [[nodiscard]] const std::string& unsupported() const noexcept { return unsupported_; }

  /// Removes the lock file while the lock is still held, then releases it (closes the file). A
  /// failure to remove it is no error: the file locks nothing once closed.
  void release() noexcept;

 private:
  OutputLock(PosixFile file, std::string path, std::string unsupported)
      : file_(std::move(file)), path_(std::move(path)), unsupported_(std::move(unsupported)) {}
  PosixFile file_;
  std::string path_;
  std::string unsupported_;
};

}  // namespace astrosweep::io
