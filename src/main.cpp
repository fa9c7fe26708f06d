// astrosweep: one executable, a subcommand per registered job (core/job.hpp). Errors become a
// message on stderr and a documented exit code (docs/user-guide.md); a rank failing alone stops
// every rank.

#include <mpi.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <optional>
#include <string>
#include <vector>

#include "core/cpu_affinity.hpp"
#include "core/error.hpp"
#include "core/job.hpp"
#include "core/mpi.hpp"
#include "core/mpi_launch.hpp"
#include "core/text.hpp"
#include "core/version.hpp"

namespace {

std::string usage() {
  std::string text = "usage: astrosweep <command> [options]\n\ncommands:\n";
  auto line = [&text](const std::string& name, const std::string& summary) {
    text += "  " + name + std::string(name.size() < 10 ? 10 - name.size() : 1, ' ') + summary + "\n";
  };
  for (const auto* job : astrosweep::registered_jobs())
    line(job->name, job->summary + (job->single_process ? "" : " (run under mpirun/srun)"));
  line("version", "print the version");
  return text +
         "\n'astrosweep <command> --help' lists a command's options. Exit codes: 0 ok, 1 internal error,\n"
         "2 usage error, 3 input error, 4 output error, 5 runtime (MPI/GPU) error, 6 interrupted by a\n"
         "signal (rerun with --resume).\n";
}

int world_rank() {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
}

int world_size() {
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  return size;
}

// "astrosweep: <name><where>: <what>" and its hint line: every error the user sees.
void print_error(const astrosweep::Error& e, const std::string& where = {}) {
  std::fprintf(stderr, "astrosweep: %s%s: %s\n", astrosweep::exit_code_name(e.code()), where.c_str(), e.what());
  if (!e.hint().empty()) std::fprintf(stderr, "  hint: %s\n", e.hint().c_str());
  std::fflush(stderr);
}

int report(const astrosweep::Error& e, bool shared) {
  const int rank = world_rank();
  if (!shared || rank == 0) print_error(e, (!shared && world_size() > 1) ? " (rank " + std::to_string(rank) + ")" : "");
  // An error only this rank saw: the others may wait on it forever, so stop them. A failed write
  // stops even a single rank there: finalising would have HDF5 close a file it cannot write,
  // which crashes HDF5 1.10 (the product stays "incomplete" either way).
  if (!shared && (world_size() > 1 || e.code() == astrosweep::ExitCode::output))
    MPI_Abort(MPI_COMM_WORLD, static_cast<int>(e.code()));
  return static_cast<int>(e.code());
}

}  // namespace

int main(int argc, char** argv) {
  // A file-size limit (ulimit -f) must end like a full disk: a failed write, a message naming the
  // output and exit code 4, not SIGXFSZ killing a rank with a core dump.
  std::signal(SIGXFSZ, SIG_IGN);
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    std::fputs(usage().c_str(), args.empty() ? stderr : stdout);
    return args.empty() ? 2 : 0;
  }
  if (args[0] == "version" || args[0] == "--version") {
    std::printf("astrosweep %s\n", astrosweep::version_string());
    return 0;
  }
  const std::string command = args[0];
  args.erase(args.begin());

  // Checked before MPI_Init, which would abort with the MPI library's own message (and exit code 1,
  // "internal error"). Every task prints nothing but task 0.
  if (const auto problem = astrosweep::mpi::launch_problem()) {
    const astrosweep::RuntimeError e(*problem,
                                     "start it with srun --mpi=pmix (srun --mpi=list shows what Slurm offers; or "
                                     "SLURM_MPI_TYPE=pmix), or with mpirun inside the allocation; the scripts in "
                                     "slurm/ choose for you (docs/slurm.md#mpi-start-up)");
    const char* task = std::getenv("SLURM_PROCID");
    if (task == nullptr || std::string(task) == "0") print_error(e);
    return static_cast<int>(e.code());
  }

  std::optional<astrosweep::mpi::Session> session;
  try {
    session.emplace(argc, argv);
    AS_EXPECTS(session->thread_multiple(), astrosweep::RuntimeError,
               "the MPI library does not provide MPI_THREAD_MULTIPLE, which the work dispatcher needs",
               "use an MPI built with thread support (OpenMPI >= 3 and MPICH have it)");
    const astrosweep::Job* job = astrosweep::find_job(command);
    if (job == nullptr) {
      std::vector<std::string> commands{"version", "help"};
      for (const auto* j : astrosweep::registered_jobs()) commands.push_back(j->name);
      // Every rank sees the same mistake: each exits with it (rank 0 says it), none is aborted.
      throw astrosweep::mpi::SharedError(
          astrosweep::ExitCode::usage,
          "unknown command '" + command + "'" + astrosweep::did_you_mean(command, commands),
          "run 'astrosweep --help' for the commands");
    }
    AS_EXPECTS(!job->single_process || world_size() == 1, astrosweep::UsageError,
               job->name + " runs as a single process");
    astrosweep::affinity::settle(MPI_COMM_WORLD, job->name);
    return job->run(args, MPI_COMM_WORLD);
  } catch (const astrosweep::mpi::SharedError& e) {
    return report(e, true);
  } catch (const astrosweep::Error& e) {
    return report(e, false);
  } catch (const std::exception& e) {
    return report(astrosweep::InternalError(e.what()), false);
  }
}
