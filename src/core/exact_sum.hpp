#pragma once
// An exact sum of float32 values: every float is an integer multiple of 2^-149 below 2^128, so the
// sum is held as one wide two's-complement integer in units of 2^-149 and no addition rounds. The
// result therefore does not depend on the order of the additions or on how they were split and
// merged: a source's flux summed slab by slab on any number of ranks is the same number, and its
// sign decides the same way (the linker's keepNegative test). value() rounds once, to nearest.

#include <array>
#include <bit>
#include <cstdint>

namespace astrosweep {

class ExactSum {
 public:
  /// Adds a finite float (a NaN or infinity is the caller's to exclude).
  void add(float value) noexcept;
  /// Adds another sum (associative and commutative, like add).
  void merge(const ExactSum& other) noexcept;
  /// -1, 0 or +1: the sign of the exact sum.
  [[nodiscard]] int sign() const noexcept;
  /// The exact sum rounded to the nearest double (ties to even).
  [[nodiscard]] double value() const noexcept;
  [[nodiscard]] bool operator==(const ExactSum&) const noexcept = default;

  /// Units of 2^-149 (the smallest float) up to 2^277 (a float's largest mantissa at its largest
  /// exponent), a sign bit, and room for 2^106 such values.
  static constexpr int limbs = 6;

 private:
  std::array<std::uint64_t, limbs> limb_{};  ///< least significant first
};

}  // namespace astrosweep
