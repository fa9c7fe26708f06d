#pragma once
// Before MPI_Init: recognises a start MPI cannot turn into one job, so the user gets what happened
// and what to do instead of the MPI library's abort (docs/slurm.md#mpi-start-up).

#include <functional>
#include <optional>
#include <string>

namespace astrosweep::mpi {

/// Looks up an environment variable; empty optional when unset.
using EnvironmentLookup = std::function<std::optional<std::string>(const char*)>;

/// What is wrong with how this process was started, or nothing. Today one case: srun started
/// several tasks without a process-management interface (Slurm's MpiDefault=none and no --mpi):
/// OpenMPI then aborts in MPI_Init, or each task would run as a job of its own.
std::optional<std::string> launch_problem(const EnvironmentLookup& env);

/// launch_problem() of this process's environment.
std::optional<std::string> launch_problem();

}  // namespace astrosweep::mpi
