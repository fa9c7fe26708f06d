#pragma once
// The values one rank contributes to the mad noise's exact median (noise.hpp): |x| of its in-range
// samples, in SoFiA-2's walk order (highest global index first), wherever they are held. The
// median is found by refining a histogram of their bit patterns (distributed_select), so all it
// needs from them is their number and, per round, 256 counts; a backend that holds the smoothed
// cube on a device keeps the magnitudes there and only the counts travel (ScfindBackend::
// magnitudes). Plain C++, no MPI; the host implementation, HostMagnitudes, is in noise.hpp.

#include <array>
#include <cstdint>

#include "scfind_config.hpp"

namespace astrosweep::scfind {

/// SoFiA-2's flux ranges: negative keeps x < 0, positive x > 0, full every non-NaN value (so −0,
/// +0 and NaN are never negative or positive). The CUDA backend tests the same on bit patterns.
constexpr bool in_flux_range(float x, FluxRange range) noexcept {
  switch (range) {
    case FluxRange::negative: return x < 0.0F;
    case FluxRange::positive: return x > 0.0F;
    case FluxRange::full: return x == x;
  }
  return false;
}

class MagnitudeCounter {
 public:
  using Counts = std::array<std::uint64_t, 256>;

  MagnitudeCounter() = default;
  MagnitudeCounter(const MagnitudeCounter&) = delete;
  MagnitudeCounter& operator=(const MagnitudeCounter&) = delete;
  virtual ~MagnitudeCounter() = default;

  /// Values held (non-negative floats: NaN never, +inf possibly).
  [[nodiscard]] virtual std::uint64_t size() const = 0;
  /// Keeps the first n values (n ≤ size()): SoFiA-2's cap keeps the first samples met from the top.
  virtual void keep_first(std::uint64_t n) = 0;
  /// counts[d] = values whose bit pattern b has (b & mask) == prefix and ((b >> shift) & 0xFF) == d.
  /// shift is 24, 16, 8 or 0, and mask covers only bits above shift + 7.
  [[nodiscard]] virtual Counts count(std::uint32_t prefix, std::uint32_t mask, int shift) = 0;
};

}  // namespace astrosweep::scfind
