#include "zlib_ones.hpp"

#include <array>

#include "core/error.hpp"

namespace astrosweep::io {

namespace {

/// `value`'s low n bits in the opposite order: Huffman codes are sent most significant bit first.
constexpr std::uint32_t reversed(std::uint32_t value, int n) {
  std::uint32_t r = 0;
  for (int i = 0; i < n; ++i) r |= ((value >> i) & 1U) << (n - 1 - i);
  return r;
}

/// Bits packed least significant first, as deflate reads them.
class BitWriter {
 public:
  explicit BitWriter(std::vector<unsigned char>& out) : out_(out) {}
  void bits(std::uint32_t value, int n) {
    buffer_ |= static_cast<std::uint64_t>(value) << count_;
    count_ += n;
    while (count_ >= 8) {
      out_.push_back(static_cast<unsigned char>(buffer_));
      buffer_ >>= 8;
      count_ -= 8;
    }
  }
  /// A Huffman code: sent most significant bit first.
  void code(std::uint32_t value, int n) { bits(reversed(value, n), n); }
  void flush() {
    if (count_ > 0) bits(0, 8 - count_);
  }

 private:
  std::vector<unsigned char>& out_;
  std::uint64_t buffer_ = 0;
  int count_ = 0;
};

// RFC 1951 3.2.5: match lengths 3-258 as length symbols 257-285 with extra bits.
constexpr std::array<std::uint32_t, 29> length_base{3,  4,  5,  6,  7,  8,  9,  10, 11,  13,  15,  17,  19,  23, 27,
                                                    31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258};
constexpr std::array<int, 29> length_extra{0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2,
                                           2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
constexpr std::uint32_t max_match = 258, min_match = 3;

/// The fixed Huffman code of a literal/length symbol (RFC 1951 3.2.6).
void symbol(BitWriter& w, std::uint32_t s) {
  if (s < 144)
    w.code(0x30 + s, 8);
  else if (s < 256)
    w.code(0x190 + (s - 144), 9);
  else if (s < 280)
    w.code(s - 256, 7);
  else
    w.code(0xC0 + (s - 280), 8);
}

/// A copy of 258 bytes from distance 1, most of a run of zeros: symbol 285 (fixed code 0xC5, 8
/// bits) and distance code 0 (5 zero bits), 13 bits sent at once.
constexpr std::uint32_t repeat_258 = reversed(0xC5, 8);

/// A copy of `length` bytes from distance 1: the byte before, repeated.
void repeat_previous(BitWriter& w, std::uint32_t length) {
  if (length == max_match) return w.bits(repeat_258, 13);
  std::size_t i = length_base.size() - 1;
  while (length_base[i] > length) --i;
  symbol(w, 257 + static_cast<std::uint32_t>(i));
  if (length_extra[i] > 0) w.bits(length - length_base[i], length_extra[i]);
  w.code(0, 5);  // distance code 0: distance 1, no extra bits
}

/// `n` zeros after a one or at the start: a literal zero, then matches repeating it.
void zeros(BitWriter& w, std::uint64_t n) {
  if (n == 0) return;
  symbol(w, 0);
  --n;
  while (n >= min_match) {
    std::uint64_t m = n < max_match ? n : max_match;
    if (n - m > 0 && n - m < min_match) m = n - min_match;  // leave a last match, not stray literals
    repeat_previous(w, static_cast<std::uint32_t>(m));
    n -= m;
  }
  for (; n > 0; --n) symbol(w, 0);
}

}  // namespace

void zlib_stream_of_ones(std::uint64_t size, std::span<const std::uint64_t> ones, std::uint64_t first,
                         std::vector<unsigned char>& out) {
  constexpr std::uint64_t adler_mod = 65521;
  out.clear();
  out.reserve(16 + size / max_match * 2 + ones.size() * 3);
  out.push_back(0x78);  // deflate, 32 KiB window
  out.push_back(0x01);  // no dictionary, fastest; (0x78 << 8 | 0x01) is a multiple of 31
  BitWriter w(out);
  w.bits(1, 1);  // the final block
  w.bits(1, 2);  // fixed Huffman codes
  // Adler-32 without the zeros: a = 1 + the ones; b = the sum of a after every byte, which a one
  // at position p raises for the size − p bytes from it on.
  std::uint64_t a = 1, b = size % adler_mod;
  std::uint64_t at = 0;  // bytes written so far
  for (const std::uint64_t one : ones) {
    AS_ASSERT(one >= first && one - first < size && one - first >= at);  // ascending, inside
    const std::uint64_t p = one - first;
    zeros(w, p - at);
    symbol(w, 1);
    at = p + 1;
    a = (a + 1) % adler_mod;
    b = (b + (size - p) % adler_mod) % adler_mod;
  }
  zeros(w, size - at);
  symbol(w, 256);  // end of block
  w.flush();
  const auto adler = static_cast<std::uint32_t>((b << 16) | a);
  for (int shift = 24; shift >= 0; shift -= 8) out.push_back(static_cast<unsigned char>(adler >> shift));
}

}  // namespace astrosweep::io
