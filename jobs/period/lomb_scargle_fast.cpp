// The fast method (lomb_scargle_fast.hpp): strengths, transforms and power, piece by piece.

#include "lomb_scargle_fast.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>

#include "core/error.hpp"
#include "lomb_scargle.hpp"
#include "lomb_scargle_power.hpp"

namespace astrosweep::period {

namespace {

constexpr double two_pi = 2 * std::numbers::pi;

/// Pieces are powers of two between min_piece and max_piece, multiples of the backends' chunk of
/// 2^15 frequencies, or the whole grid when it has at most max_whole frequencies. Pieces of 2^18
/// frequencies (8 MiB grids per sum) measured twice as slow as pieces of 2^17 for 3,000 points
/// and 10^6 frequencies on 2 threads of the development VM (2 MiB of L2 per core), where the cost
/// estimate had preferred them; a whole grid of that size does not pay for a second spreading,
/// which the Kepler-like object (65,000 points, 1.75e5 frequencies) would (19 ms against 12.5).
constexpr std::uint64_t min_piece = std::uint64_t{1} << 15;
constexpr std::uint64_t max_piece = std::uint64_t{1} << 17;
constexpr std::uint64_t max_whole = std::uint64_t{1} << 18;

/// 2 pi frac(v), in [0, 2 pi): the phase of v cycles, exact for the large v of f t.
double cycles_to_angle(double v) { return two_pi * (v - std::floor(v)); }

/// 2 pi (v - round(v)), in [-pi, pi]: a position for the transforms.
double cycles_to_position(double v) { return two_pi * (v - std::nearbyint(v)); }

/// Seconds per operation on one core of the 2-core development VM (AMD EPYC, AVX2), fitted to
/// tools/bench_period --suite calibrate (single objects of 10 to 10^5 points, 10^4 to 10^6
/// frequencies; docs/performance.md). Only the ratios matter: they decide the method and the
/// pieces, never a value.
struct CostConstants {
  double direct_pair;   // per point and frequency, the vectorised direct kernel
  double frequency;     // per frequency, either method: power, peak summaries
  double spread_cell;   // per point and kernel cell, one sum
  double point;         // per point and piece, one sum: its phase, strength, kernel bookkeeping
  double fft_cell_log;  // per cell and log2(cells) of one transform, with zeroing and deconvolution
};

template <class T>
CostConstants cost_constants() {
  return {sizeof(T) == 4 ? 1.25e-10 : 2.1e-10, 8e-9, 5.8e-9, 30e-9, 0.3e-9};
}

/// Spread-equivalents and transforms per piece: generalized spreads its y and w sums with one
/// kernel evaluation (measured: the second costs 0.3 of the first).
double spreads(Model model) { return model == Model::generalized ? 2.3 : 2.0; }
double transforms(Model model) { return model == Model::generalized ? 3.0 : 2.0; }

/// Seconds of one sum's transforms over the grid, in pieces of `piece`: spreading and FFTs.
double spread_seconds(std::uint64_t n_points, std::uint64_t n_pieces, const NufftShape& shape, const CostConstants& k) {
  return static_cast<double>(n_pieces) * static_cast<double>(n_points) * (shape.width * k.spread_cell + k.point);
}
double fft_seconds(std::uint64_t n_pieces, const NufftShape& shape, const CostConstants& k) {
  const auto cells = static_cast<double>(shape.grid);
  return static_cast<double>(n_pieces) * cells * std::log2(cells) * k.fft_cell_log;
}

}  // namespace

unsigned fast_sums_needed(Model model) {
  return model == Model::generalized ? fast_sum_y | fast_sum_w | fast_sum_w2 : fast_sum_y | fast_sum_w2;
}

template <class T>
FastLayout fast_layout(std::uint64_t n_points, const FrequencyGrid& grid) {
  AS_ASSERT(grid.n > 0);
  const CostConstants k = cost_constants<T>();
  FastLayout best;
  double best_seconds = std::numeric_limits<double>::infinity();
  auto consider = [&](std::uint64_t piece) {
    const NufftShape shape = nufft_shape(piece, fast_tolerance<T>());
    const std::uint64_t pieces = (grid.n + piece - 1) / piece;
    // Per sum: the models' sums scale spreading and FFTs alike to within the y/w sharing.
    const double seconds = spread_seconds(n_points, pieces, shape, k) + fft_seconds(pieces, shape, k);
    if (seconds < best_seconds) {
      best_seconds = seconds;
      best = {piece, shape};
    }
  };
  if (grid.n <= max_whole) consider(grid.n);
  for (std::uint64_t piece = min_piece; piece <= max_piece && piece < grid.n; piece *= 2) consider(piece);
  return best;
}

template <class T>
double direct_seconds(std::uint64_t n_points, const FrequencyGrid& grid, Model /*model*/) {
  const CostConstants k = cost_constants<T>();
  const auto n_f = static_cast<double>(grid.n);
  return static_cast<double>(n_points) * n_f * k.direct_pair + n_f * k.frequency;
}

template <class T>
double fast_seconds(std::uint64_t n_points, const FrequencyGrid& grid, Model model) {
  const CostConstants k = cost_constants<T>();
  const FastLayout layout = fast_layout<T>(n_points, grid);
  const std::uint64_t pieces = layout.pieces(grid.n);
  return spreads(model) * spread_seconds(n_points, pieces, layout.shape, k) +
         transforms(model) * fft_seconds(pieces, layout.shape, k) + static_cast<double>(grid.n) * k.frequency;
}

template <class T>
Method choose_method(Method requested, std::uint64_t n_points, const FrequencyGrid& grid, Model model) {
  if (requested != Method::automatic) return requested;
  return fast_seconds<T>(n_points, grid, model) < direct_seconds<T>(n_points, grid, model) ? Method::fast
                                                                                           : Method::direct;
}

template <class T>
FastSeries<T>::FastSeries(const PreparedSeries& s, const FrequencyGrid& grid)
    : series(&s), layout(fast_layout<T>(s.n_used(), grid)) {
  const std::size_t n = s.t.size();
  x.resize(n);
  x2.resize(n);
  for (std::size_t j = 0; j < n; ++j) {
    x[j] = cycles_to_position(grid.df * s.t[j]);
    x2[j] = cycles_to_position(2 * grid.df * s.t[j]);
    w_sum += s.w[j];
  }
}

Nufft1<double>& FastWorkspace::transform(const NufftShape& shape) {
  auto& slot = transforms_[{shape.modes, shape.width}];
  if (!slot) slot = std::make_unique<Nufft1<double>>(shape);
  return *slot;
}

template <class T>
void fast_piece_sums(const FastSeries<T>& series, const FrequencyGrid& grid, std::uint64_t piece, unsigned which,
                     FastWorkspace& workspace, FastPieceSums& sums, int threads) {
  const PreparedSeries& s = *series.series;
  const std::size_t n = s.t.size();
  const std::uint64_t modes = series.layout.piece;
  const auto centre = static_cast<std::int64_t>(modes / 2);
  // The piece's centre frequency: its phases, large, are reduced in double; the transform adds
  // the small ones, (k - k_c) x_j.
  const double f_centre = grid.at(piece * modes + static_cast<std::uint64_t>(centre));
  Nufft1<double>& nufft = workspace.transform(series.layout.shape);
  if (which & (fast_sum_y | fast_sum_w)) {
    const bool y = which & fast_sum_y, w = which & fast_sum_w;
    workspace.a.resize(n);
    workspace.b.resize(n);
    for (std::size_t j = 0; j < n; ++j) {
      const double a = cycles_to_angle(f_centre * s.t[j]);
      const double c = std::cos(a), sn = std::sin(a);
      if (y) workspace.a[j] = {s.w[j] * s.y[j] * c, s.w[j] * s.y[j] * sn};
      if (w) workspace.b[j] = {s.w[j] * c, s.w[j] * sn};
    }
    std::vector<std::span<const std::complex<double>>> in;
    std::vector<std::span<std::complex<double>>> out;
    if (y) {
      sums.y.resize(modes);
      in.emplace_back(workspace.a);
      out.emplace_back(sums.y);
    }
    if (w) {
      sums.w.resize(modes);
      in.emplace_back(workspace.b);
      out.emplace_back(sums.w);
    }
    nufft.execute(series.x, in, -centre, out, threads);
  }
  if (which & fast_sum_w2) {
    workspace.a.resize(n);
    for (std::size_t j = 0; j < n; ++j) {
      const double a = cycles_to_angle(2 * f_centre * s.t[j]);
      workspace.a[j] = {s.w[j] * std::cos(a), s.w[j] * std::sin(a)};
    }
    sums.w2.resize(modes);
    nufft.execute(series.x2, std::span<const std::complex<double>>(workspace.a), -centre,
                  std::span<std::complex<double>>(sums.w2), threads);
  }
}

template <class T>
void fast_piece_power(const FastSeries<T>& series, Model model, Normalization normalization, const FastPieceSums& sums,
                      std::uint64_t first, std::span<T> out) {
  const PreparedSeries& s = *series.series;
  const bool fit_mean = model == Model::generalized;
  AS_ASSERT(first + out.size() <= series.layout.piece);
  for (std::size_t i = 0; i < out.size(); ++i) {
    const std::size_t k = first + i;
    const std::complex<double> y = sums.y[k], w2 = sums.w2[k];
    const std::complex<double> w = fit_mean ? sums.w[k] : std::complex<double>(0, 0);
    const TrigSums m = sums_from_harmonics(w.real(), w.imag(), y.real(), y.imag(), w2.real(), w2.imag(), series.w_sum);
    out[i] = static_cast<T>(
        power_from_sums(m, fit_mean, degenerate_eps<T>(), static_cast<int>(normalization), s.yy, s.psd_scale));
  }
}

template <class T>
void lomb_scargle_fast(const FastSeries<T>& series, const FrequencyGrid& grid, Model model, Normalization normalization,
                       std::uint64_t k_begin, std::span<T> out, FastWorkspace& workspace) {
  const std::uint64_t piece = series.layout.piece;
  const std::uint64_t k_end = k_begin + out.size();
  FastPieceSums sums;
  for (std::uint64_t p = k_begin / piece; p * piece < k_end; ++p) {
    fast_piece_sums(series, grid, p, fast_sums_needed(model), workspace, sums);
    const std::uint64_t lo = std::max(k_begin, p * piece), hi = std::min(k_end, (p + 1) * piece);
    fast_piece_power(series, model, normalization, sums, lo - p * piece, out.subspan(lo - k_begin, hi - lo));
  }
}

#define AS_FAST_INSTANTIATE(T)                                                                                        \
  template FastLayout fast_layout<T>(std::uint64_t, const FrequencyGrid&);                                            \
  template double direct_seconds<T>(std::uint64_t, const FrequencyGrid&, Model);                                      \
  template double fast_seconds<T>(std::uint64_t, const FrequencyGrid&, Model);                                        \
  template Method choose_method<T>(Method, std::uint64_t, const FrequencyGrid&, Model);                               \
  template struct FastSeries<T>;                                                                                      \
  template void fast_piece_sums<T>(const FastSeries<T>&, const FrequencyGrid&, std::uint64_t, unsigned,               \
                                   FastWorkspace&, FastPieceSums&, int);                                              \
  template void fast_piece_power<T>(const FastSeries<T>&, Model, Normalization, const FastPieceSums&, std::uint64_t,  \
                                    std::span<T>);                                                                    \
  template void lomb_scargle_fast<T>(const FastSeries<T>&, const FrequencyGrid&, Model, Normalization, std::uint64_t, \
                                     std::span<T>, FastWorkspace&);
AS_FAST_INSTANTIATE(float)
AS_FAST_INSTANTIATE(double)
#undef AS_FAST_INSTANTIATE

}  // namespace astrosweep::period
