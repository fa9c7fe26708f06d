#include "mask_offsets.hpp"

#include <omp.h>

#include <algorithm>
#include <cstring>

namespace astrosweep::scfind {

namespace {

/// Calls found(i) for the non-zero bytes mask[i], i in [begin, end), in order. Eight bytes are
/// tested at once: a mask is almost all zeros.
template <class Found>
void for_each_set(const std::uint8_t* mask, std::size_t begin, std::size_t end, Found&& found) {
  std::size_t i = begin;
  for (; i + 8 <= end; i += 8) {
    std::uint64_t word = 0;
    std::memcpy(&word, mask + i, 8);
    if (word == 0) continue;
    for (std::size_t k = i; k < i + 8; ++k)
      if (mask[k] != 0) found(k);
  }
  for (; i < end; ++i)
    if (mask[i] != 0) found(i);
}

}  // namespace

std::vector<std::uint64_t> mask_offsets(std::span<const std::uint8_t> mask) { return *mask_offsets(mask, mask.size()); }

std::optional<std::vector<std::uint64_t>> mask_offsets(std::span<const std::uint8_t> mask, std::uint64_t limit) {
  // Two passes over the same parts: count, then write from the part's place in the prefix of the
  // counts, so the offsets come out in order without sorting or per-thread copies.
  const std::size_t n = mask.size();
  const auto parts = static_cast<std::int64_t>(
      std::clamp<std::size_t>(n >> 20, 1, 4 * static_cast<std::size_t>(omp_get_max_threads())));
  const std::size_t span = (n + static_cast<std::size_t>(parts) - 1) / static_cast<std::size_t>(parts);
  std::vector<std::size_t> before(static_cast<std::size_t>(parts) + 1, 0);
#pragma omp parallel for schedule(static)
  for (std::int64_t p = 0; p < parts; ++p) {
    const std::size_t begin = std::min(n, static_cast<std::size_t>(p) * span), end = std::min(n, begin + span);
    std::size_t count = 0;
    for_each_set(mask.data(), begin, end, [&](std::size_t) { ++count; });
    before[static_cast<std::size_t>(p) + 1] = count;
  }
  for (std::size_t p = 1; p < before.size(); ++p) before[p] += before[p - 1];
  if (before.back() > limit) return std::nullopt;
  std::vector<std::uint64_t> offsets(before.back());
#pragma omp parallel for schedule(static)
  for (std::int64_t p = 0; p < parts; ++p) {
    const std::size_t begin = std::min(n, static_cast<std::size_t>(p) * span), end = std::min(n, begin + span);
    std::uint64_t* out = offsets.data() + before[static_cast<std::size_t>(p)];
    for_each_set(mask.data(), begin, end, [&](std::size_t i) { *out++ = i; });
  }
  return offsets;
}

}  // namespace astrosweep::scfind
