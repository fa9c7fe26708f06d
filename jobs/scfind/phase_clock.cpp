#include "phase_clock.hpp"

#include <algorithm>
#include <cstdio>

#include "core/error.hpp"
#include "core/mpi.hpp"

namespace astrosweep::scfind {

double PhaseSeconds::total() const noexcept {
  double sum = 0;
  for (const double s : seconds) sum += s;
  return sum;
}

PhaseSeconds PhaseSeconds::since(const PhaseSeconds& earlier) const noexcept {
  PhaseSeconds d;
  for (std::size_t i = 0; i < phase_count; ++i) d.seconds[i] = seconds[i] - earlier.seconds[i];
  return d;
}

PhaseClock::Scope::Scope(PhaseClock* clock, Phase phase) : clock_(clock) {
  if (clock_ != nullptr) clock_->enter(phase);
}

PhaseClock::Scope::~Scope() {
  if (clock_ != nullptr) clock_->leave();
}

void PhaseClock::charge(Clock::time_point now) {
  if (!open_.empty())
    seconds_.seconds[static_cast<std::size_t>(open_.back())] += std::chrono::duration<double>(now - since_).count();
  since_ = now;
}

void PhaseClock::enter(Phase phase) {
  charge(Clock::now());
  open_.push_back(phase);
}

void PhaseClock::leave() {
  AS_ASSERT(!open_.empty());
  charge(Clock::now());
  open_.pop_back();
}

void PhaseClock::wait_for_ranks(MPI_Comm comm) {
  const Scope scope(this, Phase::waiting);
  AS_MPI_TRY(MPI_Barrier(comm));
}

std::string describe_phases(const PhaseSeconds& split, double whole) {
  static constexpr const char* names[phase_count] = {"compute", "transfers", "hand-over", "statistics",
                                                     "halos",   "waiting",   "reading"};
  std::string text;
  char part[64];
  for (std::size_t i = 0; i < phase_count; ++i) {
    std::snprintf(part, sizeof part, "%s%s %.2f s", text.empty() ? "" : ", ", names[i], split.seconds[i]);
    text += part;
  }
  // Never below zero: the phases are disjoint parts of the wall time (rounding aside).
  std::snprintf(part, sizeof part, ", other %.2f s", std::max(0.0, whole - split.total()));
  return text + part;
}

}  // namespace astrosweep::scfind
