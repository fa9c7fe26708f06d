#pragma once
// Multi-rate filtering of a whole series (spec §4): the input halved level by level by a 2×
// decimator (Kaiser-windowed sinc half-band low-pass, gain √2 so the noise variance per sample
// stays 1), each level filtered by its rate's sub-bank, and the outputs interpolated 2× (same
// filter, amplitude preserving) and summed from the lowest rate up to the top. The FIRs are
// applied centred (zero phase), so no group delay needs compensating; this holds the whole series
// in memory: a streaming form with causal FIRs and compensated delays is still to come.

#include <complex>
#include <functional>
#include <memory>
#include <span>
#include <vector>

#include "spiir_backend.hpp"
#include "spiir_bank.hpp"

namespace astrosweep::spiir {

/// Half-band low-pass taps h[−K … K] (cutoff a quarter of the input rate, DC gain 1):
/// h[k] = ½ sinc(k/2) · Kaiser(β).
std::vector<double> halfband_taps(int half_length = 32, double beta = 8.0);

/// Low-pass and keep every second sample (n' ↔ 2n'), times √2: ⌈x.size()/2⌉ samples.
std::vector<double> decimate2(std::span<const double> x, const std::vector<double>& taps);

/// The half-band filter's K for a bank whose lowest rate is level L: 32, or 2^L when larger, so
/// that every level's delay is a whole number of its samples.
int halfband_half_length(int lowest_level);

/// Zero-stuff to n_out samples (z[n'] at 2n') and low-pass with gain 2: amplitude preserving.
std::vector<std::complex<double>> interpolate2(std::span<const std::complex<double>> z, std::size_t n_out,
                                               const std::vector<double>& taps);

using BackendMaker = std::function<std::unique_ptr<SpiirBackend>(const RateBank&)>;

/// Every template's SNR at the top rate, template-major (n_templates × x.size()), for a bank of
/// any number of rates; `make` gives each rate's backend.
std::vector<std::complex<double>> multirate_filter(const SpiirBank& bank, std::span<const double> x,
                                                   const BackendMaker& make);

/// The same computation chunk by chunk, with causal FIRs: the decimator delays its output by K/2
/// samples of the lower rate, the interpolator by K of the higher one, so level ℓ's path is late
/// by 2K(2^ℓ − 1) top-rate samples; each level's filters are delayed further (their delays
/// lengthened) so that every level is late by latency() = 2K(2^L − 1), L the lowest level. Output
/// sample n of the stream is multirate_filter's sample n − latency(). Chunks must be multiples of
/// 2^L samples (chunk_multiple()); FIR and filter states are carried across chunks. As in
/// multirate_filter, the series starts at its first sample: the lower levels' samples that would
/// precede it (the centred FIRs' look-ahead) are zero, so the two agree from the first sample.
class MultirateStream {
 public:
  MultirateStream(const SpiirBank& bank, const BackendMaker& make);
  [[nodiscard]] std::size_t latency() const { return latency_; }
  [[nodiscard]] std::size_t chunk_multiple() const { return std::size_t{1} << lowest_; }
  [[nodiscard]] std::size_t n_templates() const { return n_templates_; }
  /// Filters the next x.size() samples into z (template-major, n_templates × x.size()).
  void filter(std::span<const double> x, std::span<std::complex<double>> z);
  /// The same, keeping per sample the best template (sample_max.hpp): the levels are summed on the
  /// host, so the maximum is taken there too, by the plain loop.
  void filter_max(std::span<const double> x, std::span<SampleMax> best);

 private:
  struct Level {
    std::unique_ptr<SpiirBackend> backend;         // null: no filters at this rate
    std::vector<double> input_history;             // the last 2K input samples of this level
    std::vector<std::complex<double>> up_history;  // per template: the last K + 1 samples from below
    std::size_t seen = 0;                          // samples of this level so far
    std::size_t input_start = 0;                   // first input sample that is not before the series
    std::size_t output_start = 0;                  // first interpolated sample that is not before it
  };
  std::size_t n_templates_ = 0;
  int lowest_ = 0;
  std::size_t latency_ = 0;
  std::vector<double> taps_;
  std::vector<Level> levels_;
  std::vector<std::complex<double>> summed_;  // filter_max's SNRs
};

}  // namespace astrosweep::spiir
