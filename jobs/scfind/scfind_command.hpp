#pragma once
#include <mpi.h>

#include <string>
#include <vector>

namespace astrosweep::scfind {

/// `astrosweep scfind ...`: parses options (and a SoFiA-2 parameter file) and runs the job.
int scfind_command(const std::vector<std::string>& args, MPI_Comm comm);

}  // namespace astrosweep::scfind
