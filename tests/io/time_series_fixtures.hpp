#pragma once
// Time-series fixtures written byte by byte, for the unit tests (tests/io), the bad-input suite
// (tests/cli/bad_inputs.cpp) and the fuzz seeds (tests/fuzz/make_fuzz_seeds.cpp): SIGPROC .tim
// headers with any keywords in any order (or damaged ones), and PRESTO .dat/.inf pairs in the
// layout PRESTO's prepdata writes.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace astrosweep::test {

/// A SIGPROC header assembled record by record: each string a little-endian int32 length and
/// its bytes; each value after its keyword.
class TimHeader {
 public:
  TimHeader& string(const std::string& text);  ///< a length-prefixed string alone
  TimHeader& raw(const std::string& bytes);    ///< bytes as they are (damage)
  TimHeader& int32(const std::string& keyword, std::int32_t value);
  TimHeader& float64(const std::string& keyword, double value);
  TimHeader& text(const std::string& keyword, const std::string& value);
  TimHeader& start() { return string("HEADER_START"); }
  TimHeader& end() { return string("HEADER_END"); }
  [[nodiscard]] const std::string& bytes() const noexcept { return bytes_; }

 private:
  std::string bytes_;
};

/// What a dedispersed time series' header holds (SIGPROC dedisperse writes these keywords).
struct TimSpec {
  std::string source_name = "J1234+5678";
  double tsamp = 64e-6;
  double tstart = 60123.456789;
  double refdm = 12.5;
  int nbits = 32;
  int nchans = 1;
  int data_type = 2;
  std::optional<std::int32_t> nsamples;  ///< written when set
};

/// HEADER_START, the spec's keywords, HEADER_END.
std::string tim_header(const TimSpec& spec);
/// The samples as nbits 32 (float32), 16 (int16) or 8 (uint8), rounded for the integers.
std::string tim_samples(const std::vector<float>& samples, int nbits);
/// A whole .tim: tim_header + tim_samples.
std::string tim_file(const TimSpec& spec, const std::vector<float>& samples);

struct PrestoSpec {
  std::uint64_t n_samples = 0;  ///< 0: the number of samples written
  double tsamp = 64e-6;
  double epoch = 60123.456789;
  std::optional<double> dm = 12.5;  ///< no DM line when unset (X-ray data)
  std::string object = "J1234+5678";
};

/// The .inf text PRESTO writes (padded labels, `label  =  value`, then the notes).
std::string presto_inf(const PrestoSpec& spec, const std::string& basename);
/// Writes BASE.dat (float32) and BASE.inf.
void write_presto(const std::string& base, PrestoSpec spec, const std::vector<float>& samples);

/// A deterministic noise series of `n` samples (mean 0, unit variance) plus `offset`.
std::vector<float> noise_series(std::size_t n, std::uint64_t seed, float offset = 0);

void write_file(const std::string& path, const std::string& bytes);

}  // namespace astrosweep::test
