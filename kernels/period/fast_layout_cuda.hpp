#pragma once
// How the CUDA backend runs the fast method: the pieces, the transform shape, the batch of objects
// that share one cuFFT plan, and the estimated device seconds that --method auto compares. Plain
// C++ (the backend's host side and the benchmark use it).

#include <cstdint>

#include "nufft.hpp"
#include "period_config.hpp"

namespace astrosweep::period::kernels {

/// The grid in pieces of `piece` frequencies (the whole grid up to 2^22), each one transform of
/// `shape` per sum; `batch` objects' grids per cuFFT execution. Depends on the grid, model and
/// precision only: an object's values never depend on what shares its unit, rank or launch
/// (cuFFT is executed with one batch size, the last batch of a unit padded with empty grids).
struct GpuFastLayout {
  std::uint64_t piece = 0;
  NufftShape shape;
  int sums = 0;             ///< grids per object: 3 generalized (y, w, w2), 2 standard (y, w2)
  std::uint32_t batch = 0;  ///< objects per cuFFT execution
  [[nodiscard]] std::uint64_t pieces(std::uint64_t n_freq) const noexcept { return (n_freq + piece - 1) / piece; }
  /// Bytes of one batch's grids.
  [[nodiscard]] std::uint64_t grid_bytes() const noexcept { return std::uint64_t{batch} * sums * shape.grid * 16; }
};

template <class T>
GpuFastLayout gpu_fast_layout(const FrequencyGrid& grid, Model model);

/// Estimated device seconds of one object by each method (only their ratio matters), and the
/// method `requested` resolves to on a GPU rank.
template <class T>
double gpu_direct_seconds(std::uint64_t n_points, const FrequencyGrid& grid, Model model);
template <class T>
double gpu_fast_seconds(std::uint64_t n_points, const FrequencyGrid& grid, Model model);
template <class T>
Method gpu_choose_method(Method requested, std::uint64_t n_points, const FrequencyGrid& grid, Model model);

}  // namespace astrosweep::period::kernels
