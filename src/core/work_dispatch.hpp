#pragma once
// Dynamic hand-out of work units: rank 0 runs a dispatcher on its own thread that answers "next
// unit, please" from every rank (rank 0's own worker included), records what each finished, and
// reports progress. Ranks that finish early simply ask again, so uneven units balance themselves.

#include <mpi.h>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "core/mpi.hpp"
#include "core/work_plan.hpp"

namespace astrosweep {

/// What a rank reports when it asks for its next unit.
struct UnitReport {
  std::int64_t unit = -1;  ///< the unit just finished, -1 on the first request
  std::uint64_t objects = 0;
  double work = 0;  ///< e.g. N_t x N_f pairs
  double seconds = 0;
};

/// Progress lines on stderr: objects done, rate, ETA; at most one per interval.
class ProgressReporter {
 public:
  ProgressReporter(std::uint64_t total_objects, double total_work, double interval_seconds, std::string work_name);
  void record(const UnitReport& report);
  void print_line(bool final);

 private:
  std::uint64_t total_objects_;
  double total_work_;
  double interval_;
  std::string work_name_;
  std::uint64_t objects_ = 0;
  double work_ = 0;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  std::chrono::steady_clock::time_point last_ = start_;
};

class WorkDispatcher {
 public:
  /// Collective over `comm`. On rank 0 starts the dispatcher thread over `units`; elsewhere idle.
  WorkDispatcher(MPI_Comm comm, std::vector<WorkUnit> units, ProgressReporter* progress);
  ~WorkDispatcher();
  WorkDispatcher(const WorkDispatcher&) = delete;
  WorkDispatcher& operator=(const WorkDispatcher&) = delete;
  /// The communicator clients must use.
  [[nodiscard]] MPI_Comm comm() const noexcept { return comm_.get(); }
  /// Waits for the dispatcher to have sent every rank its stop (rank 0), no-op elsewhere.
  void join();

 private:
  void serve();
  mpi::Communicator comm_;
  std::vector<WorkUnit> units_;
  ProgressReporter* progress_;
  std::thread thread_;
};

class WorkClient {
 public:
  explicit WorkClient(const WorkDispatcher& dispatcher) : comm_(dispatcher.comm()) {}
  /// Reports `finished` and returns the next unit, or nothing when all work is handed out.
  std::optional<WorkUnit> next(const UnitReport& finished);

 private:
  MPI_Comm comm_;
};

}  // namespace astrosweep
