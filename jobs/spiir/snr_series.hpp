#pragma once
// The optional /snr/<IFO> datasets of the spiir product (spec §10): every selected template's
// complex SNR per strain sample, float32 complex (h5py reads complex64), template x time, with the
// bank rows and the samples' GPS times as dimension scales. Written by the rank that filters each
// work unit, straight into storage allocated when the product is made (independent parallel-HDF5
// writes, as the period job's periodograms), so nothing of it passes through rank 0 or the spool.
#include <hdf5.h>
#include <mpi.h>

#include <complex>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "io/h5.hpp"
#include "io/posix_file.hpp"

namespace astrosweep::spiir {

/// --snr-templates FIRST:LAST (inclusive bank rows), or every template.
struct SnrSelection {
  bool enabled = false;
  std::size_t first = 0, count = 0;  ///< bank rows first … first + count − 1
};

/// Parses --snr-templates ("all", "K" or "FIRST:LAST", inclusive) for a bank of `n_templates`;
/// throws UsageError naming the option.
SnrSelection parse_snr_templates(const std::string& text, std::size_t n_templates);

/// --snr-gps START:END: the strain samples s whose GPS time gps_start + s / sample_rate lies in
/// [START, END), clipped to the strain's n_samples; throws UsageError naming the option when the
/// text is not two GPS times in order or the interval holds none of the strain's samples.
struct SnrWindow {
  std::size_t first = 0, count = 0;
};
SnrWindow parse_snr_gps(const std::string& text, std::int64_t gps_start_s, std::int32_t gps_start_ns,
                        double sample_rate, std::size_t n_samples);

struct SnrSeriesLayout {
  std::vector<std::string> ifos;
  SnrSelection templates;
  std::size_t first_sample = 0;  ///< the strain sample of column 0
  std::size_t n_samples = 0;     ///< columns: strain samples first_sample … first_sample + n_samples − 1
  double sample_rate = 0;
  std::int64_t gps_start_s = 0;
  std::int32_t gps_start_ns = 0;
};

/// The bytes /snr takes in the file (for the free-space check before it is made).
std::uint64_t snr_series_bytes(const SnrSeriesLayout& layout);

/// The product opened on every rank (MPI-IO) for the /snr writes of the work units. Opening and
/// making /snr where the product lacks it (a resumed run keeps the one it has) are collective; so
/// is close.
class SnrSeriesWriter {
 public:
  SnrSeriesWriter(const std::string& path, MPI_Comm comm, const SnrSeriesLayout& layout);
  /// Detector d's SNR of the templates of a work unit's block (bank rows block_first …,
  /// template-major, m output samples each, output sample `first`), restricted to the strain
  /// samples [lo, hi) (output sample minus `latency`) and to the selected templates. Independent.
  void write(std::size_t d, std::size_t block_first, std::size_t block_count, std::int64_t first, std::size_t m,
             std::size_t latency, std::int64_t lo, std::int64_t hi, std::span<const std::complex<double>> z);
  /// What this rank wrote reaches the disk (before its unit is journalled).
  void sync() { durable_.sync(); }
  /// Closes the file on every rank (collective), throwing OutputError where HDF5 fails.
  void close();

 private:
  SnrSeriesLayout layout_;
  h5::Id file_, complex_type_;
  std::vector<h5::Id> series_;
  io::PosixFile durable_;
  std::vector<std::complex<float>> rows_;
};

}  // namespace astrosweep::spiir
