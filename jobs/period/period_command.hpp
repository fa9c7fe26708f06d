#pragma once
// `astrosweep period`: command line and parameter file -> PeriodOptions -> the job.

#include <mpi.h>

#include <string>
#include <vector>

namespace astrosweep::period {

/// Parses `args` (after the subcommand) and runs the job; prints --help and returns 0 when asked.
int period_command(const std::vector<std::string>& args, MPI_Comm comm);

}  // namespace astrosweep::period
