#pragma once
// The spiir job's work units (spec §10, docs/spiir.md "Work units"): a block of consecutive
// templates × a range of output samples. A rank filters every detector through its block's
// sub-bank from a warm-up before the range (the longest template plus the multi-rate stream's
// latency, rounded to its chunk multiple; discarded), and keeps, per sample of the range whose
// best |z| over the block exceeds the threshold, that best template and its z. Rank 0 merges the
// units' samples (the per-sample maximum over the whole bank, ties to the lowest template, as
// chunk_peaks picks it) and selects the peaks chunk by chunk: the same peaks as one process
// filtering the whole bank, since a sample whose best |z| is at most the threshold can never be
// a peak.

#include <complex>
#include <cstdint>
#include <span>
#include <vector>

#include "sample_max.hpp"
#include "spiir_bank.hpp"

namespace astrosweep::spiir {

/// Samples are counted in the filter's output stream: output sample s is strain sample s − latency.
struct UnitGrid {
  std::size_t n_templates = 0;
  std::size_t templates_per_unit = 0;
  std::size_t unit_samples = 0;  ///< a multiple of the peak chunk (hence of the stream's chunk multiple)
  std::size_t n_stream = 0;      ///< output samples of a whole run
  [[nodiscard]] std::size_t n_blocks() const { return (n_templates + templates_per_unit - 1) / templates_per_unit; }
  [[nodiscard]] std::size_t n_ranges() const { return (n_stream + unit_samples - 1) / unit_samples; }
  [[nodiscard]] std::size_t n_units() const { return n_blocks() * n_ranges(); }
  /// Unit id = range × n_blocks + block: a range's blocks are handed out together.
  [[nodiscard]] std::size_t first_template(std::size_t unit) const { return unit % n_blocks() * templates_per_unit; }
  [[nodiscard]] std::size_t n_unit_templates(std::size_t unit) const;
  [[nodiscard]] std::size_t first_sample(std::size_t unit) const { return unit / n_blocks() * unit_samples; }
  [[nodiscard]] std::size_t n_unit_samples(std::size_t unit) const;
};

/// One sample's best template over a block (or, merged, over the bank).
struct SampleBest {
  std::int64_t sample = 0;  ///< output-stream sample
  std::int32_t template_index = 0;
  std::complex<double> z;
};

/// Samples (at the top rate) after which a filter started from zero holds the state of one that ran
/// from the start, to `tolerance` of what the earlier input put there: per filter its delay plus the
/// samples its pole |a1| takes to decay by `tolerance`, the largest over the bank. Longer than the
/// longest template, which spec §10 names: the slowest poles ring on after the template ends.
std::size_t settling_samples(const SpiirBank& bank, double tolerance);

/// Templates [first, first + count) of `bank`, every rate's filters and the norms with them.
SpiirBank template_block(const SpiirBank& bank, std::size_t first, std::size_t count);

/// Templates `rows` of `bank` in that order (repeats allowed), every rate's filters and the norms
/// with them: the sub-bank of a second-pass batch (coherent_second_pass.hpp).
SpiirBank template_rows(const SpiirBank& bank, std::span<const std::size_t> rows);

/// Appends, for the samples i of a filtered chunk whose `usable[i]` is true and best |z|² (best[i],
/// SpiirBackend::filter_max or sample_max) exceeds threshold², the best template
/// (`first_template` added) with `sample_offset` added to the sample.
void append_sample_best(std::span<const SampleMax> best, const std::vector<bool>& usable, double threshold,
                        std::int64_t sample_offset, std::size_t first_template, std::vector<SampleBest>& out);

/// The same from every template's SNR: samples [0, n) of template-major z of `n_templates` rows,
/// their best by sample_max (ties: the lowest template).
void append_sample_best(std::span<const std::complex<double>> z, std::size_t n_templates, std::size_t n,
                        const std::vector<bool>& usable, double threshold, std::int64_t sample_offset,
                        std::size_t first_template, std::vector<SampleBest>& out);

/// The peaks (chunk_peaks' rule) of the merged samples of one detector, chunk after chunk of
/// `chunk` output samples: per sample the best over the given entries (ties: the lowest template),
/// per chunk and template the largest of the samples it won (ties: the earliest), kept above the
/// threshold; in order of chunk, then template. `entries` is sorted here.
std::vector<SampleBest> merged_peaks(std::vector<SampleBest> entries, std::size_t chunk, double threshold);

}  // namespace astrosweep::spiir
