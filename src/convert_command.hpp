#pragma once
// `astrosweep convert`: CSV or FITS light curves -> one HDF5 catalog (the input that scales).

#include <string>
#include <vector>

namespace astrosweep {
int convert_command(const std::vector<std::string>& args);
}  // namespace astrosweep
