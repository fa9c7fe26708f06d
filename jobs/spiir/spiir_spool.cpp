#include "spiir_spool.hpp"

#include <fcntl.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "core/error.hpp"
#include "io/light_curves.hpp"

namespace astrosweep::spiir {

namespace fs = std::filesystem;

namespace {

constexpr char magic[8] = {'S', 'P', 'I', 'I', 'R', 'U', 'N', '1'};
constexpr std::size_t header_bytes = 8 + 3 * 8;
constexpr std::size_t entry_bytes = 8 + 4 + 8 + 8;

std::uint64_t fnv1a(const std::string& bytes) {
  io::Fnv1a64 h;
  h.update(bytes.data(), bytes.size());
  return h.value();
}

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

// attempt-A.rank-R.bin
int attempt_of(const fs::path& p) {
  const std::string name = p.filename().string();
  if (name.rfind("attempt-", 0) != 0) return 0;
  return std::atoi(name.c_str() + 8);
}

}  // namespace

std::string spiir_spool_directory(const std::string& product) { return product + ".spool"; }

int next_spiir_spool_attempt(const std::string& directory) {
  int highest = 0;
  std::error_code ec;
  if (fs::is_directory(directory, ec))
    for (const auto& e : fs::directory_iterator(directory)) highest = std::max(highest, attempt_of(e.path()));
  return highest + 1;
}

void remove_spiir_spool(const std::string& directory) {
  std::error_code ec;
  fs::remove_all(directory, ec);
  AS_EXPECTS(!ec, OutputError, "cannot remove the spool '" + directory + "': " + ec.message(),
             "remove it by hand and run again");
}

SpiirSpoolWriter::SpiirSpoolWriter(const std::string& directory, int attempt, int rank) {
  std::error_code ec;
  fs::create_directories(directory, ec);
  AS_EXPECTS(!ec, OutputError, "cannot create the spool '" + directory + "': " + ec.message(),
             "give an output in a directory you can write");
  path_ = (fs::path(directory) / ("attempt-" + std::to_string(attempt) + ".rank-" + std::to_string(rank) + ".bin"))
              .string();
  file_ = io::PosixFile(path_, O_WRONLY | O_CREAT | O_APPEND | O_TRUNC);
}

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
  std::string record(magic, sizeof magic);
  put<std::uint64_t>(record, unit);
  put<std::uint64_t>(record, payload.size());
  put<std::uint64_t>(record, fnv1a(payload));
  file_.write_all(record + payload);
}

SpiirSpoolContents read_spiir_spool(const std::string& directory, std::size_t n_detectors) {
  SpiirSpoolContents contents;
  std::error_code ec;
  if (!fs::is_directory(directory, ec)) return contents;
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(directory)) files.push_back(e.path());
  std::sort(files.begin(), files.end());
  for (const auto& path : files) {
    AS_EXPECTS(attempt_of(path) > 0, InputError, "'" + path.string() + "' in the spool is not a spool file",
               "the spool was changed by hand: start over with --overwrite");
    std::ifstream in(path, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::size_t at = 0;
    while (at < bytes.size()) {
      bool whole = bytes.size() - at >= header_bytes && std::memcmp(bytes.data() + at, magic, sizeof magic) == 0;
      std::size_t p = at + sizeof magic;
      const auto unit = whole ? get<std::uint64_t>(bytes, p) : 0;
      const auto size = whole ? get<std::uint64_t>(bytes, p) : 0;
      const auto hash = whole ? get<std::uint64_t>(bytes, p) : 0;
      whole = whole && bytes.size() - p >= size;
      const std::string payload = whole ? bytes.substr(p, size) : std::string();
      whole = whole && fnv1a(payload) == hash && payload.size() >= 8;
      std::size_t q = 0;
      UnitSamples samples;
      if (whole && get<std::uint64_t>(payload, q) == n_detectors) {
        for (std::size_t d = 0; whole && d < n_detectors; ++d) {
          whole = payload.size() - q >= 8;
          const auto n = whole ? get<std::uint64_t>(payload, q) : 0;
          whole = whole && (payload.size() - q) / entry_bytes >= n;
          auto& list = samples.emplace_back();
          for (std::uint64_t i = 0; whole && i < n; ++i) {
            SampleBest s;
            s.sample = get<std::int64_t>(payload, q);
            s.template_index = get<std::int32_t>(payload, q);
            const auto re = get<double>(payload, q);
            const auto im = get<double>(payload, q);
            s.z = {re, im};
            list.push_back(s);
          }
        }
      } else {
        whole = false;
      }
      if (!whole) {
        contents.notes.push_back("'" + path.string() + "': a damaged or cut record at byte " + std::to_string(at) +
                                 " and what follows are ignored");
        break;
      }
      contents.units[unit] = std::move(samples);
      at = p + size;
    }
  }
  return contents;
}

}  // namespace astrosweep::spiir
