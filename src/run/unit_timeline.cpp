#include "run/unit_timeline.hpp"

#include <cstdio>
#include <cstdlib>
#include <fstream>

namespace astrosweep::run {

UnitTimeline::UnitTimeline(std::string job, int rank, std::string columns)
    : job_(std::move(job)), columns_(std::move(columns)), rank_(rank) {
  if (const char* dir = std::getenv("ASTROSWEEP_TIMELINE"); dir && *dir) directory_ = dir;
}

double UnitTimeline::now() const noexcept {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

void UnitTimeline::record(int lane, std::uint64_t unit, std::uint64_t items, const std::vector<double>& marks) {
  if (!enabled()) return;
  std::string line = std::to_string(lane) + "\t" + std::to_string(unit) + "\t" + std::to_string(items);
  char value[32];
  for (double m : marks) {
    std::snprintf(value, sizeof value, "\t%.6f", m);
    line += value;
  }
  const std::scoped_lock hold(lock_);
  lines_.push_back(std::move(line));
}

void UnitTimeline::write() const {
  if (!enabled()) return;
  const std::string path = directory_ + "/" + job_ + "_rank" + std::to_string(rank_) + ".tsv";
  std::ofstream out(path);
  out << "lane\tunit\titems\t" << columns_ << "\n";
  const std::scoped_lock hold(lock_);
  for (const auto& l : lines_) out << l << "\n";
  if (!out) std::fprintf(stderr, "[astrosweep] %s: could not write the timeline %s\n", job_.c_str(), path.c_str());
}

}  // namespace astrosweep::run
