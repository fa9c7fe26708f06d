#include "mpi_launch.hpp"

#include <cstdlib>

#include "text.hpp"

namespace astrosweep::mpi {

std::optional<std::string> launch_problem(const EnvironmentLookup& env) {
  // A task of an srun step: SLURM_STEP_ID (SLURM_STEPID on old Slurm). mpirun's ranks have one too
  // when mpirun starts its daemons with srun, but they carry OpenMPI's own variables.
  if (!env("SLURM_STEP_ID") && !env("SLURM_STEPID")) return std::nullopt;
  for (const char* pmi : {"PMIX_RANK", "PMI_RANK", "PMI_FD", "PMI_SIZE", "OMPI_COMM_WORLD_SIZE"})
    if (env(pmi)) return std::nullopt;
  auto tasks = env("SLURM_STEP_NUM_TASKS");
  if (!tasks) tasks = env("SLURM_NTASKS");
  const std::optional<double> n = tasks ? parse_number(*tasks) : std::nullopt;
  if (!n || *n <= 1) return std::nullopt;  // one task without PMI is a valid one-rank run
  return "srun started " + std::to_string(static_cast<long>(*n)) +
         " tasks without an MPI process-management interface (Slurm's MpiDefault=none, no --mpi): the MPI "
         "library cannot join them into one job";
}

std::optional<std::string> launch_problem() {
  return launch_problem([](const char* name) -> std::optional<std::string> {
    const char* value = std::getenv(name);
    if (value == nullptr) return std::nullopt;
    return std::string(value);
  });
}

}  // namespace astrosweep::mpi
