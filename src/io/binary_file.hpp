#pragma once
// Checked reads of binary input files (SIGPROC .tim, PRESTO .dat): every failure is an InputError
// naming the file and saying why (missing, a directory, unreadable, shorter than expected).

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace astrosweep::io {

/// The size of the regular file `path`; InputError when it does not exist, is a directory or
/// cannot be read by this user (the system's reason in the message).
std::uint64_t input_file_size(const std::string& path);

/// Bytes [offset, offset + n) of `path`; InputError when the file cannot be read or holds fewer.
/// The caller bounds `n` by the file's size (never by a count read from a header).
std::vector<std::byte> read_file_range(const std::string& path, std::uint64_t offset, std::uint64_t n);

/// Bytes [offset, offset + out.size()) of `path` into `out`, straight from the page cache into the
/// caller's memory (no intermediate buffer, as few system calls as the kernel allows); the same
/// errors as read_file_range.
void read_file_into(const std::string& path, std::uint64_t offset, std::span<std::byte> out);

}  // namespace astrosweep::io
