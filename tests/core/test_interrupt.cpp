// The stop-signal record: a handled signal is recorded (first one wins), every rank learns of it
// through any_rank, and Interrupted carries exit code 6 and says what to do.
#include <gtest/gtest.h>
#include <mpi.h>

#include <csignal>

#include "core/interrupt.hpp"

namespace astrosweep {
namespace {

// One test: the record is per process and cannot be cleared.
TEST(Interrupt, RecordsTheFirstSignalAndEveryRankLearnsIt) {
  interrupt::install_handlers();
  interrupt::install_handlers();  // idempotent
  EXPECT_EQ(interrupt::received(), 0);
  EXPECT_FALSE(interrupt::any_rank(MPI_COMM_WORLD));

  ASSERT_EQ(std::raise(SIGUSR2), 0);  // handled: the process goes on
  EXPECT_EQ(interrupt::received(), SIGUSR2);
  ASSERT_EQ(std::raise(SIGTERM), 0);  // a second one is recorded no more
  EXPECT_EQ(interrupt::received(), SIGUSR2);
  EXPECT_TRUE(interrupt::any_rank(MPI_COMM_WORLD));

  const interrupt::Interrupted e(interrupt::received(), "7 of 20 units done", "see the journal");
  EXPECT_EQ(e.code(), ExitCode::interrupted);
  EXPECT_EQ(static_cast<int>(e.code()), 6);
  EXPECT_STREQ(e.what(), "interrupted by SIGUSR2; 7 of 20 units done; rerun the same command with --resume");
  EXPECT_EQ(e.hint(), "see the journal");
  EXPECT_STREQ(exit_code_name(ExitCode::interrupted), "interrupted");
}

TEST(Interrupt, SignalNames) {
  EXPECT_EQ(interrupt::signal_name(SIGTERM), "SIGTERM");
  EXPECT_EQ(interrupt::signal_name(SIGINT), "SIGINT");
  EXPECT_EQ(interrupt::signal_name(SIGUSR1), "SIGUSR1");
  EXPECT_EQ(interrupt::signal_name(SIGHUP), "signal " + std::to_string(SIGHUP));
}

}  // namespace
}  // namespace astrosweep
