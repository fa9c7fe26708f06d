// One run per output (io/output_lock.hpp): a second process finds the lock held and is told who
// holds it; a released or left-over lock file does not stop the next run. fcntl locks belong to a
// process (a second lock in the same process always succeeds), so the second run is a fork()ed
// child; it reports by its exit code and never runs a gtest assertion.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>

#include "core/error.hpp"
#include "io/output_lock.hpp"
#include "test_data.hpp"

namespace astrosweep::io {
namespace {

namespace fs = std::filesystem;

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

/// Runs `child` in a forked process; its return value is the exit code (an exception: 99).
int in_child(const std::function<int()>& child) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    int code = 99;
    try {
      code = child();
    } catch (...) {
    }
    ::_exit(code);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/// In the child: 0 when acquiring the lock fails with an OutputError whose message holds every
/// part of `expected`, 1 when it is taken, 2 when the message lacks one.
int refused_with(const std::string& product, const std::vector<std::string>& expected) {
  try {
    OutputLock lock = OutputLock::acquire(product, "astrosweep period second");
    return 1;
  } catch (const OutputError& e) {
    const std::string message = std::string(e.what()) + "\n" + e.hint();
    for (const auto& part : expected)
      if (message.find(part) == std::string::npos) {
        std::fprintf(stderr, "child: '%s' not in: %s\n", part.c_str(), message.c_str());
        return 2;
      }
    return 0;
  }
}

class OutputLockTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = test::scratch_directory("lock");
    product_ = (dir_ / "product.h5").string();
  }
  void TearDown() override {
    ::unsetenv("SLURM_JOB_ID");
    fs::remove_all(dir_);
  }
  fs::path dir_;
  std::string product_;
};

TEST_F(OutputLockTest, TheLockFileSaysWhoHoldsIt) {
  ::setenv("SLURM_JOB_ID", "4242", 1);
  OutputLock lock = OutputLock::acquire(product_, "astrosweep period -i x.csv\n-o product.h5");
  ASSERT_TRUE(lock.held()) << lock.unsupported();  // /tmp locks (tmpfs, ext4, xfs)
  EXPECT_EQ(lock_path(product_), product_ + ".lock");
  const std::string text = read_text(lock_path(product_));
  EXPECT_EQ(text.rfind("astrosweep-lock 1\n", 0), 0u) << text;
  const LockHolder holder = LockHolder::parse(text);
  EXPECT_EQ(holder.pid, std::to_string(::getpid()));
  EXPECT_EQ(holder.slurm_job, "4242");
  EXPECT_FALSE(holder.host.empty());
  EXPECT_NE(holder.since.find(" UTC"), std::string::npos);
  EXPECT_EQ(holder.command, "astrosweep period -i x.csv -o product.h5");  // one line
  EXPECT_EQ(holder.description(),
            "host " + holder.host + " pid " + holder.pid + " (Slurm job 4242) since " + holder.since);
}

TEST_F(OutputLockTest, ASecondProcessIsRefusedAndToldWhoHoldsIt) {
  ::setenv("SLURM_JOB_ID", "981", 1);
  OutputLock lock = OutputLock::acquire(product_, "astrosweep period first");
  ASSERT_TRUE(lock.held());
  // The lock file is read in children only: closing any descriptor of it in this process would
  // release this process's lock (POSIX record locks).
  const std::string host = LockHolder::this_process("").host;
  EXPECT_EQ(in_child([&] {
              return refused_with(product_,
                                  {"output '" + product_ + "' is being written by another run: host " + host + " pid " +
                                       std::to_string(::getppid()) + " (Slurm job 981) since ",
                                   "running 'astrosweep period first'", "wait for it or choose another --output"});
            }),
            0);
  // The refused process changed nothing: the holder's record is intact, the lock still held.
  EXPECT_EQ(in_child([&] {
              return LockHolder::parse(read_text(lock_path(product_))).pid == std::to_string(::getppid()) ? 0 : 1;
            }),
            0);
  EXPECT_EQ(in_child([&] { return refused_with(product_, {"is being written by another run"}); }), 0);
}

TEST_F(OutputLockTest, AReleasedLockIsRemovedAndCanBeTakenAgain) {
  {
    OutputLock lock = OutputLock::acquire(product_, "first");
    ASSERT_TRUE(lock.held());
    lock.release();
    EXPECT_FALSE(lock.held());
    EXPECT_FALSE(fs::exists(lock_path(product_)));
  }
  {
    OutputLock lock = OutputLock::acquire(product_, "second");
    ASSERT_TRUE(lock.held());
  }  // the destructor releases and removes it as well
  EXPECT_FALSE(fs::exists(lock_path(product_)));
  EXPECT_EQ(in_child([&] { return OutputLock::acquire(product_, "child").held() ? 0 : 1; }), 0);
}

TEST_F(OutputLockTest, ALockFileLeftByAKilledRunLocksNothing) {
  // A run killed with SIGKILL leaves its record; the kernel released its lock.
  std::ofstream(lock_path(product_)) << "astrosweep-lock 1\nhost = gone\npid = 1\n";
  OutputLock lock = OutputLock::acquire(product_, "astrosweep period next");
  ASSERT_TRUE(lock.held());
  EXPECT_EQ(LockHolder::parse(read_text(lock_path(product_))).pid, std::to_string(::getpid()));
}

TEST_F(OutputLockTest, AHolderThatHasNotWrittenItsRecordYetStillRefuses) {
  // A child takes the lock the raw way (no record), tells the parent, and waits to be told to end.
  int ready[2];
  int done[2];
  ASSERT_EQ(::pipe(ready), 0);
  ASSERT_EQ(::pipe(done), 0);
  const pid_t pid = ::fork();
  if (pid == 0) {
    const int fd = ::open(lock_path(product_).c_str(), O_RDWR | O_CREAT, 0644);
    struct flock whole {};
    whole.l_type = F_WRLCK;
    whole.l_whence = SEEK_SET;
    char byte = fd >= 0 && ::fcntl(fd, F_SETLK, &whole) == 0 ? 'y' : 'n';
    (void)!::write(ready[1], &byte, 1);
    (void)!::read(done[0], &byte, 1);
    ::_exit(0);
  }
  char byte = 0;
  ASSERT_EQ(::read(ready[0], &byte, 1), 1);
  ASSERT_EQ(byte, 'y');
  std::string message;
  try {
    OutputLock lock = OutputLock::acquire(product_, "second");
  } catch (const OutputError& e) {
    message = e.what();
  }
  (void)!::write(done[1], &byte, 1);
  ::waitpid(pid, nullptr, 0);
  EXPECT_NE(message.find("is being written by another run: (it has not written who it is"), std::string::npos)
      << message;
  EXPECT_TRUE(fs::exists(lock_path(product_)));  // the refused run never removes the holder's file
  for (int fd : {ready[0], ready[1], done[0], done[1]}) ::close(fd);
}

TEST_F(OutputLockTest, NoDirectoryIsAnOutputError) {
  EXPECT_THROW((void)OutputLock::acquire((dir_ / "missing" / "product.h5").string(), "x"), OutputError);
}

}  // namespace
}  // namespace astrosweep::io
