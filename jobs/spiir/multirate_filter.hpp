#pragma once
// Multi-rate filtering of a whole series (spec §4): the input halved level by level by a 2×
// decimator (Kaiser-windowed sinc half-band low-pass, gain √2 so the noise variance per sample
// stays 1), each level filtered by its rate's sub-bank, and the outputs interpolated 2× (same
// filter, amplitude preserving) and summed from the lowest rate up to the top. The FIRs are
// applied centred (zero phase), so no group delay needs compensating; this holds the whole series
// in memory. The streaming form (MultirateStream, and its CUDA twin in
// kernels/spiir/multirate_backend_cuda.cpp) uses causal FIRs and compensates their delays.

#include <complex>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
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

/// The shape of a multi-rate bank's stream (MultirateStream below), what its host and CUDA forms
/// share: the levels (level ℓ runs at the top rate over 2^ℓ), the half-band filter, the latency and
/// every level's filters with the delays that align the levels.
struct MultirateLayout {
  struct Level {
    std::optional<RateBank> bank;  ///< this rate's filters, delays lengthened; none: no filters here
    std::size_t input_start = 0;   ///< first input sample of this level that is not before the series
    std::size_t output_start = 0;  ///< first interpolated sample that is not before it
  };
  explicit MultirateLayout(const SpiirBank& bank);
  [[nodiscard]] std::size_t chunk_multiple() const { return std::size_t{1} << lowest; }
  std::size_t n_templates = 0;
  std::size_t n_rates = 0;      ///< levels with filters
  int lowest = 0;               ///< L, the lowest level
  std::size_t half_length = 0;  ///< K
  std::size_t latency = 0;      ///< 2K(2^L − 1) top-rate samples
  std::vector<double> taps;     ///< the half-band filter, 2K + 1 taps
  std::vector<Level> levels;    ///< 0 … L
};

/// The causal decimation of a stream's input, chunk by chunk (y[m] = √2 Σ_j h_j x[2m − j], level by
/// level, each level's last 2K samples carried): every level's input.
class MultirateDecimator {
 public:
  explicit MultirateDecimator(const MultirateLayout& layout);
  /// Top-rate samples before the next chunk.
  [[nodiscard]] std::size_t seen() const { return seen_; }
  /// Decimates the next chunk (a multiple of the layout's chunk_multiple()): inputs()[ℓ] holds its
  /// x.size() >> ℓ samples of level ℓ until the next call.
  void next(std::span<const double> x);
  [[nodiscard]] const std::vector<std::vector<double>>& inputs() const { return inputs_; }
  void reset();

 private:
  std::size_t half_length_;
  std::vector<double> taps_;
  std::vector<std::size_t> input_start_;
  std::vector<std::vector<double>> history_;  ///< per level above the lowest: its last 2K input samples
  std::vector<std::vector<double>> inputs_;
  std::size_t seen_ = 0;
};

/// A multi-rate bank's filtering (spec §4) behind SpiirBackend's contract at the top rate, late by
/// latency() samples: output sample n of the stream is multirate_filter's sample n − latency().
/// Chunks must be multiples of chunk_multiple() samples. filter_max and snr_rows read the levels'
/// sum, where it was made (the host, or the device for the CUDA form).
class MultirateBackend : public SpiirBackend {
 public:
  [[nodiscard]] virtual std::size_t latency() const = 0;
  [[nodiscard]] virtual std::size_t chunk_multiple() const = 0;
};

/// The streaming computation on the host, with causal FIRs: the decimator delays its output by K/2
/// samples of the lower rate, the interpolator by K of the higher one, so level ℓ's path is late
/// by 2K(2^ℓ − 1) top-rate samples; each level's filters are delayed further (their delays
/// lengthened) so that every level is late by latency() = 2K(2^L − 1), L the lowest level. Chunks
/// must be multiples of 2^L samples (chunk_multiple()); FIR and filter states are carried across
/// chunks. As in multirate_filter, the series starts at its first sample: the lower levels' samples
/// that would precede it (the centred FIRs' look-ahead) are zero, so the two agree from the first
/// sample. Each level is filtered by its backend (`make`: the OpenMP one, or any other, its SNRs
/// brought to the host), the levels interpolated and summed here (multirate_upsample_rule.hpp, the
/// CUDA form's twin) and filter_max's maximum taken by the plain loop.
class MultirateStream final : public MultirateBackend {
 public:
  MultirateStream(const SpiirBank& bank, const BackendMaker& make);
  [[nodiscard]] std::string describe() const override;
  [[nodiscard]] std::size_t latency() const override { return layout_.latency; }
  [[nodiscard]] std::size_t chunk_multiple() const override { return layout_.chunk_multiple(); }
  [[nodiscard]] std::size_t n_templates() const override { return layout_.n_templates; }
  void reset() override;

 protected:
  void run(std::span<const double> x, std::span<std::complex<double>> z) override;
  void run_max(std::span<const double> x, std::span<SampleMax> best) override;
  void copy_rows(std::span<const std::size_t> rows, std::size_t n, std::span<std::complex<double>> out) override;

 private:
  MultirateLayout layout_;
  MultirateDecimator decimator_;
  std::vector<std::unique_ptr<SpiirBackend>> backends_;  ///< per level; null: no filters at this rate
  /// Per level above the lowest, per template: the last K + 1 summed samples of the level below.
  std::vector<std::vector<std::complex<double>>> up_history_;
  std::vector<std::complex<double>> summed_;  ///< filter_max's SNRs, for snr_rows
};

/// Adds to `here` (a level's SNR, n samples of one template) the causal interpolation of `below`
/// (n / 2 samples of the level below, the sum of the levels under it) for its samples i with
/// seen + i ≥ output_start, as multirate_upsample_rule.hpp computes it; `history` (K + 1 samples)
/// holds the last K + 1 samples from below before this chunk and is moved on by this chunk's.
void add_interpolated(std::span<const double> taps, std::span<std::complex<double>> history,
                      std::span<const std::complex<double>> below, std::size_t seen, std::size_t output_start,
                      std::span<std::complex<double>> here);

/// The multi-rate backend a rank runs: --backend, or on auto the CUDA form (the levels filtered,
/// interpolated, summed and maximised on the device) when the rank sees a GPU; else MultirateStream
/// over OpenMP backends (defined in the job library, with make_spiir_backend).
std::unique_ptr<MultirateBackend> make_multirate_backend(const SpiirBank& bank, Precision precision,
                                                         const BackendOptions& options);

}  // namespace astrosweep::spiir
