#include "spiir_spool.hpp"

#include <cstring>

#include "core/error.hpp"

namespace astrosweep::spiir {

namespace {

// The layout spiir's spool has had since it was written (a resumed run reads an older run's
// files): magic, unit, payload size, the hash as a u64; files attempt-A.rank-R.bin.
constexpr io::SpoolLayout layout{{'S', 'P', 'I', 'I', 'R', 'U', 'N', '1'}, 0, io::SpoolHash::binary, ".bin"};
// A sample in the payload: its index, template and z.
constexpr std::size_t sample_bytes = 8 + 4 + 8 + 8;

template <class T>
void put(std::string& out, T value) {
  char b[sizeof(T)];
  std::memcpy(b, &value, sizeof(T));
  out.append(b, sizeof(T));
}

template <class T>
T get(const std::string& in, std::size_t& at) {
  T value;
  std::memcpy(&value, in.data() + at, sizeof(T));
  at += sizeof(T);
  return value;
}

// The samples of a record, or false when it does not hold `n_detectors` detectors' whole lists.
bool decode(const std::string& payload, std::size_t n_detectors, UnitSamples& samples) {
  std::size_t at = 0;
  if (payload.size() < 8 || get<std::uint64_t>(payload, at) != n_detectors) return false;
  for (std::size_t d = 0; d < n_detectors; ++d) {
    if (payload.size() - at < 8) return false;
    const auto n = get<std::uint64_t>(payload, at);
    if ((payload.size() - at) / sample_bytes < n) return false;
    auto& list = samples.emplace_back();
    for (std::uint64_t i = 0; i < n; ++i) {
      SampleBest s;
      s.sample = get<std::int64_t>(payload, at);
      s.template_index = get<std::int32_t>(payload, at);
      const auto re = get<double>(payload, at);
      const auto im = get<double>(payload, at);
      s.z = {re, im};
      list.push_back(s);
    }
  }
  return true;
}

}  // namespace

SpiirSpoolWriter::SpiirSpoolWriter(const std::string& directory, int attempt, int rank)
    : writer_(directory, layout, attempt, rank) {}

void SpiirSpoolWriter::append(std::uint64_t unit, const UnitSamples& samples) {
  std::string payload;
  put<std::uint64_t>(payload, samples.size());
  for (const auto& d : samples) {
    put<std::uint64_t>(payload, d.size());
    for (const auto& s : d) {
      put(payload, s.sample);
      put(payload, s.template_index);
      put(payload, s.z.real());
      put(payload, s.z.imag());
    }
  }
  writer_.append(unit, {}, payload);
}

SpiirSpoolContents read_spiir_spool(const std::string& directory, std::size_t n_detectors) {
  io::SpoolRecords found = io::read_spool(directory, layout);
  SpiirSpoolContents contents;
  contents.notes = std::move(found.notes);
  for (auto& r : found.records) {
    UnitSamples samples;
    AS_EXPECTS(decode(r.payload, n_detectors, samples), InputError,
               "'" + r.file + "': the record of unit " + std::to_string(r.key) + " does not hold " +
                   std::to_string(n_detectors) + " detectors' samples (a spool of another run or version)",
               "start over with --overwrite");
    std::string().swap(r.payload);  // one copy of the samples at a time
    contents.units[r.key] = std::move(samples);
  }
  return contents;
}

}  // namespace astrosweep::spiir
