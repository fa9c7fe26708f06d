#pragma once
// A POSIX file descriptor owned RAII-style, for the few files whose bytes must be on disk at a
// known moment (fsync): the work journal, and each rank's durability barrier on the product.

#include <cstdint>
#include <string>
#include <string_view>

namespace astrosweep::io {

class PosixFile {
 public:
  PosixFile() = default;
  /// open(2) with `flags` (O_CLOEXEC added); throws OutputError naming `path`.
  PosixFile(const std::string& path, int flags, unsigned mode = 0644);
  ~PosixFile();
  PosixFile(PosixFile&& other) noexcept;
  PosixFile& operator=(PosixFile&& other) noexcept;
  PosixFile(const PosixFile&) = delete;
  PosixFile& operator=(const PosixFile&) = delete;

  [[nodiscard]] bool valid() const noexcept { return fd_ >= 0; }
  /// The descriptor, for calls this class does not wrap (fcntl locks: io/output_lock.cpp).
  [[nodiscard]] int fd() const noexcept { return fd_; }
  /// Writes all of `bytes` (at the end with O_APPEND); throws OutputError.
  void write_all(std::string_view bytes);
  /// fsync(2): what this process, or any other on this node, wrote to the file reaches the disk
  /// (or the file system's servers) before it returns; throws OutputError.
  void sync();
  /// ftruncate(2) to `size` bytes; throws OutputError.
  void truncate(std::uint64_t size);

 private:
  friend void sync_directory_of(const std::string& path);
  void close() noexcept;
  int fd_ = -1;
  std::string path_;
};

/// fsync of the directory holding `path`: makes a file created, renamed or removed there durable.
/// Throws OutputError.
void sync_directory_of(const std::string& path);

}  // namespace astrosweep::io
