// ExactSum: no rounding until value(), so order and splitting do not matter.
#include "core/exact_sum.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

namespace astrosweep {
namespace {

__extension__ typedef __int128 Int128;  // a GCC and clang extension, as the reference's accumulator

ExactSum sum_of(const std::vector<float>& values) {
  ExactSum s;
  for (float v : values) s.add(v);
  return s;
}

TEST(ExactSum, EmptyAndZerosAreZero) {
  EXPECT_EQ(ExactSum().sign(), 0);
  EXPECT_EQ(ExactSum().value(), 0.0);
  EXPECT_EQ(sum_of({0.0F, -0.0F}).sign(), 0);
}

TEST(ExactSum, OneValueComesBackExactly) {
  for (float v :
       {1.0F, -1.0F, 0.1F, -3.5e-41F, std::numeric_limits<float>::denorm_min(), std::numeric_limits<float>::min(),
        std::numeric_limits<float>::max(), -std::numeric_limits<float>::max(), 16777215.0F, 1.0e-30F})
    EXPECT_EQ(sum_of({v}).value(), static_cast<double>(v)) << v;
}

TEST(ExactSum, CancellationThatDoubleLoses) {
  // In double, 1e30 + 1 is 1e30 and the 1 is gone.
  const ExactSum s = sum_of({1.0e30F, 1.0F, -1.0e30F});
  EXPECT_EQ(s.value(), 1.0);
  EXPECT_EQ(s.sign(), 1);
  EXPECT_EQ(sum_of({1.0e30F, -1.0F, -1.0e30F}).sign(), -1);
  EXPECT_EQ(sum_of({3.0e38F, 3.0e38F, -3.0e38F, -3.0e38F}).sign(), 0);  // beyond float, within the sum
}

TEST(ExactSum, SubnormalsAddExactly) {
  const float tiny = std::numeric_limits<float>::denorm_min();
  EXPECT_EQ(sum_of({tiny, tiny, tiny}).value(), 3.0 * static_cast<double>(tiny));
  EXPECT_EQ(sum_of({tiny, -tiny}).sign(), 0);
}

TEST(ExactSum, RoundsOnceToNearestEven) {
  const float two53 = 9007199254740992.0F;  // 2^53, exact in float
  // 2^53 + 1 is a tie between 2^53 and 2^53 + 2: even wins.
  EXPECT_EQ(sum_of({two53, 1.0F}).value(), 9007199254740992.0);
  // A little more than the tie, far below the window of 64 bits: the sticky bit rounds up.
  EXPECT_EQ(sum_of({two53, 1.0F, 1.0e-30F}).value(), 9007199254740994.0);
  EXPECT_EQ(sum_of({-two53, -1.0F, -1.0e-30F}).value(), -9007199254740994.0);
  // 2^53 + 3 is a tie between 2^53 + 2 and 2^53 + 4: even is 2^53 + 4.
  EXPECT_EQ(sum_of({two53, 3.0F}).value(), 9007199254740996.0);
}

TEST(ExactSum, MatchesAWideIntegerReference) {
  // Floats on a grid of 2^-20 below 2^40 sum exactly in a 128-bit integer; converting that to
  // double rounds once (libgcc rounds __int128 to nearest).
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<std::int64_t> mantissa(-(1 << 23), 1 << 23);
  std::uniform_int_distribution<int> exponent(-20, 16);
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<float> values(1 + trial * 7);
    Int128 exact = 0;
    for (auto& v : values) {
      const std::int64_t m = mantissa(rng);
      const int e = exponent(rng);
      v = std::ldexp(static_cast<float>(m), e);
      exact += static_cast<Int128>(m) << (e + 20);
    }
    EXPECT_EQ(sum_of(values).value(), std::ldexp(static_cast<double>(exact), -20)) << trial;
  }
}

TEST(ExactSum, OrderAndSplitDoNotMatter) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> unit(-1.0F, 1.0F);
  std::uniform_int_distribution<int> exponent(-140, 120);
  std::vector<float> values(4097);
  for (auto& v : values) v = std::ldexp(unit(rng), exponent(rng));
  const ExactSum whole = sum_of(values);
  for (int shuffle = 0; shuffle < 5; ++shuffle) {
    std::shuffle(values.begin(), values.end(), rng);
    EXPECT_EQ(sum_of(values), whole);
    // In three parts merged in another order.
    const std::vector<float> a(values.begin(), values.begin() + 33), b(values.begin() + 33, values.begin() + 1000),
        c(values.begin() + 1000, values.end());
    ExactSum merged = sum_of(c);
    merged.merge(sum_of(a));
    merged.merge(sum_of(b));
    EXPECT_EQ(merged, whole);
  }
  EXPECT_EQ(whole.sign(), whole.value() > 0 ? 1 : -1);
}

}  // namespace
}  // namespace astrosweep
