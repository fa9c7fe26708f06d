#pragma once
// The job seam. A job (a folder under jobs/, registered in jobs/CMakeLists.txt) describes itself
// with a Job: the subcommand's name, a one-line summary for `astrosweep --help`, whether it runs
// as one process or under MPI, and the function that parses its arguments and runs it. The entry
// point (src/main.cpp) knows jobs only through registered_jobs(), which the build generates from
// the registration list (cmake/AstrosweepJobs.cmake): each registered job NAME defines
// `const Job& astrosweep::jobs::NAME()`.

#include <mpi.h>

#include <string>
#include <vector>

namespace astrosweep {

struct Job {
  std::string name;             ///< the subcommand: astrosweep NAME [options]
  std::string summary;          ///< one line for the usage text
  bool single_process = false;  ///< refuses to run on more than one rank (convert)
  /// Parses `args` (after the subcommand) and runs the job, collectively over `comm`; prints
  /// --help and returns 0 when asked. Throws astrosweep::Error (main turns it into an exit code).
  int (*run)(const std::vector<std::string>& args, MPI_Comm comm) = nullptr;
};

/// The registered jobs, in the registration order (generated: jobs/CMakeLists.txt).
const std::vector<const Job*>& registered_jobs();

/// The registered job called `name`; nullptr when there is none.
const Job* find_job(const std::string& name);

}  // namespace astrosweep
