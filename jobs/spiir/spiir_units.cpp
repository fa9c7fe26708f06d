#include "spiir_units.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "core/error.hpp"

namespace astrosweep::spiir {

std::size_t UnitGrid::n_unit_templates(std::size_t unit) const {
  return std::min(templates_per_unit, n_templates - first_template(unit));
}

std::size_t UnitGrid::n_unit_samples(std::size_t unit) const {
  return std::min(unit_samples, n_stream - first_sample(unit));
}

std::size_t settling_samples(const SpiirBank& bank, double tolerance) {
  double longest = 0;
  for (const auto& r : bank.rates) {
    const double scale = bank.sample_rate_max / static_cast<double>(r.rate);
    for (std::size_t t = 0; t < r.n_templates; ++t)
      for (std::size_t l = 0; l < static_cast<std::size_t>(r.n_filters[t]); ++l) {
        const IirFilter f = r.filter(t, l);
        const double pole = std::abs(f.a1);
        const double decay = pole > 0 ? std::log(tolerance) / std::log(pole) : 0;
        longest = std::max(longest, (static_cast<double>(f.delay) + std::ceil(decay)) * scale);
      }
  }
  return static_cast<std::size_t>(std::ceil(longest));
}

SpiirBank template_block(const SpiirBank& bank, std::size_t first, std::size_t count) {
  AS_ASSERT(first + count <= bank.n_templates() && count > 0);
  std::vector<std::size_t> rows(count);
  for (std::size_t i = 0; i < count; ++i) rows[i] = first + i;
  return template_rows(bank, rows);
}

SpiirBank template_rows(const SpiirBank& bank, std::span<const std::size_t> rows) {
  AS_ASSERT(!rows.empty());
  for (const std::size_t t : rows) AS_ASSERT(t < bank.n_templates());
  // Row by row: each of a per-template array's rows (`width` entries) copied in the order asked.
  const auto pick = [&](const auto& from, std::size_t width, auto& to) {
    to.clear();
    to.reserve(rows.size() * width);
    for (const std::size_t t : rows)
      to.insert(to.end(), from.begin() + static_cast<std::ptrdiff_t>(t * width),
                from.begin() + static_cast<std::ptrdiff_t>((t + 1) * width));
  };
  // The attributes copied, the per-template arrays picked (not copied whole first: the second pass
  // makes a sub-bank per batch and detector, and a bank's filters run to hundreds of MB).
  SpiirBank out;
  out.sample_rate_max = bank.sample_rate_max;
  out.f_low = bank.f_low;
  out.iir = bank.iir;
  out.padding = bank.padding;
  out.approximant = bank.approximant;
  out.ifos = bank.ifos;
  out.psd = bank.psd;
  out.command_line = bank.command_line;
  out.autocorrelation_length = bank.autocorrelation_length;
  pick(bank.templates, 1, out.templates);
  for (const auto& [ifo, s] : bank.sigmasq) pick(s, 1, out.sigmasq[ifo]);
  for (const auto& [ifo, a] : bank.autocorrelation) pick(a, bank.autocorrelation_length, out.autocorrelation[ifo]);
  // Every rate stays (a rate where the rows have no filters keeps its place), so the multi-rate
  // stream's levels, latency and chunk multiple are the whole bank's.
  out.rates.resize(bank.rates.size());
  for (std::size_t r = 0; r < bank.rates.size(); ++r) {
    const RateBank& from = bank.rates[r];
    RateBank& to = out.rates[r];
    to.rate = from.rate;
    to.width = from.width;
    to.n_templates = rows.size();
    pick(from.a1, from.width, to.a1);
    pick(from.b0, from.width, to.b0);
    pick(from.delay, from.width, to.delay);
    pick(from.n_filters, 1, to.n_filters);
  }
  return out;
}

void append_sample_best(std::span<const SampleMax> best, const std::vector<bool>& usable, double threshold,
                        std::int64_t sample_offset, std::size_t first_template, std::vector<SampleBest>& out) {
  AS_ASSERT(usable.size() >= best.size());
  const double floor = threshold * threshold;
  for (std::size_t i = 0; i < best.size(); ++i)
    if (usable[i] && best[i].power > floor)
      out.push_back({sample_offset + static_cast<std::int64_t>(i),
                     static_cast<std::int32_t>(first_template + static_cast<std::size_t>(best[i].template_index)),
                     best[i].z});
}

void append_sample_best(std::span<const std::complex<double>> z, std::size_t n_templates, std::size_t n,
                        const std::vector<bool>& usable, double threshold, std::int64_t sample_offset,
                        std::size_t first_template, std::vector<SampleBest>& out) {
  AS_ASSERT(z.size() >= n_templates * n && usable.size() >= n);
  std::vector<SampleMax> best(n);
  sample_max(z, n_templates, n, best);
  append_sample_best(best, usable, threshold, sample_offset, first_template, out);
}

std::vector<SampleBest> merged_peaks(std::vector<SampleBest> entries, std::size_t chunk, double threshold) {
  std::sort(entries.begin(), entries.end(), [](const SampleBest& a, const SampleBest& b) {
    return a.sample != b.sample ? a.sample < b.sample : a.template_index < b.template_index;
  });
  std::vector<SampleBest> peaks;
  const double floor = threshold * threshold;
  const auto chunk_of = [&](std::int64_t s) { return s / static_cast<std::int64_t>(chunk); };
  // Per chunk: template -> (its largest won value, that sample's entry); std::map keeps template order.
  std::map<std::int32_t, std::pair<double, SampleBest>> won;
  const auto flush = [&] {
    for (const auto& [t, best] : won)
      if (best.first > floor) peaks.push_back(best.second);
    won.clear();
  };
  for (std::size_t i = 0; i < entries.size();) {
    // The sample's winner over every block: the largest |z|², the lowest template on a tie (sorted).
    std::size_t w = i, j = i;
    for (; j < entries.size() && entries[j].sample == entries[i].sample; ++j)
      if (std::norm(entries[j].z) > std::norm(entries[w].z)) w = j;
    if (i > 0 && chunk_of(entries[i].sample) != chunk_of(entries[i - 1].sample)) flush();
    const double p = std::norm(entries[w].z);
    auto [it, inserted] = won.try_emplace(entries[w].template_index, p, entries[w]);
    if (!inserted && p > it->second.first) it->second = {p, entries[w]};  // ties: the earliest sample
    i = j;
  }
  flush();
  return peaks;
}

}  // namespace astrosweep::spiir
