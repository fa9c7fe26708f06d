#pragma once
// The SNR history of one detector for a streaming search (issue 13): a ring of the last `length`
// samples (a power of two) of every template's complex SNR, written a chunk at a time, read by
// the coherent stage's sky search and χ² where it lies. The host ring (make_snr_history_host) is
// the CPU path's and the tests' oracle; the CUDA ring (kernels/spiir/snr_history_cuda.hpp, made
// by make_snr_history where the backend resolves to CUDA) keeps the same layout in device memory,
// where the CUDA filtering backend writes its chunk (SpiirBackend::append_snr) and the CUDA sky
// search reads it, so that per chunk neither the SNRs nor the tasks' windows cross the bus.
//
// Layout (both rings): template-major rows of `length` samples, (re, im) side by side in the
// history's precision; absolute sample s (0 the first ever written) of template j at
// ring_slot(j, s, length). A sample is held from when it is written until `length` later ones
// are: [oldest(), written()).
#include <complex>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

#include "core/backend.hpp"
#include "snr_ring.hpp"
#include "spiir_backend.hpp"

namespace astrosweep::spiir {

/// A read of `n` consecutive samples of one template's history (SnrHistory::read).
struct HistoryRead {
  std::size_t row = 0;     ///< the template
  std::int64_t first = 0;  ///< the first sample, absolute
};

class SnrHistory {
 public:
  /// Throws UsageError unless `length` is a power of two.
  SnrHistory(std::size_t n_templates, std::size_t length, Precision precision);
  SnrHistory(const SnrHistory&) = delete;
  SnrHistory& operator=(const SnrHistory&) = delete;
  virtual ~SnrHistory() = default;

  [[nodiscard]] std::size_t n_templates() const { return n_templates_; }
  [[nodiscard]] std::size_t length() const { return length_; }
  [[nodiscard]] Precision precision() const { return precision_; }
  /// Samples written so far: the absolute index of the next one.
  [[nodiscard]] std::int64_t written() const { return written_; }
  /// The oldest sample still held.
  [[nodiscard]] std::int64_t oldest() const {
    return written_ > static_cast<std::int64_t>(length_) ? written_ - static_cast<std::int64_t>(length_) : 0;
  }
  /// Whether samples [first, end) are all held.
  [[nodiscard]] bool holds(std::int64_t first, std::int64_t end) const {
    return first >= oldest() && first <= end && end <= written_;
  }

  /// Appends the next `n` samples of every template, `z` template-major (n_templates × n), each
  /// value rounded to the history's precision; n ≤ length.
  void append(std::span<const std::complex<double>> z, std::size_t n);
  /// Samples [r.first, r.first + n) of each read, read-major, as the ring holds them (widened to
  /// double: exact). Throws UsageError for a template that does not exist or a sample not held.
  void read(std::span<const HistoryRead> reads, std::size_t n, std::span<std::complex<double>> out) const;

 protected:
  /// Writes the chunk at written() (checked), without advancing.
  virtual void write(std::span<const std::complex<double>> z, std::size_t n) = 0;
  /// The reads (checked) into `out`.
  virtual void gather(std::span<const HistoryRead> reads, std::size_t n, std::span<std::complex<double>> out) const = 0;
  /// Throws UsageError unless a chunk of `n` samples may be appended.
  void check_chunk(std::size_t n) const;
  /// Records that the next `n` samples were written (by append, or by a writer that has the
  /// ring's memory, such as the CUDA backend's copy on the device).
  void advance(std::size_t n) { written_ += static_cast<std::int64_t>(n); }

 private:
  std::size_t n_templates_, length_;
  Precision precision_;
  std::int64_t written_ = 0;
};

/// The host ring, in `precision` (float or double per value); its memory is taken at once
/// (n_templates × length × 2 values).
std::unique_ptr<SnrHistory> make_snr_history_host(std::size_t n_templates, std::size_t length, Precision precision);

/// The ring a rank's search keeps (spiir_backend_factory.cpp): the CUDA one where the backend
/// resolves to CUDA, on the device the CUDA backend and sky search of the same options use, else
/// the host one.
std::unique_ptr<SnrHistory> make_snr_history(std::size_t n_templates, std::size_t length, Precision precision,
                                             const BackendOptions& options);

/// The smallest power of two ≥ `samples` (≥ 1): a history's length for reads reaching that far.
std::size_t history_length_for(std::size_t samples);

}  // namespace astrosweep::spiir
