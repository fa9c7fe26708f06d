#pragma once
// The seam between the spiir job and its filtering backends (docs/architecture.md): a backend is
// made for one rate's bank (today the single-rate bank, every filter at the top rate) and fed one
// detector's whitened strain chunk after chunk; it returns every template's complex SNR (spec §2,
// §7), or per sample only the best template (filter_max: what the first pass keeps, so that a
// GPU's SNRs need not come down), its states carried from chunk to chunk as one continuous run.
// The CPU backend runs the recurrence in float (as a GPU would) or double, OpenMP over templates.
// Plain C++: no device code.

#include <complex>
#include <memory>
#include <optional>
#include <span>
#include <string>

#include "core/backend.hpp"
#include "core/error.hpp"
#include "sample_max.hpp"
#include "spiir_bank.hpp"

namespace astrosweep::spiir {

class SnrHistory;  // snr_history.hpp

/// The arithmetic of the recurrence (states, coefficients, sums).
enum class Precision { fp32, fp64 };

class SpiirBackend {
 public:
  virtual ~SpiirBackend() = default;
  [[nodiscard]] virtual std::string describe() const = 0;
  [[nodiscard]] virtual std::size_t n_templates() const = 0;
  /// Filters the next `x.size()` samples; z is template-major, n_templates × x.size().
  void filter(std::span<const double> x, std::span<std::complex<double>> z) {
    AS_EXPECTS(z.size() == n_templates() * x.size(), UsageError, "the SNR buffer does not fit the chunk");
    kept_samples_.reset();
    run(x, z);
  }
  /// Filters the next `x.size()` samples as filter() does and gives, per sample, the best template
  /// (sample_max.hpp's rule, bit for bit the plain loop over filter()'s SNRs); the SNRs stay where
  /// they were computed, for snr_rows, until the next call.
  void filter_max(std::span<const double> x, std::span<SampleMax> best) {
    AS_EXPECTS(best.size() == x.size(), UsageError, "the per-sample buffer does not fit the chunk");
    kept_samples_.reset();
    run_max(x, best);
    kept_samples_ = x.size();
  }
  /// The SNR of templates `rows` (any order, repeats allowed) over the chunk of the last
  /// filter_max, row-major: rows.size() × that chunk's samples.
  void snr_rows(std::span<const std::size_t> rows, std::span<std::complex<double>> out) {
    AS_EXPECTS(kept_samples_.has_value(), UsageError, "snr_rows reads the chunk of the last filter_max");
    AS_EXPECTS(out.size() == rows.size() * *kept_samples_, UsageError, "the SNR rows' buffer does not fit them");
    for (const std::size_t t : rows) AS_EXPECTS(t < n_templates(), UsageError, "snr_rows: no such template");
    copy_rows(rows, *kept_samples_, out);
  }
  /// Appends every template's SNR over the chunk of the last filter_max to `history` (its
  /// templates this backend's): on a CUDA backend (single- or multi-rate) into a CUDA history on
  /// the same device without leaving it, otherwise through snr_rows and SnrHistory::append; the
  /// history holds the same values either way, bit for bit.
  void append_snr(SnrHistory& history);
  /// Forgets the states and the input history: the next chunk starts a new run.
  virtual void reset() = 0;

 protected:
  virtual void run(std::span<const double> x, std::span<std::complex<double>> z) = 0;
  virtual void run_max(std::span<const double> x, std::span<SampleMax> best) = 0;
  /// Rows of the SNRs that run_max kept, its chunk of n samples; the rows are checked.
  virtual void copy_rows(std::span<const std::size_t> rows, std::size_t n, std::span<std::complex<double>> out) = 0;
  /// The kept chunk of n samples (checked) appended to `history`; this default takes every row
  /// down with copy_rows (snr_history.cpp).
  virtual void write_history(SnrHistory& history, std::size_t n);

 private:
  std::optional<std::size_t> kept_samples_;  ///< the last filter_max's chunk, while its SNRs are kept
};

/// The OpenMP backend over `bank` (copied), in `precision`, with options.threads threads.
std::unique_ptr<SpiirBackend> make_spiir_backend_cpu(const RateBank& bank, Precision precision,
                                                     const BackendOptions& options);

/// The backend a rank runs: --backend, or on auto the CUDA backend when the rank sees a GPU
/// (defined in the job library, which alone knows whether CUDA was built).
std::unique_ptr<SpiirBackend> make_spiir_backend(const RateBank& bank, Precision precision,
                                                 const BackendOptions& options);

}  // namespace astrosweep::spiir
