#pragma once
// Lomb-Scargle power of one prepared series over a range of grid frequencies: the unit of work the
// backends share. `lomb_scargle_reference` is the plain double-precision oracle (astropy's
// slow_impl, one sin/cos per point and frequency); `lomb_scargle_cpu` is the vectorised CPU
// kernel the OpenMP backend runs, in FP32 or FP64.

#include <cstdint>
#include <span>

#include "period_config.hpp"
#include "prepared_series.hpp"

namespace astrosweep::period {

/// Power at grid indices [k_begin, k_begin + out.size()) in double, straight from the definition.
void lomb_scargle_reference(const PreparedSeries& series, const FrequencyGrid& grid, Model model,
                            Normalization normalization, std::uint64_t k_begin, std::span<double> out);

/// Tolerance below which a moment counts as degenerate, per precision (see raw_power).
template <class T>
constexpr double degenerate_eps() {
  return sizeof(T) == 4 ? 1e-5 : 1e-13;
}

/// Frequencies are evaluated in panels of lanes x steps: the sin/cos of each point is computed
/// exactly (in double) at every lane's first frequency and advanced through the lane's steps by
/// the angle-addition recurrence. A value depends only on its grid index, never on the range
/// asked for, so chunked, batched and threaded evaluations give identical bytes.
template <class T>
struct CpuKernelShape {
  static constexpr int lanes = 64 / static_cast<int>(sizeof(T));  // one 512-bit vector
  static constexpr int steps = 64;
  static constexpr int panel = lanes * steps;
};

/// Per-object constants of the CPU kernel (sin/cos of the grid step per point, data in T).
template <class T>
struct CpuSeries {
  CpuSeries(const PreparedSeries& series, const FrequencyGrid& grid);
  const PreparedSeries* series;
  std::vector<T> w, wy;
  std::vector<T> step_cos, step_sin;       // rotation by 2 pi df t_j
  std::vector<double> lane_cos, lane_sin;  // rotation by 2 pi (steps df) t_j, for seeding lanes
};

template <class T>
void lomb_scargle_cpu(const CpuSeries<T>& series, const FrequencyGrid& grid, Model model, Normalization normalization,
                      std::uint64_t k_begin, std::span<T> out);

}  // namespace astrosweep::period
