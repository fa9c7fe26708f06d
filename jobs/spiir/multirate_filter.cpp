#include "multirate_filter.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "core/error.hpp"

namespace astrosweep::spiir {

std::vector<double> halfband_taps(int half_length, double beta) {
  AS_ASSERT(half_length > 0);
  std::vector<double> taps(static_cast<std::size_t>(2 * half_length + 1));
  const double norm = std::cyl_bessel_i(0.0, beta);
  for (int k = -half_length; k <= half_length; ++k) {
    const double x = 0.5 * k;
    const double sinc = k == 0 ? 1.0 : std::sin(std::numbers::pi * x) / (std::numbers::pi * x);
    const double r = static_cast<double>(k) / half_length;
    const double window = std::cyl_bessel_i(0.0, beta * std::sqrt(1 - r * r)) / norm;
    taps[static_cast<std::size_t>(k + half_length)] = 0.5 * sinc * window;
  }
  // DC gain exactly 1 despite the window.
  double sum = 0;
  for (double t : taps) sum += t;
  for (double& t : taps) t /= sum;
  return taps;
}

int halfband_half_length(int lowest_level) { return std::max(32, 1 << lowest_level); }

std::vector<double> decimate2(std::span<const double> x, const std::vector<double>& taps) {
  const auto half = static_cast<std::ptrdiff_t>(taps.size() / 2);
  const auto n = static_cast<std::ptrdiff_t>(x.size());
  std::vector<double> out(static_cast<std::size_t>((n + 1) / 2));
  for (std::ptrdiff_t m = 0; m < static_cast<std::ptrdiff_t>(out.size()); ++m) {
    double sum = 0;
    for (std::ptrdiff_t k = -half; k <= half; ++k) {
      const std::ptrdiff_t i = 2 * m - k;
      if (i >= 0 && i < n) sum += taps[static_cast<std::size_t>(k + half)] * x[static_cast<std::size_t>(i)];
    }
    out[static_cast<std::size_t>(m)] = std::numbers::sqrt2 * sum;
  }
  return out;
}

std::vector<std::complex<double>> interpolate2(std::span<const std::complex<double>> z, std::size_t n_out,
                                               const std::vector<double>& taps) {
  const auto half = static_cast<std::ptrdiff_t>(taps.size() / 2);
  std::vector<std::complex<double>> out(n_out);
  for (std::ptrdiff_t n = 0; n < static_cast<std::ptrdiff_t>(n_out); ++n) {
    std::complex<double> sum = 0;
    // Only the even positions n − k of the zero-stuffed series hold samples.
    for (std::ptrdiff_t k = -half; k <= half; ++k) {
      const std::ptrdiff_t i = n - k;
      if (i < 0 || i % 2 != 0 || i / 2 >= static_cast<std::ptrdiff_t>(z.size())) continue;
      sum += 2.0 * taps[static_cast<std::size_t>(k + half)] * z[static_cast<std::size_t>(i / 2)];
    }
    out[static_cast<std::size_t>(n)] = sum;
  }
  return out;
}

std::vector<std::complex<double>> multirate_filter(const SpiirBank& bank, std::span<const double> x,
                                                   const BackendMaker& make) {
  AS_EXPECTS(!bank.rates.empty(), UsageError, "the bank has no rates");
  const auto top = static_cast<std::int64_t>(bank.sample_rate_max);
  int levels = 1;
  std::vector<const RateBank*> at_level(8, nullptr);
  for (const auto& r : bank.rates) {
    const int level = static_cast<int>(std::lround(std::log2(static_cast<double>(top) / static_cast<double>(r.rate))));
    AS_EXPECTS(level >= 0 && level < 8 && (top >> level) == r.rate, UsageError,
               "a rate of the bank is not the top rate over a power of two");
    at_level[static_cast<std::size_t>(level)] = &r;
    levels = std::max(levels, level + 1);
  }
  const auto taps = halfband_taps(halfband_half_length(levels - 1));
  const std::size_t nt = bank.n_templates();
  // The input at every level.
  std::vector<std::vector<double>> inputs{std::vector<double>(x.begin(), x.end())};
  for (int level = 1; level < levels; ++level) inputs.push_back(decimate2(inputs.back(), taps));
  // From the lowest level up: filter, add what came from below, interpolate to the next level.
  std::vector<std::complex<double>> carried;  // template-major at the current level, or empty
  for (int level = levels - 1; level >= 0; --level) {
    const auto& in = inputs[static_cast<std::size_t>(level)];
    std::vector<std::complex<double>> here(nt * in.size());
    if (const RateBank* r = at_level[static_cast<std::size_t>(level)]) make(*r)->filter(in, here);
    if (!carried.empty()) {
      const std::size_t n_below = carried.size() / nt;
      for (std::size_t t = 0; t < nt; ++t) {
        const auto up = interpolate2(std::span(carried).subspan(t * n_below, n_below), in.size(), taps);
        for (std::size_t i = 0; i < in.size(); ++i) here[t * in.size() + i] += up[i];
      }
    }
    carried = std::move(here);
  }
  return carried;
}

MultirateStream::MultirateStream(const SpiirBank& bank, const BackendMaker& make) : n_templates_(bank.n_templates()) {
  AS_EXPECTS(!bank.rates.empty(), UsageError, "the bank has no rates");
  const auto top = static_cast<std::int64_t>(bank.sample_rate_max);
  std::vector<const RateBank*> at_level(8, nullptr);
  for (const auto& r : bank.rates) {
    const int level = static_cast<int>(std::lround(std::log2(static_cast<double>(top) / static_cast<double>(r.rate))));
    AS_EXPECTS(level >= 0 && level < 8 && (top >> level) == r.rate, UsageError,
               "a rate of the bank is not the top rate over a power of two");
    at_level[static_cast<std::size_t>(level)] = &r;
    lowest_ = std::max(lowest_, level);
  }
  taps_ = halfband_taps(halfband_half_length(lowest_));
  const auto k = static_cast<std::int64_t>(taps_.size() / 2);
  AS_ASSERT(k % 2 == 0);
  latency_ = static_cast<std::size_t>(2 * k * ((std::int64_t{1} << lowest_) - 1));
  levels_.resize(static_cast<std::size_t>(lowest_ + 1));
  for (int level = 0; level <= lowest_; ++level) {
    auto& l = levels_[static_cast<std::size_t>(level)];
    l.input_history.assign(static_cast<std::size_t>(2 * k), 0.0);
    l.up_history.assign(n_templates_ * static_cast<std::size_t>(k + 1), 0.0);
    // Level delays in its own samples: the decimators' K(2^ℓ − 1) top-rate samples before the filters,
    // and all but the interpolators' K(2^ℓ − 1) after them.
    const std::int64_t step = std::int64_t{1} << level;
    AS_ASSERT((k * (step - 1)) % step == 0);  // halfband_half_length makes K a multiple of 2^L
    l.input_start = static_cast<std::size_t>(k * (step - 1) / step);
    l.output_start = static_cast<std::size_t>((static_cast<std::int64_t>(latency_) - k * (step - 1)) / step);
    if (const RateBank* r = at_level[static_cast<std::size_t>(level)]) {
      RateBank delayed = *r;
      const std::int64_t extra = 2 * k * ((std::int64_t{1} << (lowest_ - level)) - 1);
      for (std::size_t t = 0; t < delayed.n_templates; ++t)
        for (std::size_t f = 0; f < static_cast<std::size_t>(delayed.n_filters[t]); ++f)
          delayed.delay[t * delayed.width + f] += static_cast<std::int32_t>(extra);
      l.backend = make(delayed);
    }
  }
}

void MultirateStream::filter(std::span<const double> x, std::span<std::complex<double>> z) {
  AS_EXPECTS(x.size() % chunk_multiple() == 0, UsageError,
             "a multi-rate chunk must be a multiple of " + std::to_string(chunk_multiple()) + " samples");
  AS_EXPECTS(z.size() == n_templates_ * x.size(), UsageError, "the SNR buffer does not fit the chunk");
  const std::size_t k = taps_.size() / 2;
  const std::size_t nt = n_templates_;
  // Inputs of every level: causal decimation, y[m] = √2 Σ_j h_j x[2m − j], with each level's history.
  std::vector<std::vector<double>> inputs{std::vector<double>(x.begin(), x.end())};
  for (std::size_t level = 0; level + 1 < levels_.size(); ++level) {
    auto& hist = levels_[level].input_history;
    const auto& in = inputs.back();
    std::vector<double> ext(hist);
    ext.insert(ext.end(), in.begin(), in.end());
    std::vector<double> out(in.size() / 2);
    for (std::size_t m = 0; m < out.size(); ++m) {
      double sum = 0;
      for (std::size_t j = 0; j <= 2 * k; ++j) sum += taps_[j] * ext[2 * k + 2 * m - j];
      const bool before_start = levels_[level + 1].seen + m < levels_[level + 1].input_start;
      out[m] = before_start ? 0.0 : std::numbers::sqrt2 * sum;
    }
    std::copy(ext.end() - static_cast<std::ptrdiff_t>(2 * k), ext.end(), hist.begin());
    inputs.push_back(std::move(out));
  }
  // From the lowest level up: filter, add the causal interpolation of what came from below.
  std::vector<std::complex<double>> carried;
  for (int level = lowest_; level >= 0; --level) {
    auto& l = levels_[static_cast<std::size_t>(level)];
    const auto& in = inputs[static_cast<std::size_t>(level)];
    const std::size_t n = in.size();
    std::vector<std::complex<double>> here(nt * n);
    if (l.backend) l.backend->filter(in, here);
    if (!carried.empty()) {
      const std::size_t n_below = carried.size() / nt;  // = n / 2
      for (std::size_t t = 0; t < nt; ++t) {
        // ext: the last K + 1 samples from below, then this chunk's; zero-stuffed index 2i ↔ ext[i].
        std::vector<std::complex<double>> ext(l.up_history.begin() + static_cast<std::ptrdiff_t>(t * (k + 1)),
                                              l.up_history.begin() + static_cast<std::ptrdiff_t>((t + 1) * (k + 1)));
        ext.insert(ext.end(), carried.begin() + static_cast<std::ptrdiff_t>(t * n_below),
                   carried.begin() + static_cast<std::ptrdiff_t>((t + 1) * n_below));
        const std::size_t origin = 2 * (k + 1);  // stuffed position of this chunk's first sample
        for (std::size_t i = 0; i < n; ++i) {
          if (l.seen + i < l.output_start) continue;
          std::complex<double> sum = 0;
          for (std::size_t j = 0; j <= 2 * k; ++j) {
            const std::size_t pos = origin + i - j;  // never negative: origin > 2K
            if (pos % 2 == 0) sum += 2.0 * taps_[j] * ext[pos / 2];
          }
          here[t * n + i] += sum;
        }
        std::copy(ext.end() - static_cast<std::ptrdiff_t>(k + 1), ext.end(),
                  l.up_history.begin() + static_cast<std::ptrdiff_t>(t * (k + 1)));
      }
    }
    carried = std::move(here);
    l.seen += n;
  }
  std::copy(carried.begin(), carried.end(), z.begin());
}

void MultirateStream::filter_max(std::span<const double> x, std::span<SampleMax> best) {
  AS_EXPECTS(best.size() == x.size(), UsageError, "the per-sample buffer does not fit the chunk");
  summed_.resize(n_templates_ * x.size());
  filter(x, summed_);
  sample_max(summed_, n_templates_, x.size(), best);
}

}  // namespace astrosweep::spiir
