#include "fdas_spool.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <type_traits>

#include "core/error.hpp"

namespace astrosweep::fdas {

namespace {

// The rows are written as their bytes: the spool is read back by the same build, on the same
// kind of machine, within one run's life (the magic names the layout's version).
static_assert(std::is_trivially_copyable_v<SeriesRow> && std::is_trivially_copyable_v<CandidateRow> &&
              std::is_trivially_copyable_v<HarmonicRow>);
// The layout of the committed spools (tests/data/spool): found_power took the row's padding.
static_assert(sizeof(CandidateRow) == 200);

// The layout fdas's spool has had since it was written (a resumed run reads an older run's files):
// magic, series, candidate count, harmonic count, payload size, the hash in hex.
constexpr io::SpoolLayout layout{{'A', 'S', 'F', 'D', 'S', 'P', '0', '1'}, 2, io::SpoolHash::hex, ""};

template <class T>
void append_bytes(std::string& out, const T* data, std::size_t n) {
  out.append(reinterpret_cast<const char*>(data), n * sizeof(T));
}

SeriesRecord decode(const io::SpoolRecord& r) {
  const std::uint64_t n_candidates = r.fields[0], n_harmonics = r.fields[1];
  // Sizes compared without a product that could wrap: the counts come from a file.
  const std::uint64_t rows_bytes = r.payload.size() - std::min<std::uint64_t>(r.payload.size(), sizeof(SeriesRow));
  const bool fits = r.payload.size() >= sizeof(SeriesRow) && n_candidates <= rows_bytes / sizeof(CandidateRow) &&
                    rows_bytes - n_candidates * sizeof(CandidateRow) == n_harmonics * sizeof(HarmonicRow);
  AS_EXPECTS(fits, InputError,
             "'" + r.file + "': the record of series " + std::to_string(r.key) +
                 " does not hold the rows its header counts (a spool of another version)",
             "start over with --overwrite");
  SeriesRecord out;
  const char* at = r.payload.data();
  std::memcpy(&out.series, at, sizeof out.series);
  at += sizeof(SeriesRow);
  // memcpy only where there are rows: an empty vector's data() may be null, which memcpy must
  // not be given even for 0 bytes (UBSan).
  out.candidates.resize(n_candidates);
  if (n_candidates > 0) std::memcpy(out.candidates.data(), at, n_candidates * sizeof(CandidateRow));
  at += n_candidates * sizeof(CandidateRow);
  out.harmonics.resize(n_harmonics);
  if (n_harmonics > 0) std::memcpy(out.harmonics.data(), at, n_harmonics * sizeof(HarmonicRow));
  return out;
}

}  // namespace

SpoolWriter::SpoolWriter(const std::string& directory, int attempt, int rank)
    : writer_(directory, layout, attempt, rank) {}

void SpoolWriter::append(const SeriesRecord& record) {
  std::string payload;
  append_bytes(payload, &record.series, 1);
  append_bytes(payload, record.candidates.data(), record.candidates.size());
  append_bytes(payload, record.harmonics.data(), record.harmonics.size());
  const std::array<std::uint64_t, 2> counts{record.candidates.size(), record.harmonics.size()};
  writer_.append(record.series.series, counts, payload);
}

SpoolContents read_spool(const std::string& directory) {
  io::SpoolRecords found = io::read_spool(directory, layout);
  SpoolContents out;
  out.notes = std::move(found.notes);
  std::map<std::uint64_t, int> attempt_of;
  for (auto& r : found.records) {
    SeriesRecord record = decode(r);
    std::string().swap(r.payload);  // one copy of the rows at a time
    auto [it, inserted] = attempt_of.try_emplace(r.key, r.attempt);
    if (inserted || r.attempt > it->second) {
      it->second = r.attempt;
      out.records.insert_or_assign(r.key, std::move(record));
    }
  }
  return out;
}

}  // namespace astrosweep::fdas
