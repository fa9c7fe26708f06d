#include "spectrum.hpp"

#include <fftw3.h>

#include <algorithm>
#include <cmath>
#include <mutex>
#include <numbers>

#include "core/error.hpp"
#include "core/fftw_planner.hpp"

namespace astrosweep::fdas {

namespace {

constexpr std::size_t first_block_length = 6;
constexpr std::size_t longest_block = 200;

// ⌊6 · ln b⌋ capped at 200, the logarithm in double (spec §2: the truncations decide the blocks).
std::size_t block_length_at(std::size_t b) {
  const auto l = static_cast<std::size_t>(std::floor(6.0 * std::log(static_cast<double>(b))));
  return std::min(l, longest_block);
}

float level_of(std::span<const float> powers, std::size_t first, std::size_t length) {
  return static_cast<float>(static_cast<double>(block_median(powers.subspan(first, length))) / std::numbers::ln2);
}

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

std::vector<std::complex<float>> raw_spectrum(std::span<const float> x, std::size_t n_fft) {
  AS_EXPECTS(n_fft >= x.size() && n_fft >= 2, UsageError,
             "FFT length " + std::to_string(n_fft) + " is shorter than the series (" + std::to_string(x.size()) + ")");
  double mean = 0;
  for (float v : x) mean += static_cast<double>(v);
  mean = x.empty() ? 0 : mean / static_cast<double>(x.size());
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

float block_median(std::span<const float> powers) {
  if (powers.empty()) return 0;
  std::vector<float> v(powers.begin(), powers.end());
  const std::size_t k = (v.size() - 1) / 2;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(k), v.end());
  return v[k];
}

std::vector<DereddenBlock> deredden_blocks(std::span<const float> powers, int threads) {
  const std::size_t K = powers.size();
  std::vector<DereddenBlock> blocks;
  std::size_t b = 1, L = first_block_length;
  if (b + L > K) return blocks;
  blocks.push_back({b, L, 0});
  b += L;
  L = block_length_at(b);
  while (L > 0 && b + L < K) {
    blocks.push_back({b, L, 0});
    b += L;
    L = block_length_at(b);
  }
  // The medians, each on its own (tens of thousands for a long series).
  const auto n_blocks = static_cast<std::ptrdiff_t>(blocks.size());
#pragma omp parallel for schedule(static) num_threads(std::max(threads, 1))
  for (std::ptrdiff_t j = 0; j < n_blocks; ++j) {
    DereddenBlock& block = blocks[static_cast<std::size_t>(j)];
    block.level = level_of(powers, block.first, block.length);
  }
  return blocks;
}

void deredden(std::span<std::complex<float>> spectrum, int threads) {
  const std::size_t K = spectrum.size();
  std::vector<float> powers(K);
  for (std::size_t k = 0; k < K; ++k) powers[k] = std::norm(spectrum[k]);
  const std::vector<DereddenBlock> blocks = deredden_blocks(powers, threads);
  if (blocks.empty()) return;  // too short to estimate a level: left as it is
  auto scale = [&](std::size_t bin, float level) {
    if (level > 0) spectrum[bin] *= 1.0F / std::sqrt(level);
  };
  // The first half block at its own level, without a slope.
  float m_old = blocks[0].level;
  std::size_t written = 1;
  for (; written < 1 + blocks[0].length / 2; ++written) scale(written, m_old);
  float slope = 0;
  for (std::size_t j = 1; j < blocks.size(); ++j) {
    const DereddenBlock& block = blocks[j];
    const float m_new = block.level;
    slope = (m_new - m_old) / (0.5F * static_cast<float>(blocks[j - 1].length + block.length));
    const std::size_t until = block.first + block.length / 2;
    for (std::size_t i = 0; written + i < until; ++i) scale(written + i, m_old + slope * static_cast<float>(i));
    written = std::max(written, until);
    m_old = m_new;
  }
  // The tail: the last slope extrapolated.
  for (std::size_t i = 0; written + i < K; ++i) scale(written + i, m_old + slope * static_cast<float>(i));
}

void normalise_known_variance(std::span<std::complex<float>> spectrum, std::size_t n_samples, double variance) {
  AS_EXPECTS(variance > 0 && std::isfinite(variance), UsageError,
             "the known noise variance must be positive, not " + std::to_string(variance));
  const auto factor = static_cast<float>(1.0 / std::sqrt(static_cast<double>(n_samples) * variance));
  for (std::size_t k = 1; k < spectrum.size(); ++k) spectrum[k] *= factor;
}

void zap_birdies(std::span<std::complex<float>> spectrum, std::span<const Birdie> birdies, double span_seconds) {
  for (const Birdie& b : birdies) {
    AS_EXPECTS(b.frequency >= 0 && b.width >= 0, UsageError, "a birdie needs a frequency and width >= 0 Hz");
    const double lo = std::floor((b.frequency - b.width / 2) * span_seconds);
    const double hi = std::ceil((b.frequency + b.width / 2) * span_seconds);
    for (double k = std::max(lo, 1.0); k <= hi && k < static_cast<double>(spectrum.size()); ++k)
      spectrum[static_cast<std::size_t>(k)] = 0;
  }
}

}  // namespace astrosweep::fdas
