#pragma once
// The fast method on the GPU (kernels/lomb_scargle_fast.cu), twin of jobs/period/lomb_scargle_fast.cpp:
// Lomb-Scargle sums as type-1 non-uniform FFTs, for a batch of objects with different times and
// point counts in one launch of each kernel (nifty-ls's GPU path needs one time grid for all).
//
// Per piece of the grid, each object of the batch has one fine grid per sum (y, w, w2; the
// standard model skips w), laid out [object][sum][cell]. The steps, on one stream:
//   fast_spread   every point adds its strengths times the kernel to the w cells around it, in
//                 64-bit fixed point with integer atomics: integer addition is associative, so a
//                 cell's value does not depend on the order the atomics land in, and a product is
//                 the same from run to run and for any batch (float atomics would not be);
//   fast_unfix    fixed point back to double, in place;
//   cuFFT         a Z2Z inverse transform of every grid (the host's plan);
//   fast_power    each mode deconvolved (the kernel's transform divided out), the sums turned into
//                 power by the CPU's own formulas (lomb_scargle_power.hpp), stored in T.
// Positions, phases, grids and transforms are double in both precisions, as on the CPU.

#include <cuda_runtime_api.h>

#include <cstdint>

namespace astrosweep::period::kernels {

/// One object of a fast batch, its points at [first, first + n) of the point arrays.
struct FastObject {
  std::uint64_t first = 0;
  std::uint32_t n = 0;
  double scale_y = 1;  ///< fixed-point scale of the y sum: 2^(62 - e), sum_j w_j |y_j| < 2^e
  double scale_w = 1;  ///< of the w and w2 sums (sum_j w_j)
  double w_sum = 0;
  double yy = 0;
  double psd_scale = 0;
};

/// A piece's transforms: shape, deconvolution factors and where the piece sits on the grid.
struct FastLaunch {
  const double* t = nullptr;                    ///< times relative to the object's reference
  const double* w = nullptr;                    ///< normalised weights
  const double* y = nullptr;                    ///< centred data
  const std::uint32_t* point_object = nullptr;  ///< group object of each point
  const FastObject* objects = nullptr;          ///< the batch's first object
  std::uint32_t object_base = 0;                ///< its index in the group (point_object's numbering)
  std::uint32_t n_objects = 0;                  ///< objects with grids (the batch), fewer than `grids` at a batch's end
  std::uint64_t n_points = 0;                   ///< points of the batch's objects, from objects[0].first
  std::uint64_t point_base = 0;                 ///< index of the batch's first point in the arrays
  std::uint64_t modes = 0;                      ///< N: frequencies per piece
  std::uint64_t cells = 0;                      ///< M: fine-grid cells
  int width = 0;
  double beta = 0;
  const double* factor = nullptr;  ///< per mode i: (-1)^m h / psi_hat(m), m = i - N/2
  double df = 0;
  double f_centre = 0;  ///< the piece's centre frequency (grid index piece start + N/2)
  int sums = 3;         ///< grids per object: 3 (y, w, w2) generalized, 2 (y, w2) standard
  bool fit_mean = true;
  int normalization = 0;
  double degenerate_eps = 0;
};

/// Zeroes the grids of the launch's objects and spreads their points onto them (fixed point). The
/// grids past n_objects, up to the plan's batch, keep what they held: cuFFT transforms them, no
/// kernel reads them.
void fast_spread(const FastLaunch& launch, void* grids, cudaStream_t stream);

/// Converts the first n_objects objects' grids from fixed point to double2, in place.
void fast_unfix(const FastLaunch& launch, void* grids, cudaStream_t stream);

/// Power at the piece's first `len` modes of each object into out + object * len.
template <class T>
void fast_power(const FastLaunch& launch, const void* grids, std::uint64_t len, T* out, cudaStream_t stream);

}  // namespace astrosweep::period::kernels
