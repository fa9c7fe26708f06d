// The CUDA backend's fast-method layout and cost estimates (fast_layout_cuda.hpp).

#include "fast_layout_cuda.hpp"

#include <algorithm>
#include <cmath>

#include "lomb_scargle_fast.hpp"

namespace astrosweep::period::kernels {

namespace {

/// A grid of up to 2^22 frequencies is one piece (its double grids, 3 x 2^23 cells x 16 B, are
/// 400 MB per object); larger ones go in pieces of 2^21 (multiples of chunk_freqs).
constexpr std::uint64_t max_whole = std::uint64_t{1} << 22;
constexpr std::uint64_t long_piece = std::uint64_t{1} << 21;

/// A batch's grids take about this much device memory: large enough that cuFFT and the kernels
/// see thousands of blocks, small enough for any GPU's budget.
constexpr std::uint64_t batch_bytes = std::uint64_t{1} << 28;
constexpr std::uint32_t max_batch = 64;

/// The kernels move each grid cell about ten times (zeroing, unfixing, cuFFT's passes, reading the
/// modes) and spread each point once: grid bytes dominate. FP32's tolerance (1e-8) is within
/// reach of the 1.25x grid (15 cells of kernel instead of 10 on the 2x grid, 0.625 of the cells);
/// FP64's 1e-12 is not (it would need 21 cells, beyond nufft_max_width), so it keeps 2x.
template <class T>
constexpr double oversampling() {
  return sizeof(T) == 4 ? 1.25 : 2.0;
}

/// Device seconds per operation, the kernel times of tools/bench_period --suite methods --backend
/// cuda on an H200 (docs/performance.md): the direct kernels 4.0-4.8e-13 s per pair in FP32 and
/// 7.0-7.9e-13 in FP64; the fast method's 10^4-object TESS-like batch 11-15 us per object, which
/// the contribution and cell costs reproduce within 10 %. Only the ratios matter: they choose the
/// method, never a value. With them a TESS-like object (1,500 points, 5e4 frequencies) goes fast
/// and the crossover on such grids is a few hundred points.
struct GpuCosts {
  double direct_pair;   // per point and frequency, the direct kernel
  double contribution;  // per point, kernel cell and sum: two 64-bit atomics and the kernel value
  double cell;          // per fine-grid cell and sum: zeroing, unfixing, cuFFT, reading the modes
  double frequency;     // per frequency: the power, candidates
};

template <class T>
GpuCosts gpu_costs() {
  return {sizeof(T) == 4 ? 4.5e-13 : 7.5e-13, 4e-11, 4e-11, 2e-11};
}

}  // namespace

template <class T>
GpuFastLayout gpu_fast_layout(const FrequencyGrid& grid, Model model) {
  GpuFastLayout l;
  l.piece = grid.n <= max_whole ? std::max<std::uint64_t>(grid.n, 1) : long_piece;
  l.shape = nufft_shape(l.piece, fast_tolerance<T>(), oversampling<T>());
  l.sums = model == Model::generalized ? 3 : 2;
  const std::uint64_t per_object = std::uint64_t{1} * l.sums * l.shape.grid * 16;
  l.batch = static_cast<std::uint32_t>(std::clamp<std::uint64_t>(batch_bytes / per_object, 1, max_batch));
  return l;
}

template <class T>
double gpu_direct_seconds(std::uint64_t n_points, const FrequencyGrid& grid, Model /*model*/) {
  const GpuCosts k = gpu_costs<T>();
  const auto n_f = static_cast<double>(grid.n);
  return static_cast<double>(n_points) * n_f * k.direct_pair + n_f * k.frequency;
}

template <class T>
double gpu_fast_seconds(std::uint64_t n_points, const FrequencyGrid& grid, Model model) {
  const GpuCosts k = gpu_costs<T>();
  const GpuFastLayout l = gpu_fast_layout<T>(grid, model);
  const auto pieces = static_cast<double>(l.pieces(grid.n));
  return pieces * l.sums *
             (static_cast<double>(n_points) * l.shape.width * k.contribution +
              static_cast<double>(l.shape.grid) * k.cell) +
         static_cast<double>(grid.n) * k.frequency;
}

template <class T>
Method gpu_choose_method(Method requested, std::uint64_t n_points, const FrequencyGrid& grid, Model model) {
  if (requested != Method::automatic) return requested;
  return gpu_fast_seconds<T>(n_points, grid, model) < gpu_direct_seconds<T>(n_points, grid, model) ? Method::fast
                                                                                                   : Method::direct;
}

#define AS_GPU_FAST_INSTANTIATE(T)                                                   \
  template GpuFastLayout gpu_fast_layout<T>(const FrequencyGrid&, Model);            \
  template double gpu_direct_seconds<T>(std::uint64_t, const FrequencyGrid&, Model); \
  template double gpu_fast_seconds<T>(std::uint64_t, const FrequencyGrid&, Model);   \
  template Method gpu_choose_method<T>(Method, std::uint64_t, const FrequencyGrid&, Model);
AS_GPU_FAST_INSTANTIATE(float)
AS_GPU_FAST_INSTANTIATE(double)
#undef AS_GPU_FAST_INSTANTIATE

}  // namespace astrosweep::period::kernels
