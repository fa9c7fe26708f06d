// kill_and_resume: interrupts `astrosweep period` (or `scfind`) runs under mpiexec at moments a
// seed chooses, resumes them, and checks that the product equals an uninterrupted run's
// (docs/reliability.md).
//
//   kill_and_resume MODE --mpiexec PATH --exe PATH --compare PATH --reference REF.h5 --product OUT.h5
//                   [--job period|scfind|fdas|spiir] [--np 2,3,1] [--resume-np N] [--seed S] [--rounds K]
//                   [--other ARG|ARG|...] [--at-log TEXT] -- JOB ARGS
//
// MODE
//   kill-all  SIGKILL every rank, K times, then resume to the end
//   kill-one  SIGKILL one rank; mpiexec must tear the job down (no hang), then resume
//   term      SIGTERM to every rank or to one: exit code 6, product incomplete, journal kept
//   mismatch  interrupt with SIGTERM, then --resume with the --other arguments: exit code 2, the
//             product untouched; the complete product refuses them too
//   second-writer  while a run holds the output (its ranks stopped with SIGSTOP after its first
//             journal entry, so it cannot end first), a second run with --resume and one with
//             --overwrite are refused: exit code 4 naming the first run's host and pid, nothing
//             touched; the first run, continued, completes (io/output_lock.hpp)
// Every mode ends with a resume on --resume-np ranks (exit 0), compare_products against REF,
// the journal gone, and one more --resume that must leave the complete product byte for byte
// as it was (exit 0, "nothing to do").
//
// --at-log TEXT: every round's moment is when the job's log first holds TEXT (plus a few
// milliseconds): a stage after the journalled units, e.g. spiir's coherent stage.
//
// Moments: an early one (a delay after the ranks start: catalog reading, product creation) or
// "after j more journal entries" plus a few milliseconds, j drawn below the run's unit count. The
// moments are reproducible in what they aim at, not in what they hit: the product must be the
// same whatever they hit, and nothing here asserts a timing.
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <random>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "core/error.hpp"
#include "io/h5.hpp"

namespace {

using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;
namespace fs = std::filesystem;

struct Options {
  std::string mode, mpiexec, exe, compare, reference, product;
  std::string job = "period";  ///< period, fdas, or scfind (its journal entries are checkpoints)
  std::vector<int> np{2};
  int resume_np = 2;
  std::uint64_t seed = 1;
  int rounds = 3;
  std::vector<std::string> period_args, other_args;
  std::string at_log;  ///< the moment: when the log holds this (empty: the units' moments)
};

// Thrown, not exit(): unwinding runs ~Launch, which ends a job left running (a hang).
struct Failure : std::runtime_error {
  using std::runtime_error::runtime_error;
};
[[noreturn]] void fail(const std::string& what) { throw Failure(what); }

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string item;
  std::istringstream in(s);
  while (std::getline(in, item, sep))
    if (!item.empty()) out.push_back(item);
  return out;
}

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// --- processes ---------------------------------------------------------------------------------

