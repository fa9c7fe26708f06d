#pragma once
#include <mpi.h>

#include <cstdint>
#include <string>

namespace astrosweep::io {

/// Checks before any work starts that `path` can become an output: not a directory, absent or
/// `overwrite`, in an existing writable directory. Throws UsageError/OutputError naming `option`.
void check_output_path(const std::string& path, bool overwrite, const std::string& option = "--output");

/// Collective over `comm`, before the output is created: throws, on every rank alike, OutputError
/// when `data_bytes` (the output's data) plus room for metadata (1 % and 1 MiB) exceed a rank's
/// file-size limit (`ulimit -f`) or the free space of the file system holding `path` (an existing
/// file there counts as free: it is replaced).
/// Found here, a full disk stops the job cleanly; found by parallel HDF5 while it writes metadata
/// collectively, it can hang the ranks (HDF5 1.10). Quotas are not visible here: a write that
/// fails later still ends the run with exit code 4.
void check_output_space(const std::string& path, std::uint64_t data_bytes, MPI_Comm comm);

}  // namespace astrosweep::io
