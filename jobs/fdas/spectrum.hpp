#pragma once
// A series' normalised spectrum (spec §1 end, §2): padded to a smooth FFT length with the
// series' mean, transformed (negative exponent), Nyquist dropped, DC set to 1, and either
// dereddened as PRESTO does (block medians on a logarithmic scale, interpolated) or divided by a
// known noise level. After either, noise powers |F|² are exponential with mean 1.

#include <complex>
#include <cstddef>
#include <span>
#include <vector>

namespace astrosweep::fdas {

/// The smallest n' ≥ n whose only prime factors are 2, 3, 5 and 7 (1 for n ≤ 1).
std::size_t good_fft_length(std::size_t n) noexcept;

/// The value a series is padded with to `n_fft` points: its mean, summed in double in order (the
/// spectrum's bits depend on it), or 0 without padding (n_fft ≤ x.size(): a 2^23-sample series
/// then skips a serial pass over its samples).
double padding_mean(std::span<const float> x, std::size_t n_fft) noexcept;

/// F_k = Σ x_n e^{−2πikn/N_fft}, k = 0 … N_fft/2 − 1, x padded to `n_fft` ≥ x.size() with its mean,
/// computed in double and rounded to float; F_0 = 1.
std::vector<std::complex<float>> raw_spectrum(std::span<const float> x, std::size_t n_fft);

/// PRESTO's median of a block of powers (the dereddening's blocks, the correlator's segments):
/// its median() is GSL's gsl_stats_float_median since PRESTO 394bc81 (2026-07-04), the middle
/// value for odd n and half the float sum of the two middle values for even n
/// (arith::middle_mean); 0 for no powers.
float block_median(std::span<const float> powers);

/// One block of the dereddening: its first bin, its length and its level (median / ln 2).
struct DereddenBlock {
  std::size_t first;
  std::size_t length;
  float level;
};

/// A run of the dereddening's levels: bins [begin, end), the i-th of them at the level of block
/// `level_block` plus i times the slope from block slope_block − 1's middle to slope_block's (no
/// slope when slope_block is 0).
struct LevelRampPlan {
  std::size_t begin, end;
  std::size_t level_block, slope_block;
};

/// Where a spectrum of K bins is dereddened: its blocks (levels 0) and the ramps that cover bins
/// 1 … K − 1 (both empty when K is too short for a block). They depend on K alone, so a device
/// takes them once per length; deredden applies them on the host.
struct DereddenLayout {
  std::vector<DereddenBlock> blocks;
  std::vector<LevelRampPlan> ramps;
};
DereddenLayout deredden_layout(std::size_t K);

/// The dereddening blocks of a spectrum of `powers.size()` bins, in order (spec §2 steps 2–4):
/// the first at bin 1 with length 6, then lengths ⌊6·ln b⌋ capped at 200, while b + L < K. The
/// blocks' medians on `threads` threads (the same levels for any count).
std::vector<DereddenBlock> deredden_blocks(std::span<const float> powers, int threads = 1);

/// Divides every bin but DC by √(local level), the level interpolated linearly between block
/// middles (spec §2), in float as PRESTO keeps it; the medians on `threads` threads.
void deredden(std::span<std::complex<float>> spectrum, int threads = 1);

/// Divides every bin but DC by √(N σ²): the normalisation for white noise of known variance σ²
/// over N samples (spec §2's --norm known-variance).
void normalise_known_variance(std::span<std::complex<float>> spectrum, std::size_t n_samples, double variance);
/// Both parts of every bin but DC multiplied by `factor`, each on its own.
void scale_bins(std::span<std::complex<float>> spectrum, float factor);
/// That division's factor, 1 / √(N σ²) in double rounded to float (UsageError unless σ² > 0).
float known_variance_factor(std::size_t n_samples, double variance);

/// Zeroes the bins of each (frequency Hz, width Hz) birdie, with T = N_fft · tsamp seconds.
struct Birdie {
  double frequency;
  double width;
};
void zap_birdies(std::span<std::complex<float>> spectrum, std::span<const Birdie> birdies, double span_seconds);

/// The bins [first, end) that zap_birdies zeroes in a spectrum of K bins, one range per birdie
/// that reaches a bin (UsageError for a negative frequency or width).
struct BinRange {
  std::size_t first, end;
};
std::vector<BinRange> birdie_bins(std::span<const Birdie> birdies, double span_seconds, std::size_t K);
/// The bins of `ranges` (below spectrum.size()) set to 0.
void zero_bins(std::span<std::complex<float>> spectrum, std::span<const BinRange> ranges);

}  // namespace astrosweep::fdas
