#include "io/output_lock.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <sstream>

#include "core/error.hpp"

namespace astrosweep::io {

namespace {

constexpr const char* kMagic = "astrosweep-lock 1";

std::string one_line(std::string s) {
  for (char& c : s)
    if (c == '\n' || c == '\r') c = ' ';
  return s;
}

/// The lock file's text as another process left it (empty when it cannot be read).
std::string read_all(int fd) {
  std::string text;
  char buffer[4096];
  off_t at = 0;
  for (;;) {
    const ssize_t n = ::pread(fd, buffer, sizeof buffer, at);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    text.append(buffer, static_cast<std::size_t>(n));
    at += n;
  }
  return text;
}

bool same_file(int fd, const std::string& path) {
  struct stat mine {};
  struct stat named {};
  return ::fstat(fd, &mine) == 0 && ::stat(path.c_str(), &named) == 0 && mine.st_dev == named.st_dev &&
         mine.st_ino == named.st_ino;
}

[[noreturn]] void refuse(const std::string& product, const std::string& path, const std::string& text) {
  const LockHolder holder = LockHolder::parse(text);
  std::string who = holder.description();
  // The holder writes its record just after it takes the lock: it may not be there yet.
  if (who.empty()) who = "(it has not written who it is into '" + path + "' yet)";
  std::string what = "output '" + product + "' is being written by another run: " + who;
  if (!holder.command.empty()) what += ", running '" + holder.command + "'";
  throw OutputError(what, "wait for it or choose another --output (while it runs, '" + path + "' is locked)");
}

}  // namespace

std::string lock_path(const std::string& product) { return product + ".lock"; }

LockHolder LockHolder::this_process(const std::string& command) {
  LockHolder h;
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) == 0) h.host = host;
  h.pid = std::to_string(::getpid());
  if (const char* job = std::getenv("SLURM_JOB_ID")) h.slurm_job = job;
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  char when[64] = {};
  if (::gmtime_r(&now, &utc) && std::strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S UTC", &utc) > 0) h.since = when;
  h.command = one_line(command);
  return h;
}

LockHolder LockHolder::parse(const std::string& text) {
  LockHolder h;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    const auto at = line.find(" = ");
    if (at == std::string::npos) continue;
    const std::string key = line.substr(0, at);
    std::string value = line.substr(at + 3);
    if (key == "host") h.host = value;
    if (key == "pid") h.pid = value;
    if (key == "slurm_job_id") h.slurm_job = value;
    if (key == "started") h.since = value;
    if (key == "command") h.command = value;
  }
  return h;
}

std::string LockHolder::text() const {
  return std::string(kMagic) + "\nhost = " + one_line(host) + "\npid = " + one_line(pid) +
         "\nslurm_job_id = " + one_line(slurm_job) + "\nstarted = " + one_line(since) +
         "\ncommand = " + one_line(command) + "\n";
}

std::string LockHolder::description() const {
  if (host.empty() && pid.empty()) return {};
  std::string d = "host " + (host.empty() ? std::string("(unknown)") : host) + " pid " +
                  (pid.empty() ? std::string("(unknown)") : pid);
  if (!slurm_job.empty()) d += " (Slurm job " + slurm_job + ")";
  if (!since.empty()) d += " since " + since;
  return d;
}

OutputLock OutputLock::acquire(const std::string& product, const std::string& command) {
  const std::string path = lock_path(product);
  // More than one try only when a finishing run removes the file between our open and our lock.
  for (int attempt = 0; attempt < 20; ++attempt) {
    PosixFile file(path, O_RDWR | O_CREAT, 0644);
    struct flock whole {};
    whole.l_type = F_WRLCK;
    whole.l_whence = SEEK_SET;  // l_start = l_len = 0: the whole file, however long
    int rc = 0;
    while ((rc = ::fcntl(file.fd(), F_SETLK, &whole)) != 0 && errno == EINTR) {
    }
    if (rc != 0) {
      const int err = errno;
      if (err == EAGAIN || err == EACCES) refuse(product, path, read_all(file.fd()));
      if (err == ENOLCK || err == EOPNOTSUPP || err == ENOSYS || err == EINVAL) {
        std::filesystem::path dir = std::filesystem::path(product).parent_path();
        if (dir.empty()) dir = ".";
        std::error_code ec;
        std::filesystem::remove(path, ec);  // it would only puzzle: it locks nothing
        return OutputLock(PosixFile(), path,
                          "the file system of '" + dir.string() + "' cannot lock files (fcntl: " + std::strerror(err) +
                              "): a second run writing '" + product + "' at the same time would not be detected");
      }
      throw OutputError("cannot lock '" + path + "': " + std::strerror(err),
                        "check that the file system of the output is writable");
    }
    if (!same_file(file.fd(), path)) continue;  // removed by the run that held it: lock the new one
    file.truncate(0);
    file.write_all(LockHolder::this_process(command).text());
    file.sync();  // what a run on another node reads when it finds the lock held
    return OutputLock(std::move(file), path, {});
  }
  throw OutputError("cannot lock '" + path + "': it was replaced 20 times while this run tried to lock it",
                    "another process keeps recreating it: check what else writes this output");
}

void OutputLock::release() noexcept {
  if (!held()) return;
  ::unlink(path_.c_str());  // while we hold the lock: a run waiting for it checks the path again
  file_ = PosixFile();      // closing releases the lock
}

}  // namespace astrosweep::io
