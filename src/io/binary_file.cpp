#include "io/binary_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "core/error.hpp"

namespace astrosweep::io {

namespace {
std::string reason(int error) { return error != 0 ? std::string(": ") + std::strerror(error) : std::string(); }
}  // namespace

std::uint64_t input_file_size(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  AS_EXPECTS(fs::exists(path, ec), InputError, "input '" + path + "' does not exist",
             "check the path given to --input");
  AS_EXPECTS(!fs::is_directory(path, ec), InputError, "input '" + path + "' is a directory where a file is expected",
             "give the file itself");
  errno = 0;
  std::ifstream in(path, std::ios::binary);
  AS_EXPECTS(in.good(), InputError, "cannot read input file '" + path + "'" + reason(errno),
             "check its permissions (it must be readable by the user running astrosweep)");
  const auto size = fs::file_size(path, ec);
  AS_EXPECTS(!ec, InputError, "cannot read the size of input file '" + path + "': " + ec.message());
  return size;
}

std::vector<std::byte> read_file_range(const std::string& path, std::uint64_t offset, std::uint64_t n) {
  std::vector<std::byte> bytes(n);
  read_file_into(path, offset, bytes);
  return bytes;
}

void read_file_into(const std::string& path, std::uint64_t offset, std::span<std::byte> out) {
  errno = 0;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  AS_EXPECTS(fd >= 0, InputError, "cannot read input file '" + path + "'" + reason(errno),
             "check its permissions (it must be readable by the user running astrosweep)");
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  std::uint64_t got = 0;
  while (got < out.size()) {
    const ssize_t r = ::pread(fd, out.data() + got, out.size() - got, static_cast<off_t>(offset + got));
    if (r < 0 && errno == EINTR) continue;
    AS_EXPECTS(r >= 0, InputError, "cannot read input file '" + path + "'" + reason(errno));
    if (r == 0) break;  // end of file
    got += static_cast<std::uint64_t>(r);
  }
  AS_EXPECTS(got == out.size(), InputError,
             "'" + path + "': expected " + std::to_string(out.size()) + " bytes from byte " + std::to_string(offset) +
                 ", found " + std::to_string(got),
             "the file is cut short (an interrupted copy or download?); copy it again");
}

}  // namespace astrosweep::io
