#include "multirate_filter.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "core/error.hpp"
#include "core/text.hpp"
#include "multirate_upsample_rule.hpp"

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

MultirateLayout::MultirateLayout(const SpiirBank& bank) : n_templates(bank.n_templates()), n_rates(bank.rates.size()) {
  AS_EXPECTS(!bank.rates.empty(), UsageError, "the bank has no rates");
  const auto top = static_cast<std::int64_t>(bank.sample_rate_max);
  std::vector<const RateBank*> at_level(8, nullptr);
  for (const auto& r : bank.rates) {
    const int level = static_cast<int>(std::lround(std::log2(static_cast<double>(top) / static_cast<double>(r.rate))));
    AS_EXPECTS(level >= 0 && level < 8 && (top >> level) == r.rate, UsageError,
               "a rate of the bank is not the top rate over a power of two");
    at_level[static_cast<std::size_t>(level)] = &r;
    lowest = std::max(lowest, level);
  }
  taps = halfband_taps(halfband_half_length(lowest));
  const auto k = static_cast<std::int64_t>(taps.size() / 2);
  AS_ASSERT(k % 2 == 0);
  half_length = static_cast<std::size_t>(k);
  latency = static_cast<std::size_t>(2 * k * ((std::int64_t{1} << lowest) - 1));
  levels.resize(static_cast<std::size_t>(lowest + 1));
  for (int level = 0; level <= lowest; ++level) {
    auto& l = levels[static_cast<std::size_t>(level)];
    // Level delays in its own samples: the decimators' K(2^ℓ − 1) top-rate samples before the filters,
    // and all but the interpolators' K(2^ℓ − 1) after them.
    const std::int64_t step = std::int64_t{1} << level;
    AS_ASSERT((k * (step - 1)) % step == 0);  // halfband_half_length makes K a multiple of 2^L
    l.input_start = static_cast<std::size_t>(k * (step - 1) / step);
    l.output_start = static_cast<std::size_t>((static_cast<std::int64_t>(latency) - k * (step - 1)) / step);
    if (const RateBank* r = at_level[static_cast<std::size_t>(level)]) {
      RateBank delayed = *r;
      const std::int64_t extra = 2 * k * ((std::int64_t{1} << (lowest - level)) - 1);
      for (std::size_t t = 0; t < delayed.n_templates; ++t)
        for (std::size_t f = 0; f < static_cast<std::size_t>(delayed.n_filters[t]); ++f)
          delayed.delay[t * delayed.width + f] += static_cast<std::int32_t>(extra);
      l.bank = std::move(delayed);
    }
  }
}

MultirateDecimator::MultirateDecimator(const MultirateLayout& layout)
    : half_length_(layout.half_length),
      taps_(layout.taps),
      history_(layout.levels.size() - 1),
      inputs_(layout.levels.size()) {
  for (const auto& l : layout.levels) input_start_.push_back(l.input_start);
  reset();
}

void MultirateDecimator::reset() {
  for (auto& h : history_) h.assign(2 * half_length_, 0.0);
  seen_ = 0;
}

void MultirateDecimator::next(std::span<const double> x) {
  const std::size_t k = half_length_;
  AS_ASSERT(x.size() % (std::size_t{1} << history_.size()) == 0);
  inputs_[0].assign(x.begin(), x.end());
  for (std::size_t level = 0; level < history_.size(); ++level) {
    auto& hist = history_[level];
    const auto& in = inputs_[level];
    std::vector<double> ext(hist);
    ext.insert(ext.end(), in.begin(), in.end());
    auto& out = inputs_[level + 1];
    out.resize(in.size() / 2);
    const std::size_t seen_below = seen_ >> (level + 1);
    for (std::size_t m = 0; m < out.size(); ++m) {
      double sum = 0;
      for (std::size_t j = 0; j <= 2 * k; ++j) sum += taps_[j] * ext[2 * k + 2 * m - j];
      const bool before_start = seen_below + m < input_start_[level + 1];
      out[m] = before_start ? 0.0 : std::numbers::sqrt2 * sum;
    }
    std::copy(ext.end() - static_cast<std::ptrdiff_t>(2 * k), ext.end(), hist.begin());
  }
  seen_ += x.size();
}

