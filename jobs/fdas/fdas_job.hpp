#pragma once
// One fdas run across the ranks of a communicator (docs/fdas.md, "The job").

#include <mpi.h>

#include "fdas_options.hpp"

namespace astrosweep::fdas {

void run_fdas_job(const FdasOptions& options, MPI_Comm parent);

}  // namespace astrosweep::fdas
