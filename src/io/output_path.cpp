#include "io/output_path.hpp"

#include <sys/resource.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <limits>

#include "core/error.hpp"
#include "core/mpi.hpp"

namespace astrosweep::io {

void check_output_path(const std::string& path, bool overwrite, const std::string& option) {
  namespace fs = std::filesystem;
  std::error_code ec;
  AS_EXPECTS(!path.empty(), UsageError, "no output given", "pass " + option + " PATH");
  if (fs::exists(path, ec)) {
    AS_EXPECTS(!fs::is_directory(path, ec), OutputError, "output '" + path + "' is a directory",
               "give a file name to " + option);
    // A device, pipe or socket would be written into (or replaced by a rename), never a product.
    AS_EXPECTS(fs::is_regular_file(path, ec), OutputError,
               "output '" + path + "' exists and is not a regular file (a device, pipe or socket)",
               "give " + option + " the name of a file");
    AS_EXPECTS(overwrite, OutputError, "output '" + path + "' already exists",
               "choose another " + option + " or pass --overwrite to replace it");
  }
  fs::path dir = fs::path(path).parent_path();
  if (dir.empty()) dir = ".";
  AS_EXPECTS(fs::exists(dir, ec), OutputError, "the directory of output '" + path + "' does not exist",
             "create it first");
  AS_EXPECTS(fs::is_directory(dir, ec), OutputError,
             "output '" + path + "': '" + dir.string() + "' is not a directory but a file",
             "give " + option + " a path inside a directory");
  AS_EXPECTS(access(dir.c_str(), W_OK) == 0, OutputError, "the directory of output '" + path + "' is not writable",
             "choose a writable location for " + option);
}

namespace {
std::string size_text(std::uint64_t bytes) {
  char text[64];
  std::snprintf(text, sizeof text, "%.3g MB (%llu bytes)", static_cast<double>(bytes) / 1e6,
                static_cast<unsigned long long>(bytes));
  return text;
}
}  // namespace

void check_output_space(const std::string& path, std::uint64_t data_bytes, MPI_Comm comm) {
  namespace fs = std::filesystem;
  // Room for HDF5's metadata (chunk indices grow with the data) and FITS headers: a limit that
  // only the metadata crosses is the case that hangs parallel HDF5.
  const std::uint64_t bytes = data_bytes + data_bytes / 100 + (std::uint64_t{1} << 20);
  // Ranks may run under different limits: the smallest counts.
  rlimit limit{};
  std::uint64_t smallest = std::numeric_limits<std::uint64_t>::max();
  if (getrlimit(RLIMIT_FSIZE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY) smallest = limit.rlim_cur;
  AS_MPI_TRY(MPI_Allreduce(MPI_IN_PLACE, &smallest, 1, MPI_UINT64_T, MPI_MIN, comm));
  mpi::on_root_then_share_failure(comm, [&] {
    AS_EXPECTS(bytes <= smallest, OutputError,
               "output '" + path + "' needs " + size_text(bytes) + ", more than the file-size limit of " +
                   size_text(smallest) + " ('ulimit -f')",
               "raise the limit ('ulimit -f unlimited' in the job script) or write a smaller product");
    std::error_code ec;
    fs::path dir = fs::path(path).parent_path();
    if (dir.empty()) dir = ".";
    struct statvfs fs_info {};
    // Unknown (or a pseudo file system such as /proc, which reports no blocks): the writes will tell.
    if (statvfs(dir.c_str(), &fs_info) != 0 || fs_info.f_blocks == 0) return;
    std::uint64_t free = static_cast<std::uint64_t>(fs_info.f_bavail) * fs_info.f_frsize;
    if (fs::is_regular_file(path, ec)) free += fs::file_size(path, ec);
    AS_EXPECTS(
        bytes <= free, OutputError,
        "output '" + path + "' needs " + size_text(bytes) + " but its file system has " + size_text(free) + " free",
        "free some space, or write the output to another file system");
  });
}

}  // namespace astrosweep::io