void add_interpolated(std::span<const double> taps, std::span<std::complex<double>> history,
                      std::span<const std::complex<double>> below, std::size_t seen, std::size_t output_start,
                      std::span<std::complex<double>> here) {
  const std::size_t k = taps.size() / 2;
  AS_ASSERT(history.size() == k + 1 && 2 * below.size() == here.size());
  // e: the last K + 1 samples from below, then this chunk's; zero-stuffed index 2q ↔ e[q].
  std::vector<std::complex<double>> e(history.begin(), history.end());
  e.insert(e.end(), below.begin(), below.end());
  const auto read = [&](std::size_t q, double& re, double& im) {
    re = e[q].real();
    im = e[q].imag();
  };
  for (std::size_t i = 0; i < here.size(); ++i) {
    if (seen + i < output_start) continue;
    double re = 0, im = 0;
    multirate_upsample_rule::interpolate(taps.data(), k, i, read, re, im);
    here[i] = {multirate_upsample_rule::add(here[i].real(), re), multirate_upsample_rule::add(here[i].imag(), im)};
  }
  std::copy(e.end() - static_cast<std::ptrdiff_t>(k + 1), e.end(), history.begin());
}

MultirateStream::MultirateStream(const SpiirBank& bank, const BackendMaker& make)
    : layout_(bank), decimator_(layout_), backends_(layout_.levels.size()), up_history_(layout_.levels.size() - 1) {
  for (std::size_t level = 0; level < layout_.levels.size(); ++level)
    if (const auto& r = layout_.levels[level].bank) backends_[level] = make(*r);
  reset();
}

std::string MultirateStream::describe() const {
  std::string first;
  for (const auto& b : backends_)
    if (b) {
      first = b->describe();
      break;
    }
  return first +
         format_text(", %zu rates (latency %zu samples), levels summed on the host", layout_.n_rates, layout_.latency);
}

void MultirateStream::reset() {
  for (auto& b : backends_)
    if (b) b->reset();
  decimator_.reset();
  for (auto& h : up_history_) h.assign(layout_.n_templates * (layout_.half_length + 1), 0.0);
}

void MultirateStream::run(std::span<const double> x, std::span<std::complex<double>> z) {
  AS_EXPECTS(x.size() % chunk_multiple() == 0, UsageError,
             "a multi-rate chunk must be a multiple of " + std::to_string(chunk_multiple()) + " samples");
  const std::size_t k = layout_.half_length;
  const std::size_t nt = layout_.n_templates;
  const std::size_t seen = decimator_.seen();
  decimator_.next(x);
  // From the lowest level up: filter, add the causal interpolation of what came from below.
  std::vector<std::complex<double>> carried;
  for (int level = layout_.lowest; level >= 0; --level) {
    const auto ul = static_cast<std::size_t>(level);
    const auto& in = decimator_.inputs()[ul];
    const std::size_t n = in.size();
    std::vector<std::complex<double>> here(nt * n);
    if (backends_[ul]) backends_[ul]->filter(in, here);
    if (!carried.empty()) {
      const std::size_t n_below = n / 2;
      for (std::size_t t = 0; t < nt; ++t)
        add_interpolated(layout_.taps, std::span(up_history_[ul]).subspan(t * (k + 1), k + 1),
                         std::span<const std::complex<double>>(carried).subspan(t * n_below, n_below), seen >> level,
                         layout_.levels[ul].output_start, std::span(here).subspan(t * n, n));
    }
    carried = std::move(here);
  }
  std::copy(carried.begin(), carried.end(), z.begin());
}

void MultirateStream::run_max(std::span<const double> x, std::span<SampleMax> best) {
  summed_.resize(layout_.n_templates * x.size());
  run(x, summed_);
  sample_max(summed_, layout_.n_templates, x.size(), best);
}

void MultirateStream::copy_rows(std::span<const std::size_t> rows, std::size_t n, std::span<std::complex<double>> out) {
  for (std::size_t r = 0; r < rows.size(); ++r)
    std::copy_n(summed_.begin() + static_cast<std::ptrdiff_t>(rows[r] * n), n,
                out.begin() + static_cast<std::ptrdiff_t>(r * n));
}

}  // namespace astrosweep::spiir
