#pragma once
// RAII owners for the MPI environment and communicators, and the few collective helpers every job
// uses. All raw MPI lifetime calls live in mpi.cpp.

#include <mpi.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/error.hpp"

#define AS_MPI_TRY(call)                                                         \
  do {                                                                           \
    if (int as_mpi_rc_ = (call); as_mpi_rc_ != MPI_SUCCESS)                      \
      ::astrosweep::mpi::throw_mpi_error(as_mpi_rc_, #call, __FILE__, __LINE__); \
  } while (0)

namespace astrosweep::mpi {

[[noreturn]] void throw_mpi_error(int rc, const char* call, const char* file, int line);

/// An error every rank of a communicator threw together (found by rank 0 and shared), so every
/// rank can exit normally with its code and only rank 0 needs to print it.
struct SharedError : Error {
  using Error::Error;
};

/// Initialises MPI (thread level MULTIPLE: rank 0 runs the work dispatcher on its own thread) and
/// finalises it on destruction. Only one may exist.
class Session {
 public:
  Session(int& argc, char**& argv);
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;
  [[nodiscard]] bool thread_multiple() const noexcept { return provided_ >= MPI_THREAD_MULTIPLE; }

 private:
  int provided_ = 0;
};

/// True while an exception unwinds in a run of several ranks: collective clean-up (freeing a
/// communicator, closing a file opened through MPI-IO) could then wait for ranks that never come,
/// so owners skip it; the process is about to stop anyway (main aborts or exits).
bool unwinding_in_parallel() noexcept;

/// An owned duplicate of a communicator, freed on destruction.
class Communicator {
 public:
  explicit Communicator(MPI_Comm parent);
  ~Communicator();
  Communicator(const Communicator&) = delete;
  Communicator& operator=(const Communicator&) = delete;
  [[nodiscard]] MPI_Comm get() const noexcept { return comm_; }
  [[nodiscard]] int rank() const noexcept { return rank_; }
  [[nodiscard]] int size() const noexcept { return size_; }

 private:
  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0;
  int size_ = 1;
};

/// This rank's place among the ranks of `comm` on the same node (shared memory): picks its GPU.
struct NodeLocal {
  int rank = 0;
  int size = 1;
};
NodeLocal node_local(MPI_Comm comm);

/// Runs `action` on rank 0 only. If it throws an astrosweep::Error, every rank throws the same
/// error (a SharedError), so a bad input found by rank 0 ends all ranks cleanly with one message and exit code.
void on_root_then_share_failure(MPI_Comm comm, const std::function<void()>& action);

/// Collective: runs `action` on every rank; if it throws on any (an astrosweep::Error, or another
/// std::exception as an internal error), every rank throws the lowest failing rank's error as a
/// SharedError ("rank N: " before it on several ranks): no rank waits for one that failed, and
/// nothing aborts. on_root_then_share_failure's twin for steps every rank computes.
void on_every_rank_then_share_failure(MPI_Comm comm, const std::function<void()>& action);

/// Stops every rank of `comm` with `code` after printing `message` (used when a rank fails while
/// others may be blocked in communication: waiting for agreement would hang).
[[noreturn]] void abort_all(MPI_Comm comm, ExitCode code, const std::string& message);

void broadcast_bytes(MPI_Comm comm, void* data, std::uint64_t n_bytes, int root = 0);
void broadcast_string(MPI_Comm comm, std::string& s, int root = 0);

template <class T>
void broadcast_vector(MPI_Comm comm, std::vector<T>& v, int root = 0) {
  std::uint64_t n = v.size();
  broadcast_bytes(comm, &n, sizeof n, root);
  v.resize(n);
  broadcast_bytes(comm, v.data(), n * sizeof(T), root);
}

template <class T>
void broadcast_value(MPI_Comm comm, T& value, int root = 0) {
  broadcast_bytes(comm, &value, sizeof(T), root);
}

}  // namespace astrosweep::mpi
