#pragma once
// The CUDA Lomb-Scargle kernels (kernels/lomb_scargle.cu), twin of jobs/period/lomb_scargle_cpu.cpp.
//
// A launch evaluates a list of periodogram segments: (object, run of grid indices) pairs, each a
// whole number of chunks. Every thread block takes `block_freqs<T>` consecutive grid indices of
// one object; its thread a holds the frequencies kb + a + r * threads (r < runs<T>), so stores are
// coalesced. Per point the block seeds exp(2 pi i f t) once at kb (a double-precision sincospi
// times two small tables) and steps along its frequencies by the angle-addition recurrence:
// 4 FMAs per pair instead of a sin/cos, 5 (standard) or 7 (generalized) more for the sums.

#include <cuda_runtime_api.h>

#include <cstdint>

namespace astrosweep::period::kernels {

constexpr int threads = 128;  ///< per block; thread a = 16 u + v
constexpr int seed_u = threads / 16;
constexpr int seed_v = 16;
constexpr int point_tile = 64;  ///< points staged in shared memory per step

/// Frequencies each thread carries in registers: more amortise the seed, fewer keep occupancy.
template <class T>
constexpr int runs = sizeof(T) == 4 ? 16 : 8;
template <class T>
constexpr std::uint64_t block_freqs = static_cast<std::uint64_t>(threads) * runs<T>;

/// One computable object of a work unit, its points at [first, first + n) of the point arrays.
struct DeviceObject {
  std::uint64_t first = 0;
  std::uint32_t n = 0;
  std::uint32_t parts = 1;  ///< point ranges evaluated by separate blocks (see parts_for)
  double yy = 0;
  double psd_scale = 0;
};

/// Long objects split their points over several blocks, so one object still fills every SM;
/// the partial sums are added in double, in part order, by a second kernel. The split depends on
/// the object alone, so a value never depends on what else shares its launch.
constexpr std::uint32_t max_parts = 16;
constexpr std::uint32_t points_per_part = 1024;
inline std::uint32_t parts_for(std::uint32_t n_points) {
  const std::uint32_t parts = (n_points + points_per_part - 1) / points_per_part;
  return parts < 1 ? 1 : (parts > max_parts ? max_parts : parts);
}
/// Partial sums kept per frequency and part: C, S, YC, YS, CC, CS, SS.
constexpr int n_sums = 7;

/// Grid indices [k_begin, k_begin + n) of one object, stored at out + offset.
struct Segment {
  std::uint32_t object = 0;
  std::uint64_t k_begin = 0;
  std::uint64_t n = 0;
  std::uint64_t offset = 0;
  std::uint64_t scratch = 0;  ///< partial sums at scratch + ((part * n_sums + m) * n + i), when parts > 1
};

/// One thread block of the power kernel: block `index` of `segment`, point range `part`.
struct BlockItem {
  std::uint32_t segment = 0;
  std::uint32_t index = 0;
  std::uint32_t part = 0;
};

/// Per-point data in device memory, filled by `prepare_points`.
template <class T>
struct PointArrays {
  const double* t = nullptr;  ///< times relative to the object's reference
  T* sqrt_w = nullptr;        ///< sqrt of the normalised weight
  T* y_sqrt_w = nullptr;      ///< centred y times sqrt_w
  T* step = nullptr;          ///< cos, sin of 2 pi (threads df) t: one recurrence step
  T* seed_u = nullptr;        ///< cos, sin of 2 pi (16 u df) t, u < seed_u
  T* seed_v = nullptr;        ///< cos, sin of 2 pi (v df) t, v < seed_v
};

/// Bytes of device memory `prepare_points` needs per point.
template <class T>
constexpr std::size_t bytes_per_point = sizeof(double) + sizeof(T) * (2 + 2 * (1 + seed_u + seed_v));

/// Fills step/seed tables for n points with grid step df.
template <class T>
void prepare_points(const PointArrays<T>& points, std::uint64_t n, double df, cudaStream_t stream);

struct PowerLaunch {
  double f0 = 0, df = 0;
  bool fit_mean = false;
  int normalization = 0;
  double degenerate_eps = 0;
  const DeviceObject* objects = nullptr;
  const Segment* segments = nullptr;
  const BlockItem* items = nullptr;
  std::uint32_t n_items = 0;
  const BlockItem* combine_items = nullptr;  ///< part-0 items of objects with parts > 1
  std::uint32_t n_combine_items = 0;
};

/// Power of every segment into out (values of segment s at out + s.offset); `scratch` holds the
/// partial sums of split objects.
template <class T>
void lomb_scargle_power(const PointArrays<T>& points, const PowerLaunch& launch, T* out, T* scratch,
                        cudaStream_t stream);

}  // namespace astrosweep::period::kernels
