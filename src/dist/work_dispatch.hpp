#pragma once
// Dynamic hand-out of work units: rank 0 runs a dispatcher on its own thread that answers "next
// unit, please" from every rank (rank 0's own worker included), records what each finished, and
// reports progress. Ranks that finish early simply ask again, so uneven units balance themselves.
// Once any rank has received a stop signal (core/interrupt.hpp), the dispatcher hands out nothing
// more: every rank finishes the unit it holds, reports it, and gets "stop" in reply.

#include <mpi.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "core/mpi.hpp"
#include "dist/work_plan.hpp"

namespace astrosweep {

/// What a rank reports when it asks for its next unit.
struct UnitReport {
  std::int64_t unit = -1;  ///< the unit just finished, -1 on the first request
  std::uint64_t items = 0;
  double work = 0;  ///< e.g. N_t x N_f pairs
  double seconds = 0;
  int signal = 0;  ///< the stop signal this rank received (interrupt::received()), 0 if none
  int lane = 0;    ///< which of the rank's lanes asks (the reply goes to that lane)
};

/// Progress lines on stderr: items done, rate, ETA; at most one per interval. The job names itself,
/// its items and its work ("period", "objects", "pairs"):
/// "[astrosweep] period: 12/40 objects (30.0%), 3.1 objects/s, 2e+08 pairs/s, ETA 0:00:09".
class ProgressReporter {
 public:
  ProgressReporter(std::string job, std::uint64_t total_items, std::string item_name, double total_work,
                   std::string work_name, double interval_seconds);
  void record(const UnitReport& report);
  void print_line(bool final);

 private:
  std::string job_;
  std::uint64_t total_items_;
  std::string item_name_;
  double total_work_;
  std::string work_name_;
  double interval_;
  std::uint64_t items_ = 0;
  double work_ = 0;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  std::chrono::steady_clock::time_point last_ = start_;
};

class WorkDispatcher {
 public:
  /// Called on rank 0's dispatcher thread for each unit a rank reports finished, before that rank
  /// is answered: where a job journals its finished units. Throwing stops the job (MPI_Abort).
  using FinishedHook = std::function<void(const WorkUnit&)>;

  /// Largest number of lanes a rank may run (their reply tags are reserved).
  static constexpr int max_lanes = 64;

  /// Collective over `comm`. On rank 0 starts the dispatcher thread over `units` (ids unique);
  /// elsewhere idle. `lanes` (1..max_lanes, may differ between ranks): the clients this rank runs.
  WorkDispatcher(MPI_Comm comm, std::vector<WorkUnit> units, ProgressReporter* progress, FinishedHook on_finished = {},
                 int lanes = 1);
  ~WorkDispatcher();
  WorkDispatcher(const WorkDispatcher&) = delete;
  WorkDispatcher& operator=(const WorkDispatcher&) = delete;
  /// The communicator clients must use.
  [[nodiscard]] MPI_Comm comm() const noexcept { return comm_.get(); }
  /// This rank's lanes.
  [[nodiscard]] int lanes() const noexcept { return lanes_; }
  /// Waits for the dispatcher to have sent every lane of every rank its stop (rank 0), no-op elsewhere.
  void join();
  /// After join, on rank 0: how many units ranks reported finished (all of them unless a signal
  /// stopped the hand-out). 0 elsewhere.
  [[nodiscard]] std::uint64_t units_finished() const noexcept { return finished_; }

 private:
  void serve();
  mpi::Communicator comm_;
  std::vector<WorkUnit> units_;
  ProgressReporter* progress_;
  FinishedHook on_finished_;
  std::unordered_map<std::uint64_t, std::size_t> position_;  ///< unit id -> index in units_
  std::uint64_t finished_ = 0;
  int lanes_ = 1;
  int clients_ = 0;  ///< lanes of all ranks (rank 0)
  std::thread thread_;
};

class WorkClient {
 public:
  /// The client of lane `lane` (0..dispatcher.lanes()-1); each lane uses its own, from one thread.
  explicit WorkClient(const WorkDispatcher& dispatcher, int lane = 0);
  /// Reports `finished` and returns the next unit, or nothing when all work is handed out.
  std::optional<WorkUnit> next(UnitReport finished);

 private:
  MPI_Comm comm_;
  int lane_;
};

}  // namespace astrosweep
