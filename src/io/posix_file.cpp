#include "io/posix_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "core/error.hpp"

namespace astrosweep::io {

namespace {
[[noreturn]] void fail(const std::string& what, const std::string& path) {
  throw OutputError(what + " '" + path + "' failed: " + std::strerror(errno),
                    "check that the file system is writable and not full");
}
}  // namespace

PosixFile::PosixFile(const std::string& path, int flags, unsigned mode)
    : fd_(::open(path.c_str(), flags | O_CLOEXEC, static_cast<mode_t>(mode))), path_(path) {
  if (fd_ < 0) fail("opening", path);
}

PosixFile::~PosixFile() { close(); }

PosixFile::PosixFile(PosixFile&& other) noexcept : fd_(other.fd_), path_(std::move(other.path_)) { other.fd_ = -1; }

PosixFile& PosixFile::operator=(PosixFile&& other) noexcept {
  if (this != &other) {
    close();
    fd_ = other.fd_;
    path_ = std::move(other.path_);
    other.fd_ = -1;
  }
  return *this;
}

void PosixFile::close() noexcept {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

void PosixFile::write_all(std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd_, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) fail("writing", path_);
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
}

void PosixFile::write_at(std::uint64_t offset, std::span<const std::uint8_t> bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::pwrite(fd_, bytes.data(), bytes.size(), static_cast<off_t>(offset));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) fail("writing", path_);
    bytes = bytes.subspan(static_cast<std::size_t>(n));
    offset += static_cast<std::uint64_t>(n);
  }
}

void PosixFile::read_at(std::uint64_t offset, std::span<std::uint8_t> out) const {
  while (!out.empty()) {
    const ssize_t n = ::pread(fd_, out.data(), out.size(), static_cast<off_t>(offset));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0)
      throw InputError("reading '" + path_ + "' failed: " +
                           (n == 0 ? std::string("the file is too short") : std::string(std::strerror(errno))),
                       "the file was cut short or changed by another program");
    out = out.subspan(static_cast<std::size_t>(n));
    offset += static_cast<std::uint64_t>(n);
  }
}

void PosixFile::sync() {
  while (::fsync(fd_) != 0)
    if (errno != EINTR) fail("fsync of", path_);
}

void PosixFile::truncate(std::uint64_t size) {
  while (::ftruncate(fd_, static_cast<off_t>(size)) != 0)
    if (errno != EINTR) fail("truncating", path_);
}

void sync_directory_of(const std::string& path) {
  std::filesystem::path dir = std::filesystem::path(path).parent_path();
  if (dir.empty()) dir = ".";
  PosixFile d(dir.string(), O_RDONLY | O_DIRECTORY);
  // Some file systems cannot sync a directory (EINVAL) and make its entries durable by themselves.
  while (::fsync(d.fd_) != 0)
    if (errno != EINTR) {
      if (errno == EINVAL) return;
      fail("fsync of the directory", dir.string());
    }
}

}  // namespace astrosweep::io
