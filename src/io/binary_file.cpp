#include "io/binary_file.hpp"

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
  errno = 0;
  std::ifstream in(path, std::ios::binary);
  AS_EXPECTS(in.good(), InputError, "cannot read input file '" + path + "'" + reason(errno),
             "check its permissions (it must be readable by the user running astrosweep)");
  std::vector<std::byte> bytes(n);
  in.seekg(static_cast<std::streamoff>(offset));
  in.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(n));
  const auto got = static_cast<std::uint64_t>(in.gcount());
  AS_EXPECTS(got == n, InputError,
             "'" + path + "': expected " + std::to_string(n) + " bytes from byte " + std::to_string(offset) +
                 ", found " + std::to_string(got),
             "the file is cut short (an interrupted copy or download?); copy it again");
  return bytes;
}

}  // namespace astrosweep::io
