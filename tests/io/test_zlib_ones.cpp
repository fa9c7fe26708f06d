// zlib_stream_of_ones (io/zlib_ones.hpp) read back by zlib's own inflate (uncompress, which checks
// the Adler-32 too), as HDF5's deflate filter reads it: sizes around deflate's match lengths (3,
// 258) and the runs between ones that need their last match shortened (259, 260, 261), ones at the
// first and last byte, adjacent ones, all ones, none, a chunk of a WALLABY-size row block with
// scattered ones, and ones counted from an offset of the block.
#include <gtest/gtest.h>
#include <zlib.h>

#include <random>
#include <vector>

#include "io/zlib_ones.hpp"

namespace astrosweep::io {
namespace {

std::vector<unsigned char> inflated(const std::vector<unsigned char>& stream, std::size_t size) {
  std::vector<unsigned char> out(size + 1, 0xAA);  // one byte more: a stream too long shows
  uLongf length = static_cast<uLongf>(out.size());
  EXPECT_EQ(uncompress(out.data(), &length, stream.data(), static_cast<uLong>(stream.size())), Z_OK);
  out.resize(length);
  return out;
}

void expect_round_trip(std::size_t size, const std::vector<std::uint64_t>& ones, std::uint64_t first = 0) {
  std::vector<unsigned char> expected(size, 0);
  for (const auto one : ones) expected[one - first] = 1;
  std::vector<unsigned char> stream{1, 2, 3};  // replaced, not appended to
  zlib_stream_of_ones(size, ones, first, stream);
  ASSERT_EQ(inflated(stream, size), expected) << size << " bytes, " << ones.size() << " ones";
}

TEST(ZlibStreamOfOnes, SizesAroundMatchLengths) {
  for (std::size_t size :
       {1UL, 2UL, 3UL, 4UL, 5UL, 257UL, 258UL, 259UL, 260UL, 261UL, 262UL, 516UL, 517UL, 518UL, 519UL, 520UL, 1000UL}) {
    expect_round_trip(size, {});
    expect_round_trip(size, {0});
    expect_round_trip(size, {size - 1});
    std::vector<std::uint64_t> all(size);
    for (std::size_t i = 0; i < size; ++i) all[i] = i;
    expect_round_trip(size, all);
  }
}

TEST(ZlibStreamOfOnes, RunsOfZerosOfEveryLengthBetweenOnes) {
  // Ones separated by 0, 1, 2, ..., 600 zeros: every remainder a run of zeros can leave.
  std::vector<std::uint64_t> ones;
  std::uint64_t at = 0;
  for (std::uint64_t gap = 0; gap <= 600; ++gap) {
    at += gap;
    ones.push_back(at++);
  }
  expect_round_trip(at + 7, ones);
  expect_round_trip(at, ones);  // the last byte a one
}

TEST(ZlibStreamOfOnes, ScatteredOnesInAMaskChunk) {
  // 699 rows of 1500 voxels (the product's 1 MiB chunk for a 1500-pixel-wide cube), ones at the
  // WALLABY mask's density and in a clump; counted from where the chunk starts in its block.
  const std::size_t size = 699 * 1500;
  const std::uint64_t first = 5 * size + 17;
  std::mt19937_64 rng(7);
  std::vector<unsigned char> dense(size, 0);
  for (int k = 0; k < 250; ++k) dense[rng() % size] = 1;
  for (std::size_t i = 40000; i < 40100; ++i) dense[i] = 1;
  std::vector<std::uint64_t> ones;
  for (std::size_t i = 0; i < size; ++i)
    if (dense[i] != 0) ones.push_back(first + i);
  expect_round_trip(size, ones, first);
  std::vector<unsigned char> stream;
  zlib_stream_of_ones(size, ones, first, stream);
  // About 13 bits per 258 zeros and a few bytes per one: under 1 % of the chunk.
  EXPECT_LT(stream.size(), size / 100);
}

}  // namespace
}  // namespace astrosweep::io
