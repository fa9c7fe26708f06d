#include "core/mpi.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <exception>

namespace astrosweep::mpi {

void throw_mpi_error(int rc, const char* call, const char* file, int line) {
  char text[MPI_MAX_ERROR_STRING] = {};
  int len = 0;
  MPI_Error_string(rc, text, &len);
  throw RuntimeError(std::string("MPI call ") + call + " failed at " + file + ":" + std::to_string(line) + ": " +
                     std::string(text, static_cast<std::size_t>(len)));
}

Session::Session(int& argc, char**& argv) {
  int initialized = 0;
  MPI_Initialized(&initialized);
  AS_EXPECTS(!initialized, InternalError, "MPI initialised twice");
  AS_MPI_TRY(MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided_));
  // Errors come back as codes and become exceptions with AS_MPI_TRY, instead of aborting silently.
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
}

Session::~Session() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) MPI_Finalize();
}

Communicator::Communicator(MPI_Comm parent) {
  AS_MPI_TRY(MPI_Comm_dup(parent, &comm_));
  MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN);
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &size_);
}

NodeLocal node_local(MPI_Comm comm) {
  MPI_Comm local = MPI_COMM_NULL;
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  AS_MPI_TRY(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &local));
  NodeLocal n;
  MPI_Comm_rank(local, &n.rank);
  MPI_Comm_size(local, &n.size);
  MPI_Comm_free(&local);
  return n;
}

bool unwinding_in_parallel() noexcept {
  if (std::uncaught_exceptions() == 0) return false;
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (!initialized || finalized) return false;
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  return size > 1;
}

Communicator::~Communicator() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (comm_ != MPI_COMM_NULL && !finalized && !unwinding_in_parallel()) MPI_Comm_free(&comm_);
}

void broadcast_bytes(MPI_Comm comm, void* data, std::uint64_t n_bytes, int root) {
  // MPI counts are int: broadcast in pieces of at most 1 GiB.
  constexpr std::uint64_t piece = 1ULL << 30;
  auto* bytes = static_cast<char*>(data);
  for (std::uint64_t done = 0; done < n_bytes; done += piece) {
    const auto n = static_cast<int>(std::min(piece, n_bytes - done));
    AS_MPI_TRY(MPI_Bcast(bytes + done, n, MPI_BYTE, root, comm));
  }
}

void broadcast_string(MPI_Comm comm, std::string& s, int root) {
  std::uint64_t n = s.size();
  broadcast_bytes(comm, &n, sizeof n, root);
  s.resize(n);
  broadcast_bytes(comm, s.data(), n, root);
}

namespace {

// What an action threw: its exit code (0: nothing), message and hint. An exception that is not an
// astrosweep::Error passes through unless `internal_too` (then it is an internal error).
struct Caught {
  int code = 0;
  std::string what, hint;
};

Caught run_catching(const std::function<void()>& action, bool internal_too) {
  Caught c;
  try {
    action();
  } catch (const Error& e) {
    c = {static_cast<int>(e.code()), e.what(), e.hint()};
  } catch (const std::exception& e) {
    if (!internal_too) throw;
    c = {static_cast<int>(ExitCode::internal), std::string("internal error: ") + e.what(), {}};
  }
  return c;
}

}  // namespace

void on_root_then_share_failure(MPI_Comm comm, const std::function<void()>& action) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  Caught c;
  if (rank == 0) c = run_catching(action, false);
  broadcast_value(comm, c.code);
  if (c.code == 0) return;
  broadcast_string(comm, c.what);
  broadcast_string(comm, c.hint);
  throw SharedError(static_cast<ExitCode>(c.code), c.what, c.hint);
}

void on_every_rank_then_share_failure(MPI_Comm comm, const std::function<void()>& action) {
  int rank = 0, size = 1;
  AS_MPI_TRY(MPI_Comm_rank(comm, &rank));
  AS_MPI_TRY(MPI_Comm_size(comm, &size));
  Caught c = run_catching(action, true);
  const int mine = c.code != 0 ? rank : size;
  int first = size;
  AS_MPI_TRY(MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm));
  if (first == size) return;
  broadcast_value(comm, c.code, first);
  broadcast_string(comm, c.what, first);
  broadcast_string(comm, c.hint, first);
  if (size > 1) c.what = "rank " + std::to_string(first) + ": " + c.what;
  throw SharedError(static_cast<ExitCode>(c.code), c.what, c.hint);
}

void abort_all(MPI_Comm comm, ExitCode code, const std::string& message) {
  std::fprintf(stderr, "%s\n", message.c_str());
  std::fflush(stderr);
  MPI_Abort(comm, static_cast<int>(code));
  std::abort();  // MPI_Abort does not return; this satisfies [[noreturn]] if it ever did.
}

}  // namespace astrosweep::mpi
