#include "dist/work_dispatch.hpp"

#include <cstdio>
#include <limits>

#include "core/interrupt.hpp"

namespace astrosweep {

namespace {
constexpr int tag_request = 11;
constexpr int tag_reply = 100;  ///< lane l's replies: tag_reply + l
constexpr std::uint64_t stop_id = std::numeric_limits<std::uint64_t>::max();

std::string hms(double seconds) {
  if (!(seconds >= 0) || seconds > 1e8) return "--:--:--";
  const auto s = static_cast<long>(seconds + 0.5);
  char buf[32];
  std::snprintf(buf, sizeof buf, "%02ld:%02ld:%02ld", s / 3600, (s / 60) % 60, s % 60);
  return buf;
}
}  // namespace

ProgressReporter::ProgressReporter(std::string job, std::uint64_t total_items, std::string item_name, double total_work,
                                   std::string work_name, double interval_seconds)
    : job_(std::move(job)),
      total_items_(total_items),
      item_name_(std::move(item_name)),
      total_work_(total_work),
      work_name_(std::move(work_name)),
      interval_(interval_seconds) {}

void ProgressReporter::record(const UnitReport& report) {
  items_ += report.items;
  work_ += report.work;
  const auto now = std::chrono::steady_clock::now();
  if (std::chrono::duration<double>(now - last_).count() >= interval_) print_line(false);
}

void ProgressReporter::print_line(bool final) {
  const auto now = std::chrono::steady_clock::now();
  last_ = now;
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  const double rate = elapsed > 0 ? work_ / elapsed : 0;
  const double eta = rate > 0 ? (total_work_ - work_) / rate : -1;
  std::fprintf(stderr, "[astrosweep] %s: %s%llu/%llu %s (%.1f%%), %.3g %s/s, %.3g %s/s, %s %s\n", job_.c_str(),
               final ? "done: " : "", static_cast<unsigned long long>(items_),
               static_cast<unsigned long long>(total_items_), item_name_.c_str(),
               total_items_ ? 100.0 * static_cast<double>(items_) / static_cast<double>(total_items_) : 100.0,
               elapsed > 0 ? static_cast<double>(items_) / elapsed : 0.0, item_name_.c_str(), rate, work_name_.c_str(),
               final ? "elapsed" : "ETA", hms(final ? elapsed : eta).c_str());
  std::fflush(stderr);
}

WorkDispatcher::WorkDispatcher(MPI_Comm comm, std::vector<WorkUnit> units, ProgressReporter* progress,
                               FinishedHook on_finished, int lanes)
    : comm_(comm), units_(std::move(units)), progress_(progress), on_finished_(std::move(on_finished)), lanes_(lanes) {
  AS_ASSERT(lanes >= 1 && lanes <= max_lanes);
  AS_MPI_TRY(MPI_Reduce(&lanes_, &clients_, 1, MPI_INT, MPI_SUM, 0, comm_.get()));
  if (comm_.rank() != 0) return;
  for (std::size_t i = 0; i < units_.size(); ++i) AS_ASSERT(position_.emplace(units_[i].id, i).second);
  thread_ = std::thread([this] { serve(); });
}

WorkDispatcher::~WorkDispatcher() {
  if (thread_.joinable()) thread_.join();
}

void WorkDispatcher::join() {
  if (thread_.joinable()) thread_.join();
}

void WorkDispatcher::serve() {
  try {
    std::size_t next = 0;
    int stopped = 0;
    bool stopping = false;  // a rank (this one included) received a stop signal: hand out nothing more
    while (stopped < clients_) {
      stopping = stopping || interrupt::received() != 0;
      // Poll instead of a blocking receive: MPI implementations spin inside blocking calls, and
      // this thread shares rank 0's cores with its compute threads.
      int ready = 0;
      MPI_Status status;
      AS_MPI_TRY(MPI_Iprobe(MPI_ANY_SOURCE, tag_request, comm_.get(), &ready, &status));
      if (!ready) {
        std::this_thread::sleep_for(std::chrono::microseconds(200));
        continue;
      }
      UnitReport report;
      AS_MPI_TRY(
          MPI_Recv(&report, sizeof report, MPI_BYTE, status.MPI_SOURCE, tag_request, comm_.get(), MPI_STATUS_IGNORE));
      if (report.unit >= 0) {
        const auto found = position_.find(static_cast<std::uint64_t>(report.unit));
        AS_ASSERT(found != position_.end());
        if (on_finished_) on_finished_(units_[found->second]);
        ++finished_;
        if (progress_) progress_->record(report);
      }
      stopping = stopping || report.signal != 0;
      WorkUnit reply;
      if (!stopping && next < units_.size()) {
        reply = units_[next++];
      } else {
        reply.id = stop_id;
        ++stopped;
      }
      AS_ASSERT(report.lane >= 0 && report.lane < max_lanes);
      AS_MPI_TRY(MPI_Send(&reply, sizeof reply, MPI_BYTE, status.MPI_SOURCE, tag_reply + report.lane, comm_.get()));
    }
  } catch (const Error& e) {
    mpi::abort_all(MPI_COMM_WORLD, e.code(),
                   std::string("astrosweep: work dispatcher failed: ") + e.what() +
                       (e.hint().empty() ? "" : "\n  hint: " + e.hint()));
  } catch (const std::exception& e) {
    mpi::abort_all(MPI_COMM_WORLD, ExitCode::internal, std::string("astrosweep: work dispatcher failed: ") + e.what());
  }
}

WorkClient::WorkClient(const WorkDispatcher& dispatcher, int lane) : comm_(dispatcher.comm()), lane_(lane) {
  AS_ASSERT(lane >= 0 && lane < dispatcher.lanes());
}

std::optional<WorkUnit> WorkClient::next(UnitReport finished) {
  finished.lane = lane_;
  AS_MPI_TRY(MPI_Send(&finished, sizeof finished, MPI_BYTE, 0, tag_request, comm_));
  WorkUnit unit;
  AS_MPI_TRY(MPI_Recv(&unit, sizeof unit, MPI_BYTE, 0, tag_reply + lane_, comm_, MPI_STATUS_IGNORE));
  if (unit.id == stop_id) return std::nullopt;
  return unit;
}

}  // namespace astrosweep
