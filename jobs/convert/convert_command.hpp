#pragma once
// `astrosweep convert`: CSV or FITS light curves -> one HDF5 catalog, or SIGPROC/PRESTO time series
// -> one HDF5 time-series batch (the inputs that scale). One process; registered as the job
// `convert` (jobs::convert(), core/job.hpp).

#include <mpi.h>

#include <string>
#include <vector>

namespace astrosweep {
int convert_command(const std::vector<std::string>& args, MPI_Comm comm);
}  // namespace astrosweep
