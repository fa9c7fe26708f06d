#include "snr_history.hpp"

#include <algorithm>
#include <vector>

#include "core/error.hpp"

namespace astrosweep::spiir {
namespace {

template <class Real>
class SnrHistoryHost final : public SnrHistory {
 public:
  SnrHistoryHost(std::size_t n_templates, std::size_t length, Precision precision)
      : SnrHistory(n_templates, length, precision), ring_(n_templates * length * 2, Real(0)) {}

 protected:
  void write(std::span<const std::complex<double>> z, std::size_t n) override {
    const std::int64_t at = written();
    for (std::size_t j = 0; j < n_templates(); ++j)
      for (std::size_t i = 0; i < n; ++i) {
        const std::size_t slot = ring_slot(j, at + static_cast<std::int64_t>(i), length());
        const std::complex<double> v = z[j * n + i];
        ring_[slot * 2] = static_cast<Real>(v.real());
        ring_[slot * 2 + 1] = static_cast<Real>(v.imag());
      }
  }
  void gather(std::span<const HistoryRead> reads, std::size_t n, std::span<std::complex<double>> out) const override {
    for (std::size_t r = 0; r < reads.size(); ++r)
      for (std::size_t i = 0; i < n; ++i) {
        const std::size_t slot = ring_slot(reads[r].row, reads[r].first + static_cast<std::int64_t>(i), length());
        out[r * n + i] = {static_cast<double>(ring_[slot * 2]), static_cast<double>(ring_[slot * 2 + 1])};
      }
  }

 private:
  std::vector<Real> ring_;
};

}  // namespace

SnrHistory::SnrHistory(std::size_t n_templates, std::size_t length, Precision precision)
    : n_templates_(n_templates), length_(length), precision_(precision) {
  AS_EXPECTS(length > 0 && (length & (length - 1)) == 0, UsageError,
             "an SNR history's length must be a power of two, not " + std::to_string(length));
}

void SnrHistory::check_chunk(std::size_t n) const {
  AS_EXPECTS(n <= length_, UsageError,
             "a chunk of " + std::to_string(n) + " samples does not fit an SNR history of " + std::to_string(length_));
}

void SnrHistory::append(std::span<const std::complex<double>> z, std::size_t n) {
  check_chunk(n);
  AS_EXPECTS(z.size() == n_templates_ * n, UsageError, "the chunk does not fit the SNR history's templates");
  if (n == 0) return;
  write(z, n);
  advance(n);
}

void SnrHistory::read(std::span<const HistoryRead> reads, std::size_t n, std::span<std::complex<double>> out) const {
  AS_EXPECTS(out.size() == reads.size() * n, UsageError, "the buffer does not fit the SNR history's reads");
  for (const HistoryRead& r : reads) {
    AS_EXPECTS(r.row < n_templates_, UsageError, "an SNR history read names a template that does not exist");
    AS_EXPECTS(holds(r.first, r.first + static_cast<std::int64_t>(n)), UsageError,
               "samples " + std::to_string(r.first) + " … " + std::to_string(r.first + static_cast<std::int64_t>(n)) +
                   " are not in the SNR history (it holds " + std::to_string(oldest()) + " … " +
                   std::to_string(written_) + ")");
  }
  if (reads.empty() || n == 0) return;
  gather(reads, n, out);
}

std::unique_ptr<SnrHistory> make_snr_history_host(std::size_t n_templates, std::size_t length, Precision precision) {
  if (precision == Precision::fp32) return std::make_unique<SnrHistoryHost<float>>(n_templates, length, precision);
  return std::make_unique<SnrHistoryHost<double>>(n_templates, length, precision);
}

std::size_t history_length_for(std::size_t samples) {
  std::size_t length = 1;
  while (length < samples) length *= 2;
  return length;
}

void SpiirBackend::append_snr(SnrHistory& history) {
  AS_EXPECTS(kept_samples_.has_value(), UsageError, "append_snr writes the chunk of the last filter_max");
  AS_EXPECTS(history.n_templates() == n_templates(), UsageError,
             "the SNR history holds " + std::to_string(history.n_templates()) + " templates, the backend " +
                 std::to_string(n_templates()));
  if (*kept_samples_ == 0) return;
  write_history(history, *kept_samples_);
}

// The default for every backend: the chunk's rows down (copy_rows), then appended on the host.
void SpiirBackend::write_history(SnrHistory& history, std::size_t n) {
  std::vector<std::size_t> every(n_templates());
  for (std::size_t t = 0; t < every.size(); ++t) every[t] = t;
  std::vector<std::complex<double>> z(every.size() * n);
  copy_rows(every, n, z);
  history.append(z, n);
}

}  // namespace astrosweep::spiir
