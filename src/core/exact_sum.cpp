#include "core/exact_sum.hpp"

#include <cmath>

namespace astrosweep {

namespace {

using Limbs = std::array<std::uint64_t, ExactSum::limbs>;

// a += b, modulo 2^(64·limbs): two's complement makes subtraction the addition of a negation.
void add_limbs(Limbs& a, const Limbs& b) noexcept {
  std::uint64_t carry = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const std::uint64_t s = a[i] + b[i];
    const std::uint64_t c1 = s < a[i] ? 1 : 0;
    a[i] = s + carry;
    const std::uint64_t c2 = a[i] < s ? 1 : 0;
    carry = c1 | c2;
  }
}

void negate(Limbs& a) noexcept {
  for (auto& l : a) l = ~l;
  Limbs one{};
  one[0] = 1;
  add_limbs(a, one);
}

bool negative(const Limbs& a) noexcept { return (a.back() >> 63) != 0; }

}  // namespace

void ExactSum::add(float value) noexcept {
  const auto bits = std::bit_cast<std::uint32_t>(value);
  const std::uint32_t exponent = (bits >> 23) & 0xffu;
  std::uint64_t mantissa = bits & 0x7fffffu;
  if (mantissa == 0 && exponent == 0) return;  // ±0
  // value = mantissa · 2^(shift - 149): normal numbers carry the implicit bit, subnormals do not.
  unsigned shift = 0;
  if (exponent != 0) {
    mantissa |= 0x800000u;
    shift = exponent - 1;
  }
  Limbs term{};
  const unsigned word = shift / 64, bit = shift % 64;
  term[word] = mantissa << bit;
  if (bit > 40 && word + 1 < term.size()) term[word + 1] = mantissa >> (64 - bit);  // 24-bit mantissa spills over
  if ((bits >> 31) != 0) negate(term);
  add_limbs(limb_, term);
}

void ExactSum::merge(const ExactSum& other) noexcept { add_limbs(limb_, other.limb_); }

int ExactSum::sign() const noexcept {
  if (negative(limb_)) return -1;
  for (auto l : limb_)
    if (l != 0) return 1;
  return 0;
}

double ExactSum::value() const noexcept {
  Limbs magnitude = limb_;
  const bool minus = negative(magnitude);
  if (minus) negate(magnitude);
  int top = static_cast<int>(magnitude.size()) - 1;
  while (top >= 0 && magnitude[static_cast<std::size_t>(top)] == 0) --top;
  if (top < 0) return 0.0;
  // The 64 bits from the highest set bit down, the bits below folded into a sticky bit: 64 > 53 + 1
  // bits, so converting them rounds as rounding the whole number would.
  const auto t = static_cast<std::size_t>(top);
  const int lead = 63 - std::countl_zero(magnitude[t]);  // highest set bit within limb t
  const int low = top * 64 + lead - 63;                  // weight (in units) of the window's bit 0
  std::uint64_t window = 0;
  bool sticky = false;
  for (int b = 0; b < 64; ++b) {
    const int at = low + b;
    if (at < 0) continue;
    const auto l = static_cast<std::size_t>(at / 64);
    if ((magnitude[l] >> (at % 64)) & 1u) window |= std::uint64_t{1} << b;
  }
  for (int at = 0; at < low && !sticky; ++at)
    sticky = ((magnitude[static_cast<std::size_t>(at / 64)] >> (at % 64)) & 1u) != 0;
  if (sticky) window |= 1;
  const double v = std::ldexp(static_cast<double>(window), low - 149);
  return minus ? -v : v;
}

}  // namespace astrosweep
