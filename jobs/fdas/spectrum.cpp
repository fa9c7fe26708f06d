#include "spectrum.hpp"

#include <fftw3.h>

#include <algorithm>
#include <cmath>
#include <mutex>
#include <numbers>

#include "core/error.hpp"
#include "core/fftw_planner.hpp"
#include "deredden_arith.hpp"

namespace astrosweep::fdas {

static_assert(arith::ln2 == std::numbers::ln2, "the device's ln 2 is the host's");

namespace {

constexpr std::size_t first_block_length = 6;
constexpr std::size_t longest_block = 200;

// ⌊6 · ln b⌋ capped at 200, the logarithm in double (spec §2: the truncations decide the blocks).
std::size_t block_length_at(std::size_t b) {
  const auto l = static_cast<std::size_t>(std::floor(6.0 * std::log(static_cast<double>(b))));
  return std::min(l, longest_block);
}

float block_median(std::span<const float> powers, std::vector<float>& scratch);

}  // namespace

std::size_t good_fft_length(std::size_t n) noexcept {
  if (n <= 1) return 1;
  for (std::size_t m = n;; ++m) {
    std::size_t r = m;
    for (std::size_t p : {2U, 3U, 5U, 7U})
      while (r % p == 0) r /= p;
    if (r == 1) return m;
  }
}

double padding_mean(std::span<const float> x, std::size_t n_fft) noexcept {
  if (x.empty() || n_fft <= x.size()) return 0;
  double mean = 0;
  for (const float v : x) mean += static_cast<double>(v);
  return mean / static_cast<double>(x.size());
}

std::vector<std::complex<float>> raw_spectrum(std::span<const float> x, std::size_t n_fft) {
  AS_EXPECTS(n_fft >= x.size() && n_fft >= 2, UsageError,
             "FFT length " + std::to_string(n_fft) + " is shorter than the series (" + std::to_string(x.size()) + ")");
  const double mean = padding_mean(x, n_fft);
  double* in = fftw_alloc_real(n_fft);
  fftw_complex* out = fftw_alloc_complex(n_fft / 2 + 1);
  AS_EXPECTS(in != nullptr && out != nullptr, RuntimeError, "out of memory for an FFT of " + std::to_string(n_fft));
  for (std::size_t i = 0; i < n_fft; ++i) in[i] = i < x.size() ? static_cast<double>(x[i]) : mean;
  fftw_plan plan = nullptr;
  {
    const std::scoped_lock lock(fftw_planner_lock());
    plan = fftw_plan_dft_r2c_1d(static_cast<int>(n_fft), in, out, FFTW_ESTIMATE);
  }
  std::vector<std::complex<float>> f(n_fft / 2);
  if (plan != nullptr) {
    fftw_execute(plan);
    for (std::size_t k = 0; k < f.size(); ++k) f[k] = {static_cast<float>(out[k][0]), static_cast<float>(out[k][1])};
    const std::scoped_lock lock(fftw_planner_lock());
    fftw_destroy_plan(plan);
  }
  fftw_free(in);
  fftw_free(out);
  AS_EXPECTS(plan != nullptr, RuntimeError, "FFTW cannot plan a real transform of length " + std::to_string(n_fft));
  f[0] = 1;
  return f;
}

namespace {

// PRESTO's median of `powers`, with `scratch` as the copy nth_element reorders (a buffer reused
// across a thread's blocks rather than one allocation per block).
float block_median(std::span<const float> powers, std::vector<float>& scratch) {
  if (powers.empty()) return 0;
  scratch.assign(powers.begin(), powers.end());
  const std::size_t n = scratch.size();
  const auto lower = scratch.begin() + static_cast<std::ptrdiff_t>(arith::median_rank(n));
  std::nth_element(scratch.begin(), lower, scratch.end());
  // nth_element leaves the values above the lower middle after it: the upper middle is their least.
  const float upper =
      arith::upper_median_rank(n) == arith::median_rank(n) ? *lower : *std::min_element(lower + 1, scratch.end());
  return arith::middle_mean(*lower, upper);
}

}  // namespace

float block_median(std::span<const float> powers) {
  std::vector<float> scratch;
  return block_median(powers, scratch);
}

DereddenLayout deredden_layout(std::size_t K) {
  DereddenLayout layout;
  std::vector<DereddenBlock>& blocks = layout.blocks;
  std::size_t b = 1, L = first_block_length;
  if (b + L > K) return layout;
  blocks.push_back({b, L, 0});
  b += L;
  L = block_length_at(b);
  while (L > 0 && b + L < K) {
    blocks.push_back({b, L, 0});
    b += L;
    L = block_length_at(b);
  }
  // PRESTO's walk over the blocks as ramps: the first half block at its own level without a
  // slope, then from each block's middle to the next's the levels interpolated, then the last
  // slope extrapolated to the end. Every bin's level depends only on its ramp, so the ramps can
  // be applied in any order (in parallel) with the same bits as the walk.
  std::vector<LevelRampPlan>& ramps = layout.ramps;
  ramps.reserve(blocks.size() + 1);
  const std::size_t first_until = 1 + blocks[0].length / 2;
  ramps.push_back({1, first_until, 0, 0});
  std::size_t written = first_until;
  std::size_t slope_block = 0;
  for (std::size_t j = 1; j < blocks.size(); ++j) {
    slope_block = j;
    const std::size_t until = blocks[j].first + blocks[j].length / 2;
    if (written < until) ramps.push_back({written, until, j - 1, j});
    written = std::max(written, until);
  }
  if (written < K) ramps.push_back({written, K, blocks.size() - 1, slope_block});
  return layout;
}

namespace {

// The blocks' levels from their medians, each on its own (tens of thousands for a long series).
void fill_levels(std::span<const float> powers, std::vector<DereddenBlock>& blocks, int threads) {
  const auto n_blocks = static_cast<std::ptrdiff_t>(blocks.size());
#pragma omp parallel num_threads(std::max(threads, 1))
  {
    std::vector<float> scratch;
    scratch.reserve(longest_block);
#pragma omp for schedule(static)
    for (std::ptrdiff_t j = 0; j < n_blocks; ++j) {
      DereddenBlock& block = blocks[static_cast<std::size_t>(j)];
      block.level = arith::level_from_median(block_median(powers.subspan(block.first, block.length), scratch));
    }
  }
}

}  // namespace

std::vector<DereddenBlock> deredden_blocks(std::span<const float> powers, int threads) {
  std::vector<DereddenBlock> blocks = deredden_layout(powers.size()).blocks;
  fill_levels(powers, blocks, threads);
  return blocks;
}

void deredden(std::span<std::complex<float>> spectrum, int threads) {
  threads = std::max(threads, 1);
  const std::size_t K = spectrum.size();
  DereddenLayout layout = deredden_layout(K);
  if (layout.blocks.empty()) return;  // too short to estimate a level: left as it is
  std::vector<float> powers(K);
  const auto n_bins = static_cast<std::ptrdiff_t>(K);
#pragma omp parallel for schedule(static) num_threads(threads)
  for (std::ptrdiff_t k = 0; k < n_bins; ++k) {
    const std::complex<float> f = spectrum[static_cast<std::size_t>(k)];
    powers[static_cast<std::size_t>(k)] = arith::bin_power(f.real(), f.imag());
  }
  fill_levels(powers, layout.blocks, threads);
  const std::vector<DereddenBlock>& blocks = layout.blocks;
  const auto n_ramps = static_cast<std::ptrdiff_t>(layout.ramps.size());
#pragma omp parallel for schedule(static) num_threads(threads)
  for (std::ptrdiff_t j = 0; j < n_ramps; ++j) {
    const LevelRampPlan& ramp = layout.ramps[static_cast<std::size_t>(j)];
    const float level = blocks[ramp.level_block].level;
    const float slope = ramp.slope_block == 0
                            ? 0.0F
                            : arith::ramp_slope(blocks[ramp.slope_block - 1].level, blocks[ramp.slope_block].level,
                                                blocks[ramp.slope_block - 1].length, blocks[ramp.slope_block].length);
    for (std::size_t i = 0; ramp.begin + i < ramp.end; ++i) {
      const float local = arith::ramp_level(level, slope, i);
      if (!(local > 0)) continue;
      // Each part scaled on its own (as PRESTO does), not a complex product by (factor, 0), whose
      // signs of zero differ.
      const float factor = arith::dereddening_factor(local);
      std::complex<float>& f = spectrum[ramp.begin + i];
      f = {arith::mul(f.real(), factor), arith::mul(f.imag(), factor)};
    }
  }
}

float known_variance_factor(std::size_t n_samples, double variance) {
  AS_EXPECTS(variance > 0 && std::isfinite(variance), UsageError,
             "the known noise variance must be positive, not " + std::to_string(variance));
  return static_cast<float>(1.0 / std::sqrt(static_cast<double>(n_samples) * variance));
}

void scale_bins(std::span<std::complex<float>> spectrum, float factor) {
  for (std::size_t k = 1; k < spectrum.size(); ++k)
    spectrum[k] = {arith::mul(spectrum[k].real(), factor), arith::mul(spectrum[k].imag(), factor)};
}

void normalise_known_variance(std::span<std::complex<float>> spectrum, std::size_t n_samples, double variance) {
  scale_bins(spectrum, known_variance_factor(n_samples, variance));
}

std::vector<BinRange> birdie_bins(std::span<const Birdie> birdies, double span_seconds, std::size_t K) {
  std::vector<BinRange> ranges;
  for (const Birdie& b : birdies) {
    AS_EXPECTS(b.frequency >= 0 && b.width >= 0, UsageError, "a birdie needs a frequency and width >= 0 Hz");
    const double lo = std::max(std::floor((b.frequency - b.width / 2) * span_seconds), 1.0);
    const double hi = std::ceil((b.frequency + b.width / 2) * span_seconds);
    // Bins lo … hi, those below K.
    if (!(lo <= hi) || !(lo < static_cast<double>(K))) continue;
    const auto first = static_cast<std::size_t>(lo);
    const std::size_t end = hi < static_cast<double>(K) ? static_cast<std::size_t>(hi) + 1 : K;
    ranges.push_back({first, end});
  }
  return ranges;
}

void zero_bins(std::span<std::complex<float>> spectrum, std::span<const BinRange> ranges) {
  for (const BinRange& range : ranges) {
    const std::size_t end = std::min(range.end, spectrum.size());
    for (std::size_t k = range.first; k < end; ++k) spectrum[k] = {};
  }
}

void zap_birdies(std::span<std::complex<float>> spectrum, std::span<const Birdie> birdies, double span_seconds) {
  zero_bins(spectrum, birdie_bins(birdies, span_seconds, spectrum.size()));
}

}  // namespace astrosweep::fdas
