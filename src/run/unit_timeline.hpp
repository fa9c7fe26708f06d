#pragma once
// When each work unit's phases began and ended on a rank, for finding where its time goes (how the
// figures in docs/performance.md were found). Off unless the environment variable
// ASTROSWEEP_TIMELINE names a directory: then each rank writes JOB_rank<R>.tsv there at the end of
// the run, one line per unit: lane, unit id, items, then the job's marks in seconds since the
// timeline began. A diagnostic: it changes nothing else and costs nothing when off.

#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

namespace astrosweep::run {

class UnitTimeline {
 public:
  /// `columns`: the names of the marks the job records, tab-separated.
  UnitTimeline(std::string job, int rank, std::string columns);
  [[nodiscard]] bool enabled() const noexcept { return !directory_.empty(); }
  /// Seconds since construction.
  [[nodiscard]] double now() const noexcept;
  /// Thread-safe: lanes record concurrently.
  void record(int lane, std::uint64_t unit, std::uint64_t items, const std::vector<double>& marks);
  /// Writes the file (when enabled); a failure to write is reported on stderr, never thrown.
  void write() const;

 private:
  std::string directory_, job_, columns_;
  int rank_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  mutable std::mutex lock_;
  std::vector<std::string> lines_;
};

}  // namespace astrosweep::run