/// One mpiexec launch, its output in a log file.
class Launch {
 public:
  Launch(const Options& o, int np, const std::vector<std::string>& args, bool resume, std::string log)
      : log_(std::move(log)) {
    std::vector<std::string> argv{o.mpiexec, "-n", std::to_string(np), o.exe, o.job};
    argv.insert(argv.end(), args.begin(), args.end());
    argv.insert(argv.end(), {"-o", o.product});
    if (resume) argv.push_back("--resume");
    for (const auto& a : argv) command_ += a + " ";
    pid_ = fork();
    if (pid_ < 0) fail("fork");
    if (pid_ == 0) {
      const int fd = open(log_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      dup2(fd, 1);
      dup2(fd, 2);
      std::vector<char*> cargv;
      for (auto& a : argv) cargv.push_back(a.data());
      cargv.push_back(nullptr);
      execvp(cargv[0], cargv.data());
      _exit(127);
    }
  }
  Launch(const Launch&) = delete;
  Launch& operator=(const Launch&) = delete;
  ~Launch() {
    if (!code_) {  // still running: a failed check; do not leave the job behind
      for (const auto& [rank, pid] : ranks()) kill(pid, SIGKILL);
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
  }

  /// The exit code once mpiexec has ended (128 + signal when a signal ended it).
  std::optional<int> poll() {
    if (code_) return code_;
    int status = 0;
    if (waitpid(pid_, &status, WNOHANG) == pid_)
      code_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return code_;
  }
  /// With `ranks_gone_suffices` (after a SIGKILL) the test is that no rank lives on:
  /// mpiexec's own teardown has been seen to stall on a loaded machine (OpenMPI 4.1) with every
  /// rank gone, and is then ended here rather than failing.
  int wait(std::chrono::seconds limit, const std::string& what, bool ranks_gone_suffices = false) {
    const auto end = Clock::now() + limit;
    while (!poll()) {
      if (Clock::now() > end) {
        const auto alive = ranks();
        if (ranks_gone_suffices && alive.empty()) {
          std::printf("%s: every rank gone, mpiexec still tearing down after %lld s: ended here\n", what.c_str(),
                      static_cast<long long>(limit.count()));
          kill(pid_, SIGKILL);
          waitpid(pid_, nullptr, 0);
          code_ = 128 + SIGKILL;
          return *code_;
        }
        std::string live;
        for (const auto& [rank, pid] : alive) live += " " + std::to_string(rank) + " (pid " + std::to_string(pid) + ")";
        fail(what + ": mpiexec still running after " + std::to_string(limit.count()) +
             " s (a hang); ranks alive:" + (live.empty() ? std::string(" none") : live) + "\n" + log());
      }
      std::this_thread::sleep_for(10ms);
    }
    return *code_;
  }

  /// The running ranks: rank -> pid (descendants of mpiexec with OMPI_COMM_WORLD_RANK or PMI_RANK).
  std::map<int, pid_t> ranks() const {
    std::map<pid_t, pid_t> parent;
    if (DIR* d = opendir("/proc")) {
      while (dirent* e = readdir(d)) {
        const pid_t pid = static_cast<pid_t>(std::atoi(e->d_name));
        if (pid <= 0) continue;
        const std::string stat = read_text("/proc/" + std::string(e->d_name) + "/stat");
        const auto close = stat.rfind(')');
        if (close == std::string::npos) continue;
        std::istringstream rest(stat.substr(close + 2));
        char state = 0;
        pid_t ppid = 0;
        if (rest >> state >> ppid && state != 'Z') parent[pid] = ppid;
      }
      closedir(d);
    }
    std::map<int, pid_t> out;
    for (const auto& [pid, ppid] : parent) {
      pid_t up = ppid;
      for (int depth = 0; depth < 4 && up > 1 && up != pid_; ++depth) up = parent.count(up) ? parent[up] : 0;
      if (up != pid_) continue;
      const std::string env = read_text("/proc/" + std::to_string(pid) + "/environ");
      for (const char* key : {"OMPI_COMM_WORLD_RANK=", "PMI_RANK="}) {
        const auto at = env.find(key);
        if (at != std::string::npos && (at == 0 || env[at - 1] == '\0')) {
          out[std::atoi(env.c_str() + at + std::strlen(key))] = pid;
          break;
        }
      }
    }
    return out;
  }

  [[nodiscard]] std::string log() const { return read_text(log_); }
  [[nodiscard]] const std::string& command() const { return command_; }

 private:
  std::string log_, command_;
  pid_t pid_ = -1;
  std::optional<int> code_;
};

// --- the product and its journal -----------------------------------------------------------------

std::string journal_of(const Options& o) { return o.product + ".journal"; }

std::size_t journal_entries(const Options& o) {
  const std::string text = read_text(journal_of(o));
  std::size_t n = 0;
  for (std::size_t at = text.find("\ndone "); at != std::string::npos; at = text.find("\ndone ", at + 1)) ++n;
  return n;
}

std::string product_status(const std::string& path) {
  astrosweep::h5::Id file = astrosweep::h5::open_file(path, astrosweep::h5::Access::read);
  return astrosweep::h5::string_attribute(file.get(), "status").value_or("(none)");
}

/// A launch that found journalled units must have continued from them, not started over: the
/// product a killed run leaves must be readable (its metadata was flushed before any unit ran).
/// "complete: nothing to do" is right too: a kill after the product was marked complete and
/// before its journal was removed.
void expect_resumed(const Launch& run, std::size_t journalled, const std::string& what) {
  const std::string log = run.log();
  if (journalled > 0 && log.find("resuming '") == std::string::npos &&
      log.find("is complete: nothing to do") == std::string::npos)
    fail(what + " started over although the journal recorded " + std::to_string(journalled) + " units\n" + run.log());
}

int run_and_wait(const std::vector<std::string>& argv) {
  std::string command;
  for (const auto& a : argv) command += "'" + a + "' ";
  const int status = std::system(command.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

// --- one interrupted round -----------------------------------------------------------------------

struct Moment {
  bool early = false;
  int delay_ms = 0;       // early: after the ranks appear; otherwise after the journal entries
  std::size_t units = 0;  // journal entries of this launch to wait for
  std::string text;
};

/// Waits for the moment; false when the run ended first.
bool reach(Launch& run, const Options& o, int np, std::mt19937_64& rng, bool allow_early, Moment& m) {
  while (run.ranks().size() < static_cast<std::size_t>(np)) {
    if (run.poll()) return false;
    std::this_thread::sleep_for(2ms);
  }
  if (!o.at_log.empty()) {
    while (run.log().find(o.at_log) == std::string::npos) {
      if (run.poll()) return false;
      std::this_thread::sleep_for(1ms);
    }
    m.delay_ms = static_cast<int>(rng() % 40);
    m.text = "when the log said '" + o.at_log + "' (+" + std::to_string(m.delay_ms) + " ms)";
    const auto end = Clock::now() + std::chrono::milliseconds(m.delay_ms);
    while (Clock::now() < end) {
      if (run.poll()) return false;
      std::this_thread::sleep_for(1ms);
    }
    return true;
  }
  m.early = allow_early && rng() % 4 == 0;
  if (m.early) {
    m.delay_ms = static_cast<int>(rng() % 600);
    m.text = std::to_string(m.delay_ms) + " ms after the ranks started";
    const auto end = Clock::now() + std::chrono::milliseconds(m.delay_ms);
    while (Clock::now() < end) {
      if (run.poll()) return false;
      std::this_thread::sleep_for(1ms);
    }
    return true;
  }
  // The job's first line names its units (scfind: checkpoints, one per kernel pair with
  // --checkpoint-minutes 0): the journal is ready (created or reopened) by then.
  static const std::regex units_line(R"((\d+) (?:work units|checkpoints) on)");
  std::smatch match;
  std::string log;
  while (!std::regex_search(log = run.log(), match, units_line)) {
    if (run.poll()) return false;
    std::this_thread::sleep_for(2ms);
  }
  const std::size_t planned = std::stoul(match[1]);
  const std::size_t base = journal_entries(o);
  // A SIGTERM comes in the first half: the ranks finish the units they hold, which should leave
  // work undone (exit code 6) rather than complete the run.
  const bool term = o.mode == "term" || o.mode == "mismatch";
  const std::size_t range = term ? std::max<std::size_t>(planned / 2, 1) : planned - 1;
  m.units = planned > 1 ? 1 + rng() % range : 0;
  m.delay_ms = static_cast<int>(rng() % 40);
  m.text = "after " + std::to_string(m.units) + " of " + std::to_string(planned) + " units (+" +
           std::to_string(m.delay_ms) + " ms)";
  while (journal_entries(o) < base + m.units) {
    if (run.poll()) return false;
    std::this_thread::sleep_for(2ms);
  }
  const auto end = Clock::now() + std::chrono::milliseconds(m.delay_ms);
  while (Clock::now() < end) {
    if (run.poll()) return false;
    std::this_thread::sleep_for(1ms);
  }
  return true;
}

/// One launch interrupted the mode's way; false when the run completed before it was interrupted.
bool interrupted_round(const Options& o, int round, std::mt19937_64& rng) {
  const int np = o.np[static_cast<std::size_t>(round) % o.np.size()];
  const auto t0 = Clock::now();
  const std::size_t journalled = journal_entries(o);
  Launch run(o, np, o.period_args, round > 0, o.product + ".round" + std::to_string(round) + ".log");
  Moment m;
  const bool term = o.mode == "term" || o.mode == "mismatch";
  if (!reach(run, o, np, rng, !term, m)) {
    const int code = run.wait(120s, "round " + std::to_string(round));
    if (code != 0) fail("round " + std::to_string(round) + " ended with " + std::to_string(code) + "\n" + run.log());
    expect_resumed(run, journalled, "round " + std::to_string(round));
    std::printf("round %d: %d ranks: finished before the moment (%s)\n", round, np, m.text.c_str());
    return false;
  }
  const auto ranks = run.ranks();
  std::string action;
  if (o.mode == "kill-all") {
    for (const auto& [rank, pid] : ranks) kill(pid, SIGKILL);
    action = "SIGKILL to every rank";
  } else if (o.mode == "kill-one") {
    const int victim = static_cast<int>(rng() % static_cast<std::uint64_t>(np));
    if (ranks.count(victim)) kill(ranks.at(victim), SIGKILL);
    action = "SIGKILL to rank " + std::to_string(victim);
  } else {
    // mismatch needs an interrupted product whatever the timing: every rank is signalled. (With
    // one rank signalled, the others may finish every remaining unit before it reports the signal
    // at the end of the unit it holds: a complete run, which term mode accepts.)
    const bool one = o.mode == "term" && np > 1 && rng() % 2 == 0;
    const int victim = one ? static_cast<int>(rng() % static_cast<std::uint64_t>(np)) : -1;
    for (const auto& [rank, pid] : ranks)
      if (!one || rank == victim) kill(pid, SIGTERM);
    action = one ? "SIGTERM to rank " + std::to_string(victim) : "SIGTERM to every rank";
  }
  // After a SIGKILL (to every rank, or to one: the others must then end too) the test is that no
  // rank lives on; mpiexec's own teardown stalling afterwards is OpenMPI's (seen in CI, kill-one).
  const bool killed = o.mode == "kill-all" || o.mode == "kill-one";
  // After a SIGTERM the ranks first finish the units they hold: on a loaded machine (the GPU
  // machine's suite at -j12, 16 OpenMP threads a rank) an fdas unit alone took past 60 s there.
  const auto limit = term ? 180s : 60s;
  const int code = run.wait(limit, "round " + std::to_string(round) + " (" + action + ")", killed);
  std::printf("round %d: %d ranks: %s %s: exit code %d, %zu units in the journal (%.1f s)\n", round, np, action.c_str(),
              m.text.c_str(), code, journal_entries(o), std::chrono::duration<double>(Clock::now() - t0).count());
  std::fflush(stdout);
  if (!m.early) expect_resumed(run, journalled, "round " + std::to_string(round));
  if (code == 0) return false;  // it finished first
  if (term) {
    const std::string log = run.log();
    if (code != 6) fail("SIGTERM: expected exit code 6, got " + std::to_string(code) + "\n" + log);
    if (!std::regex_search(
            log,
            std::regex(
                R"(interrupted by SIGTERM; \d+ of \d+ (?:units|kernel pairs) done.*rerun the same command with --resume)")))
      fail("SIGTERM: the message does not say how far the run got and to --resume\n" + log);
    if (product_status(o.product) != "incomplete") fail("SIGTERM: the product is not marked incomplete");
    if (!fs::exists(journal_of(o))) fail("SIGTERM: the journal is gone");
  }
  return true;
}

void final_checks(const Options& o) {
  {
    const auto t0 = Clock::now();
    const std::size_t journalled = journal_entries(o);
    Launch run(o, o.resume_np, o.period_args, true, o.product + ".final.log");
    const int code = run.wait(240s, "the final resume");
    if (code != 0) fail("the final resume ended with " + std::to_string(code) + "\n" + run.log());
    expect_resumed(run, journalled, "the final resume");
    std::printf("final resume on %d ranks: exit code 0 (%.1f s)\n", o.resume_np,
                std::chrono::duration<double>(Clock::now() - t0).count());
  }
  if (run_and_wait({o.compare, o.reference, o.product}) != 0)
    fail("the resumed product differs from the uninterrupted one");
  if (fs::exists(journal_of(o))) fail("the journal is still there after the product was completed");
  if (fs::exists(o.product + ".lock")) fail("the lock file is still there after the product was completed");
  if (fs::exists(o.product + ".spool")) fail("the spool is still there after the product was completed");
  // Resuming a complete product: nothing to do, nothing touched.
  const std::string before = read_text(o.product);
  const auto mtime = fs::last_write_time(o.product);
  Launch again(o, 1, o.period_args, true, o.product + ".again.log");
  const int code = again.wait(120s, "resuming the complete product");
  if (code != 0 || again.log().find("is complete: nothing to do") == std::string::npos)
    fail("resuming a complete product: exit code " + std::to_string(code) + "\n" + again.log());
  if (read_text(o.product) != before || fs::last_write_time(o.product) != mtime)
    fail("resuming a complete product changed it");
  std::printf("resuming the complete product: exit code 0, untouched\n");
}

/// A second run on the output while the first holds it: refused, the first completes.
void second_writer_checks(const Options& o) {
  const int np = o.np.front();
  Launch first(o, np, o.period_args, false, o.product + ".first.log");
  // Its first journal entry: the lock is taken, the product created, the compute loop running.
  while (journal_entries(o) < 1) {
    if (first.poll()) fail("the first run ended before its first unit was journalled\n" + first.log());
    std::this_thread::sleep_for(2ms);
  }
  auto ranks = first.ranks();
  for (const auto& [rank, pid] : ranks) kill(pid, SIGSTOP);  // it holds the lock and cannot end meanwhile
  if (first.poll() || !ranks.count(0)) fail("the first run ended before it was stopped\n" + first.log());
  const std::string product = read_text(o.product);
  const std::string journal = read_text(journal_of(o));
  const std::string holder = "is being written by another run: host ";
  const std::string rank0 = " pid " + std::to_string(ranks.at(0)) + " ";
  for (const bool resume : {true, false}) {
    std::vector<std::string> args = o.period_args;
    if (!resume) args.emplace_back("--overwrite");
    const std::string how = resume ? "--resume" : "--overwrite";
    Launch second(o, 1, args, resume, o.product + ".second.log");
    const int code = second.wait(120s, "a second run with " + how);
    const std::string log = second.log();
    if (code != 4 || log.find(holder) == std::string::npos || log.find(rank0) == std::string::npos ||
        log.find("wait for it or choose another --output") == std::string::npos)
      fail("a second run with " + how + " while the first runs: exit code " + std::to_string(code) +
           ", expected 4 naming the first run's rank 0 (" + rank0 + ")\n" + log);
    if (read_text(o.product) != product || read_text(journal_of(o)) != journal)
      fail("the refused run with " + how + " changed the product or its journal");
    std::printf("a second run with %s: exit code 4, the first run named, nothing touched\n", how.c_str());
  }
  for (const auto& [rank, pid] : ranks) kill(pid, SIGCONT);
  const int code = first.wait(240s, "the first run, continued");
  if (code != 0) fail("the first run, continued, ended with " + std::to_string(code) + "\n" + first.log());
  std::printf("the first run, continued: exit code 0\n");
}

void mismatch_checks(const Options& o) {
  auto refused = [&](const std::string& when) {
    const std::string before = read_text(o.product);
    Launch run(o, 1, o.other_args, true, o.product + ".mismatch.log");
    const int code = run.wait(120s, "--resume with other parameters");
    const std::string log = run.log();
    if (code != 2 || log.find("was made by another run") == std::string::npos)
      fail(when + ": --resume with other parameters: exit code " + std::to_string(code) + "\n" + log);
    if (read_text(o.product) != before) fail(when + ": the refused --resume changed the product");
    std::printf("%s: --resume with other parameters: exit code 2, product untouched\n", when.c_str());
  };
  refused("incomplete product");
  final_checks(o);
  refused("complete product");
}

Options parse(int argc, char** argv) {
  Options o;
  if (argc < 2) fail("usage: see the comment at the top of tests/cli/kill_and_resume.cpp");
  o.mode = argv[1];
  int i = 2;
  for (; i < argc && std::strcmp(argv[i], "--") != 0; ++i) {
    const std::string key = argv[i];
    if (i + 1 >= argc) fail("missing value for " + key);
    const std::string value = argv[++i];
    if (key == "--mpiexec")
      o.mpiexec = value;
    else if (key == "--exe")
      o.exe = value;
    else if (key == "--job")
      o.job = value;
    else if (key == "--compare")
      o.compare = value;
    else if (key == "--reference")
      o.reference = value;
    else if (key == "--product")
      o.product = value;
    else if (key == "--resume-np")
      o.resume_np = std::stoi(value);
    else if (key == "--seed")
      o.seed = std::stoull(value);
    else if (key == "--rounds")
      o.rounds = std::stoi(value);
    else if (key == "--other")
      o.other_args = split(value, '|');
    else if (key == "--at-log")
      o.at_log = value;
    else if (key == "--np") {
      o.np.clear();
      for (const auto& n : split(value, ',')) o.np.push_back(std::stoi(n));
    } else
      fail("unknown option " + key);
  }
  for (++i; i < argc; ++i) o.period_args.emplace_back(argv[i]);
  if (o.mpiexec.empty() || o.exe.empty() || o.compare.empty() || o.reference.empty() || o.product.empty() ||
      o.period_args.empty() || o.np.empty())
    fail("--mpiexec, --exe, --compare, --reference, --product and the period arguments are needed");
  if (o.mode == "mismatch" && o.other_args.empty()) fail("mismatch needs --other");
  if (o.mode != "kill-all" && o.mode != "kill-one" && o.mode != "term" && o.mode != "mismatch" &&
      o.mode != "second-writer")
    fail("unknown mode " + o.mode);
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const Options o = parse(argc, argv);
    // No MPI here: this process forks mpiexec, and reads products with serial HDF5 only.
    fs::remove(o.product);
    fs::remove(journal_of(o));
    fs::remove(o.product + ".lock");
    if (o.job == "fdas" || o.job == "spiir")  // their candidates (samples) until the run ends
      fs::remove_all(o.product + ".spool");
    if (o.job == "scfind") {  // its checkpoint labels, a FITS mask beside it, their temporary names
      fs::remove(o.product + ".labels");
      fs::remove(o.product + ".part");
      const fs::path product(o.product);
      const fs::path mask = product.parent_path() / (product.stem().string() + "_mask-raw.fits");
      fs::remove(mask);
      fs::remove(mask.string() + ".part");
    }
    std::mt19937_64 rng(o.seed);
    std::printf("kill_and_resume %s, seed %llu\n", o.mode.c_str(), static_cast<unsigned long long>(o.seed));
    const int rounds = o.mode == "mismatch" ? 1 : o.mode == "second-writer" ? 0 : o.rounds;
    for (int round = 0; round < rounds; ++round)
      if (!interrupted_round(o, round, rng)) break;
    if (o.mode == "second-writer") {
      second_writer_checks(o);
      final_checks(o);
    } else if (o.mode == "mismatch") {
      if (!fs::exists(journal_of(o))) fail("the run finished before SIGTERM: make the work longer");
      mismatch_checks(o);
    } else {
      final_checks(o);
    }
    std::printf("kill_and_resume %s: the resumed product equals the uninterrupted one\n", o.mode.c_str());
    return 0;
  } catch (const Failure& e) {
    std::fprintf(stderr, "kill_and_resume: FAILED: %s\n", e.what());
  } catch (const astrosweep::Error& e) {
    std::fprintf(stderr, "kill_and_resume: FAILED: %s\n", e.what());
  }
  return 1;
}
