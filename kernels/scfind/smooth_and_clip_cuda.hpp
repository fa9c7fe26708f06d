#pragma once
// The CUDA smooth-and-clip kernels (kernels/smooth_and_clip.cu), twin of the OpenMP backend in
// jobs/scfind/. Every boxcar pass is SoFiA-2's float running sum from the end of the line,
// operation for operation (../shared specs: smooth-and-clip.md), so the results are bit-identical
// to a serial float implementation:
//   inv = (float)(1.0 / (2r + 1)); v = 0 outside the line and where the input is NaN;
//   out[n-1] = (v[n-1+r] + v[n-2+r] + ... + v[n-1-r]) * inv   (summed from the top, from 0.0f);
//   out[i]   = out[i+1] + (v[i-r] - v[i+r+1]) * inv            for i = n-2 down to 0;
// each operation rounded on its own (__fadd_rn, __fsub_rn, __fmul_rn: no fused multiply-add).
//
// All buffers are device memory of one slab's held channels, x fastest, then y, then channel.
// The launchers take the stream last, queue their kernels on it and never synchronise.

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace astrosweep::scfind::kernels {

/// (float)(1.0 / (2·radius + 1)): the boxcar weight as SoFiA-2 rounds it (in double, then float).
inline float boxcar_weight(std::size_t radius) { return static_cast<float>(1.0 / static_cast<double>(2 * radius + 1)); }

/// out[i] = the working copy's start value of voxel i: (float)copysign(replacement, x) where
/// `mask` is set and `replace` holds, else x; NaN becomes 0. n voxels.
void prepare_working_copy(const float* original, const std::uint8_t* mask, float* out, std::size_t n, bool replace,
                          float replacement, cudaStream_t stream);

/// One boxcar pass along x on `rows` rows of nx values (rows = y·channels). Takes the
/// shared-memory tiled sweep (x_pass_tiled_fits) when its window fits, else the strided one.
void boxcar_x(const float* in, float* out, std::size_t nx, std::size_t rows, std::size_t radius, cudaStream_t stream);
/// True when the tiled x pass's window (rows × (tile + 2r + 1) floats) fits in shared memory.
bool x_pass_tiled_fits(std::size_t radius) noexcept;
/// The x pass with one thread per row reading its own line (uncoalesced): for any radius, and
/// the baseline the tiled sweep is measured against.
void boxcar_x_strided(const float* in, float* out, std::size_t nx, std::size_t rows, std::size_t radius,
                      cudaStream_t stream);

/// One boxcar pass along y on `channels` planes of nx × ny, one thread per column (adjacent
/// threads at adjacent x, so every step is a coalesced row access). When `restore` is given (the
/// original data, same layout) voxels that are NaN there get it back: the last pass of a pair
/// without spectral smoothing writes the final result.
void boxcar_y(const float* in, float* out, std::size_t nx, std::size_t ny, std::size_t channels, std::size_t radius,
              const float* restore, cudaStream_t stream);

/// The spectral running sum of one slab over the pixels [first_pixel, end_pixel) of a plane.
struct SpectralPass {
  const float* in = nullptr;        ///< held channels, spatially smoothed (NaN counts as 0)
  const float* original = nullptr;  ///< held channels: where NaN, the output is restored to it
  float* out = nullptr;             ///< held channels; the owned ones are written
  const float* carry_in = nullptr;  ///< one plane: out[own_end] from the slab above; null at the top
  float* carry_out = nullptr;       ///< one plane: receives out[own_begin] before restoring; null: not kept
  std::size_t plane = 0;            ///< nx · ny
  std::size_t nz = 0;               ///< channels of the whole cube (zero padding beyond)
  std::size_t held_begin = 0, own_begin = 0, own_end = 0;
  std::size_t radius = 0;
  std::size_t first_pixel = 0, end_pixel = 0;
};
void boxcar_z(const SpectralPass& pass, cudaStream_t stream);

/// data[i] = original[i] where original[i] is NaN; n voxels.
void restore_blanks(const float* original, float* data, std::size_t n, cudaStream_t stream);

/// out[k] = data[highest - k·cadence] for k < count (indices relative to `data`).
void gather_samples(const float* data, std::uint64_t highest, std::uint64_t cadence, std::uint64_t count, float* out,
                    cudaStream_t stream);

/// Floats of scratch finite_min_max needs.
constexpr std::size_t min_max_scratch_floats = 2 * 1024;
/// result[0], result[1] = smallest and largest non-NaN value of data[0, n) (−0 ordered below +0),
/// or NaN, NaN when there is none. `scratch` holds min_max_scratch_floats.
void finite_min_max(const float* data, std::size_t n, float* scratch, float* result, cudaStream_t stream);

/// mask[i] = 1 where |(double)data[i]| > threshold; other mask values stay. n voxels.
void clip(const float* data, std::size_t n, double threshold, std::uint8_t* mask, cudaStream_t stream);

/// *count = mask[0] + ... + mask[n − 1] (the voxels set, the mask holding 0 and 1); `count` is
/// one word of device memory. `mask` may start at any byte.
void mask_count(const std::uint8_t* mask, std::size_t n, std::uint64_t* count, cudaStream_t stream);

}  // namespace astrosweep::scfind::kernels
