#pragma once
// The fast method: Lomb-Scargle power from sums computed as type-1 non-uniform FFTs (nufft.hpp),
// the approach of nifty-ls. On the grid f_k = f0 + k df, with x_j = 2 pi df t_j (mod 2 pi),
//
//   sum_j w_j y_j exp(i 2 pi f_k t_j) = sum_j [w_j y_j exp(i 2 pi f_c t_j)] exp(i (k - k_c) x_j)
//
// is a type-1 transform of the bracketed strengths onto the modes k - k_c around a centre k_c (so
// the phase the transform sees stays small and the large one, f_c t_j, is reduced exactly in
// double as the direct method reduces it). The same with w_j gives the floating mean's sums, and
// with w_j on the points 2 x_j and the centre 2 f_c the sums at twice the frequency, from which
// sum w cos^2, sum w cos sin and sum w sin^2 follow (sums_from_harmonics). The power is then what
// the direct method computes from its sums (power_from_sums, shared).
//
// A grid is evaluated in pieces of `FastLayout::piece` frequencies aligned to multiples of it,
// each its own transforms: a value depends only on the object, the grid and its grid index, never
// on the range asked for, the thread count or the path (batch or alone), so products stay identical
// for any rank count. The piece length depends on the object's point count (fast_layout).

#include <complex>
#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <vector>

#include "nufft.hpp"
#include "period_config.hpp"
#include "prepared_series.hpp"

namespace astrosweep::period {

/// The transforms' tolerance per precision. Both precisions transform in double (positions,
/// strengths, grid and FFT) and differ in the kernel's width: 14 cells for FP64, 10 for FP32. FP32
/// transforms (Nufft1<float>) were tried and left: float rounding of the strengths and the FFT
/// put the power of 10-point curves up to 1.5e-5 of the peak away from the direct FP64 power
/// (the FP32 target is 1e-5; the direct FP32 kernel itself is off by up to 1.6e-5 there), for a
/// saving of about a third of the time.
template <class T>
constexpr double fast_tolerance() {
  return sizeof(T) == 4 ? 1e-8 : 1e-12;
}

/// The sums a piece is made of, as bits for choosing which to compute.
enum FastSum : unsigned {
  fast_sum_y = 1,   ///< sum w y exp(i w t): YC + i YS
  fast_sum_w = 2,   ///< sum w exp(i w t): C + i S (generalized model only)
  fast_sum_w2 = 4,  ///< sum w exp(2 i w t): the second moments
};

/// The sums an object needs under a model.
unsigned fast_sums_needed(Model model);

/// How an object's grid is cut: pieces of `piece` frequencies (a power of two that is a multiple
/// of chunk_freqs, or the whole grid in one piece), each `shape`'s transforms.
struct FastLayout {
  std::uint64_t piece = 0;
  NufftShape shape;
  [[nodiscard]] std::uint64_t pieces(std::uint64_t n_freq) const noexcept {
    return piece ? (n_freq + piece - 1) / piece : 0;
  }
};

/// The layout of least estimated cost for an object of n_points on `grid`.
template <class T>
FastLayout fast_layout(std::uint64_t n_points, const FrequencyGrid& grid);

/// Estimated seconds of one object on one core, per method, for Method::automatic. The constants
/// were measured on the 2-core development VM (tools/bench_period --suite calibrate); only their
/// ratios matter.
template <class T>
double direct_seconds(std::uint64_t n_points, const FrequencyGrid& grid, Model model);
template <class T>
double fast_seconds(std::uint64_t n_points, const FrequencyGrid& grid, Model model);

/// The method `requested` resolves to for an object: fast or direct, never automatic.
template <class T>
Method choose_method(Method requested, std::uint64_t n_points, const FrequencyGrid& grid, Model model);

/// Per-object constants of the fast method: the reduced positions of the two transforms.
template <class T>
struct FastSeries {
  FastSeries(const PreparedSeries& series, const FrequencyGrid& grid);
  const PreparedSeries* series;
  FastLayout layout;
  std::vector<double> x;   ///< 2 pi df t_j reduced to [-pi, pi]
  std::vector<double> x2;  ///< 2 pi 2 df t_j reduced to [-pi, pi]
  double w_sum = 0;        ///< sum w (1 up to rounding)
};

/// The sums of one piece: `piece` values each, those not asked for left as they are.
struct FastPieceSums {
  std::vector<std::complex<double>> y, w, w2;
};

/// A thread's transforms and strength buffers, kept from object to object. Not for concurrent use.
class FastWorkspace {
 public:
  Nufft1<double>& transform(const NufftShape& shape);
  std::vector<std::complex<double>> a, b;  ///< strengths of the vectors being transformed

 private:
  std::map<std::pair<std::uint64_t, int>, std::unique_ptr<Nufft1<double>>> transforms_;
};

/// Computes the sums `which` (FastSum bits) of piece `piece` into `sums`, spreading on `threads`
/// OpenMP threads. Each sum's bits depend neither on which others are computed with it nor on
/// the threads.
template <class T>
void fast_piece_sums(const FastSeries<T>& series, const FrequencyGrid& grid, std::uint64_t piece, unsigned which,
                     FastWorkspace& workspace, FastPieceSums& sums, int threads = 1);

/// Power at the piece's grid indices [first, first + out.size()) from its sums (first relative to
/// the piece's start).
template <class T>
void fast_piece_power(const FastSeries<T>& series, Model model, Normalization normalization, const FastPieceSums& sums,
                      std::uint64_t first, std::span<T> out);

/// Power at grid indices [k_begin, k_begin + out.size()): the pieces that range touches.
template <class T>
void lomb_scargle_fast(const FastSeries<T>& series, const FrequencyGrid& grid, Model model, Normalization normalization,
                       std::uint64_t k_begin, std::span<T> out, FastWorkspace& workspace);

}  // namespace astrosweep::period
