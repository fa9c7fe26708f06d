// The smooth-and-clip split's accounting (phase_clock.hpp): nested phases take their time out of
// the enclosing one, so the phases never add up to more than the wall time they were open in, none
// is negative, and time outside every phase counts nowhere. Run on 1 and 3 ranks (the barrier).
// Never asserts how long anything takes, only how the time is shared out.
#include <gtest/gtest.h>
#include <mpi.h>

#include <chrono>
#include <stdexcept>
#include <string>
#include <thread>

#include "phase_clock.hpp"

namespace astrosweep::scfind {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

void busy_for(std::chrono::microseconds d) { std::this_thread::sleep_for(d); }

void expect_consistent(const PhaseSeconds& split, double whole) {
  for (std::size_t i = 0; i < phase_count; ++i) EXPECT_GE(split.seconds[i], 0.0) << "phase " << i;
  EXPECT_LE(split.total(), whole);
}

TEST(PhaseClock, NestedPhasesAreTakenOutOfTheEnclosingOne) {
  PhaseClock clock;
  const PhaseSeconds before = clock.snapshot();
  const auto t0 = Clock::now();
  busy_for(std::chrono::microseconds(500));  // no phase open: counted nowhere
  const auto t_halos = Clock::now();
  {
    const PhaseClock::Scope halos(&clock, Phase::halos);
    busy_for(std::chrono::microseconds(300));
    {
      const PhaseClock::Scope transfers(&clock, Phase::transfers);
      busy_for(std::chrono::microseconds(300));
      const PhaseClock::Scope compute(&clock, Phase::compute);
      busy_for(std::chrono::microseconds(300));
    }
    busy_for(std::chrono::microseconds(300));
  }
  const double halos_wall = seconds_since(t_halos);  // the scope's whole life, its closing included
  const double whole = seconds_since(t0);
  const PhaseSeconds split = clock.snapshot().since(before);
  expect_consistent(split, whole);
  EXPECT_GT(split[Phase::halos], 0.0);
  EXPECT_GT(split[Phase::transfers], 0.0);
  EXPECT_GT(split[Phase::compute], 0.0);
  // The three share the halos scope's wall time between them, without counting any of it twice.
  EXPECT_LE(split[Phase::halos] + split[Phase::transfers] + split[Phase::compute], halos_wall);
  EXPECT_EQ(split[Phase::statistics], 0.0);
  EXPECT_EQ(split[Phase::waiting], 0.0);
  // The 500 us before any scope are in no phase: the phases leave at least that of the whole.
  EXPECT_LE(split.total(), whole - 0.0005);
}

TEST(PhaseClock, AScopeLeftByAnExceptionStillCloses) {
  PhaseClock clock;
  try {
    const PhaseClock::Scope outer(&clock, Phase::statistics);
    const PhaseClock::Scope inner(&clock, Phase::compute);
    throw std::runtime_error("a failing call");
  } catch (const std::runtime_error&) {
  }
  const PhaseSeconds after = clock.snapshot();
  busy_for(std::chrono::microseconds(300));  // nothing open any more: nothing counts
  EXPECT_EQ(clock.snapshot().total(), after.total());
}

TEST(PhaseClock, NullClockScopesDoNothing) {
  const PhaseClock::Scope none(nullptr, Phase::compute);
  SUCCEED();
}

TEST(PhaseClock, WaitingAtTheBarrierIsItsOwnPhase) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  PhaseClock clock;
  const auto t0 = Clock::now();
  {
    const PhaseClock::Scope statistics(&clock, Phase::statistics);
    if (rank == 0) busy_for(std::chrono::microseconds(2000));  // the slowest rank: the others wait
    clock.wait_for_ranks(MPI_COMM_WORLD);
  }
  const double whole = seconds_since(t0);
  const PhaseSeconds split = clock.snapshot();
  expect_consistent(split, whole);
  EXPECT_GE(split[Phase::waiting], 0.0);
  EXPECT_LE(split[Phase::waiting] + split[Phase::statistics], whole);
}

TEST(PhaseClock, DescribedWithTheRestAsOther) {
  PhaseSeconds split;
  split.seconds[static_cast<std::size_t>(Phase::compute)] = 0.5;
  split.seconds[static_cast<std::size_t>(Phase::halos)] = 0.25;
  EXPECT_EQ(describe_phases(split, 1.0),
            "compute 0.50 s, transfers 0.00 s, hand-over 0.00 s, statistics 0.00 s, halos 0.25 s, waiting 0.00 s, "
            "reading 0.00 s, other 0.25 s");
  // Rounding may make the phases a hair longer than the whole: "other" is then 0, never negative.
  EXPECT_NE(describe_phases(split, 0.75 - 1e-12).find("other 0.00 s"), std::string::npos);
}

}  // namespace
}  // namespace astrosweep::scfind
