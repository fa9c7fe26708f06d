#include "fdas_spool.hpp"

#include <fcntl.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <system_error>
#include <type_traits>

#include "core/error.hpp"
#include "io/light_curves.hpp"

namespace astrosweep::fdas {

namespace fs = std::filesystem;

namespace {

// The rows are written as their bytes: the spool is read back by the same build, on the same
// kind of machine, within one run's life (the magic names the layout's version).
static_assert(std::is_trivially_copyable_v<SeriesRow> && std::is_trivially_copyable_v<CandidateRow> &&
              std::is_trivially_copyable_v<HarmonicRow>);

constexpr std::array<char, 8> magic = {'A', 'S', 'F', 'D', 'S', 'P', '0', '1'};

struct RecordHeader {
  std::array<char, 8> magic;
  std::uint64_t series;
  std::uint64_t n_candidates;
  std::uint64_t n_harmonics;
  std::uint64_t payload_bytes;
  std::array<char, 16> hash;  ///< FNV-1a 64 of the payload, hex
};

std::array<char, 16> hash_of(const std::string& payload) {
  io::Fnv1a64 h;
  h.update(payload.data(), payload.size());
  const std::string hex = h.hex();
  std::array<char, 16> out{};
  std::copy_n(hex.begin(), std::min(hex.size(), out.size()), out.begin());
  return out;
}

template <class T>
void append_bytes(std::string& out, const T* data, std::size_t n) {
  out.append(reinterpret_cast<const char*>(data), n * sizeof(T));
}

bool parse_name(const std::string& name, int& attempt, int& rank) {
  char tail = 0;
  return std::sscanf(name.c_str(), "attempt-%d.rank-%d%c", &attempt, &rank, &tail) == 2 && attempt > 0 && rank >= 0;
}

// The records of one file, up to its first incomplete or damaged one.
void read_file(const fs::path& path, int attempt, std::map<std::uint64_t, std::pair<int, SeriesRecord>>& found,
               std::vector<std::string>& notes) {
  std::ifstream in(path, std::ios::binary);
  AS_EXPECTS(in.good(), InputError, "cannot read the spool file '" + path.string() + "'",
             "check the permissions of the product's .spool directory");
  for (std::uint64_t n_records = 0;; ++n_records) {
    RecordHeader h{};
    in.read(reinterpret_cast<char*>(&h), sizeof h);
    if (in.gcount() == 0) return;
    const bool header_ok = in.gcount() == sizeof h && h.magic == magic &&
                           h.payload_bytes == sizeof(SeriesRow) + h.n_candidates * sizeof(CandidateRow) +
                                                  h.n_harmonics * sizeof(HarmonicRow);
    std::string payload;
    if (header_ok) {
      payload.resize(h.payload_bytes);
      in.read(payload.data(), static_cast<std::streamsize>(payload.size()));
    }
    if (!header_ok || static_cast<std::uint64_t>(in.gcount()) != h.payload_bytes || hash_of(payload) != h.hash) {
      std::string note = path.string();
      note += ": " + std::to_string(n_records) +
              " whole records, then an unfinished one (dropped: its unit was not "
              "journalled)";
      notes.push_back(std::move(note));
      return;
    }
    SeriesRecord r;
    const char* at = payload.data();
    std::memcpy(&r.series, at, sizeof r.series);
    at += sizeof(SeriesRow);
    r.candidates.resize(h.n_candidates);
    std::memcpy(r.candidates.data(), at, h.n_candidates * sizeof(CandidateRow));
    at += h.n_candidates * sizeof(CandidateRow);
    r.harmonics.resize(h.n_harmonics);
    std::memcpy(r.harmonics.data(), at, h.n_harmonics * sizeof(HarmonicRow));
    auto [it, inserted] = found.try_emplace(h.series, attempt, SeriesRecord{});
    if (inserted || attempt > it->second.first) it->second = {attempt, std::move(r)};
  }
}

}  // namespace

std::string spool_directory(const std::string& product) { return product + ".spool"; }

int next_spool_attempt(const std::string& directory) {
  int next = 1;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(directory, ec)) {
    int attempt = 0, rank = 0;
    if (parse_name(entry.path().filename().string(), attempt, rank)) next = std::max(next, attempt + 1);
  }
  return next;
}

void remove_spool(const std::string& directory) {
  std::error_code ec;
  fs::remove_all(directory, ec);
  AS_EXPECTS(!ec, OutputError, "cannot remove the spool directory '" + directory + "': " + ec.message(),
             "remove it by hand");
}

SpoolWriter::SpoolWriter(const std::string& directory, int attempt, int rank) {
  std::error_code ec;
  fs::create_directories(directory, ec);
  AS_EXPECTS(!ec, OutputError, "cannot create the spool directory '" + directory + "': " + ec.message(),
             "the product's directory must be writable");
  char name[64];
  std::snprintf(name, sizeof name, "attempt-%04d.rank-%05d", attempt, rank);
  path_ = (fs::path(directory) / name).string();
  file_ = io::PosixFile(path_, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND);
  io::sync_directory_of(path_);  // the file itself survives a crash, not only its contents
}

void SpoolWriter::append(const SeriesRecord& record) {
  std::string payload;
  append_bytes(payload, &record.series, 1);
  append_bytes(payload, record.candidates.data(), record.candidates.size());
  append_bytes(payload, record.harmonics.data(), record.harmonics.size());
  const RecordHeader h{magic,          record.series.series, record.candidates.size(), record.harmonics.size(),
                       payload.size(), hash_of(payload)};
  std::string bytes;
  append_bytes(bytes, &h, 1);
  bytes += payload;
  file_.write_all(bytes);
}

void SpoolWriter::sync() { file_.sync(); }

SpoolContents read_spool(const std::string& directory) {
  std::map<std::uint64_t, std::pair<int, SeriesRecord>> found;
  SpoolContents out;
  std::error_code ec;
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(directory, ec)) files.push_back(entry.path());
  AS_EXPECTS(!ec, InputError, "cannot list the spool directory '" + directory + "': " + ec.message(),
             "it holds the candidates of the finished units; restore it or start over with --overwrite");
  std::sort(files.begin(), files.end());
  for (const auto& path : files) {
    int attempt = 0, rank = 0;
    AS_EXPECTS(parse_name(path.filename().string(), attempt, rank), InputError,
               "'" + path.string() + "' in the spool directory is not a spool file",
               "remove it: nothing but astrosweep's files belong there");
    read_file(path, attempt, found, out.notes);
  }
  for (auto& [series, entry] : found) out.records.emplace(series, std::move(entry.second));
  return out;
}

}  // namespace astrosweep::fdas
