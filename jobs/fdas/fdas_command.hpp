#pragma once
// `astrosweep fdas`: the Fourier-domain acceleration search (docs/fdas.md).

#include <mpi.h>

#include <string>
#include <vector>

namespace astrosweep::fdas {

int fdas_command(const std::vector<std::string>& args, MPI_Comm comm);

}  // namespace astrosweep::fdas
