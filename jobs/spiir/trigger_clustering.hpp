#pragma once
// Clustering of the foreground triggers (spec §9): within a window, only the loudest stays.
#include <cstdint>
#include <span>
#include <vector>

namespace astrosweep::spiir {

/// The indices (ascending) of the triggers that no other trigger within `window` samples (|Δt| ≤
/// window) beats: a higher `value`, or an equal one at a lower index.
std::vector<std::size_t> cluster_triggers(std::span<const std::int64_t> times, std::span<const double> values,
                                          std::int64_t window);

}  // namespace astrosweep::spiir
