#pragma once
// A zlib stream written straight from where the ones of a 0/1 byte array are, without touching
// its zeros. zlib's level 1 deflates a mostly-zero mask chunk at about 200-300 MB/s a thread, so a
// 3.15 GB mask costs seconds of CPU even when only 0.02 % of it is ones; this encoder costs a few
// bits per run of 258 zeros and per one, computed, not scanned. The stream is one fixed-Huffman
// deflate block (RFC 1951) in the zlib wrapper (RFC 1950) with the data's Adler-32: inflate, and so
// HDF5's deflate filter and h5py, read it back as the array. Zeros cost 13 bits per 258 (a match
// at distance 1), a one 8 bits plus the literal zero that restarts the matches.

#include <cstdint>
#include <span>
#include <vector>

namespace astrosweep::io {

/// Replaces `out` with the zlib stream of `size` bytes that are 0 except 1 at positions
/// ones[i] − first (ascending, each in [first, first + size)).
void zlib_stream_of_ones(std::uint64_t size, std::span<const std::uint64_t> ones, std::uint64_t first,
                         std::vector<unsigned char>& out);

}  // namespace astrosweep::io
