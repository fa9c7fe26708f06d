#pragma once
#include <mpi.h>

#include <optional>
#include <string>
#include <vector>

#include "scfind_job.hpp"

namespace astrosweep::scfind {

/// `astrosweep scfind ...`: parses options (and a SoFiA-2 parameter file) and runs the job.
int scfind_command(const std::vector<std::string>& args, MPI_Comm comm);

/// The options `args` (and the parameter file they name) give, validated, without running the job;
/// nullopt for --help. Throws what scfind_command would (a SharedError with the usage or input code).
std::optional<ScfindOptions> parse_scfind_options(const std::vector<std::string>& args, MPI_Comm comm);

}  // namespace astrosweep::scfind
