#pragma once
// A POSIX file descriptor owned RAII-style, for the few files whose bytes must be on disk at a
// known moment (fsync): the work journal, each rank's durability barrier on the product, and the
// scfind checkpoint labels that ranks write at their own offsets.

#include <cstdint>
#include <span>
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
  /// Writes all of `bytes` at byte `offset` (pwrite(2), the file position untouched); throws
  /// OutputError with the system's reason (a full disk: "No space left on device").
  void write_at(std::uint64_t offset, std::span<const std::uint8_t> bytes);
  /// Reads `out.size()` bytes from byte `offset` (pread(2)); throws InputError when the file is
  /// shorter or cannot be read.
  void read_at(std::uint64_t offset, std::span<std::uint8_t> out) const;
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
