#include "io/spool.hpp"

#include <fcntl.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <system_error>

#include "core/error.hpp"
#include "io/light_curves.hpp"

namespace astrosweep::io {

namespace fs = std::filesystem;

namespace {

struct SpoolName {
  int attempt = 0;
  int rank = 0;
  std::string suffix;  // a copy: the name parsed is often a temporary
};

// attempt-A.rank-R followed by anything (the suffix, checked by the caller).
std::optional<SpoolName> parse_name(const std::string& name) {
  SpoolName out;
  int used = 0;
  if (std::sscanf(name.c_str(), "attempt-%d.rank-%d%n", &out.attempt, &out.rank, &used) != 2) return std::nullopt;
  if (out.attempt <= 0 || out.rank < 0) return std::nullopt;
  out.suffix = name.substr(static_cast<std::size_t>(used));
  return out;
}

std::size_t hash_bytes(SpoolHash form) { return form == SpoolHash::hex ? 16 : 8; }

std::size_t header_bytes(const SpoolLayout& layout) {
  return layout.magic.size() + 8 * (1 + layout.header_fields + 1) + hash_bytes(layout.hash);
}

// The hash as it is stored.
std::string hash_field(SpoolHash form, std::string_view payload) {
  Fnv1a64 h;
  h.update(payload.data(), payload.size());
  if (form == SpoolHash::hex) return h.hex();
  const std::uint64_t value = h.value();
  return std::string(reinterpret_cast<const char*>(&value), sizeof value);
}

void put_u64(std::string& out, std::uint64_t value) { out.append(reinterpret_cast<const char*>(&value), sizeof value); }

std::uint64_t get_u64(const char*& at) {
  std::uint64_t value = 0;
  std::memcpy(&value, at, sizeof value);
  at += sizeof value;
  return value;
}

// The whole records of one file, up to its first cut or damaged one (noted).
void read_file(const fs::path& path, const SpoolName& name, const SpoolLayout& layout, SpoolRecords& out) {
  std::error_code ec;
  const std::uint64_t size = fs::file_size(path, ec);
  std::ifstream in(path, std::ios::binary);
  AS_EXPECTS(!ec && in.good(), InputError, "cannot read the spool file '" + path.string() + "'",
             "check the permissions of the product's .spool directory");
  const std::size_t n_header = header_bytes(layout);
  std::string header(n_header, '\0');
  std::uint64_t at = 0;
  for (std::uint64_t n_records = 0; at < size; ++n_records) {
    bool whole = size - at >= n_header && in.read(header.data(), static_cast<std::streamsize>(n_header)) &&
                 std::equal(layout.magic.begin(), layout.magic.end(), header.begin());
    SpoolRecord r;
    std::uint64_t payload_bytes = 0;
    if (whole) {
      const char* p = header.data() + layout.magic.size();
      r.key = get_u64(p);
      for (std::size_t i = 0; i < layout.header_fields; ++i) r.fields.push_back(get_u64(p));
      payload_bytes = get_u64(p);
      // Checked against what the file holds before anything is allocated: a damaged size may be huge.
      whole = payload_bytes <= size - at - n_header;
      if (whole) {
        r.payload.resize(payload_bytes);
        whole = static_cast<bool>(in.read(r.payload.data(), static_cast<std::streamsize>(payload_bytes))) &&
                hash_field(layout.hash, r.payload) == std::string_view(p, hash_bytes(layout.hash));
      }
    }
    if (!whole) {
      // (std::string("'") rather than "'" + …: GCC 12 warns a false -Wrestrict on literal + temporary.)
      out.notes.push_back(std::string("'") + path.string() + "': " + std::to_string(n_records) +
                          " whole records, then a cut or damaged one at byte " + std::to_string(at) +
                          " (dropped with what follows: its unit was not journalled)");
      return;
    }
    at += n_header + payload_bytes;
    r.attempt = name.attempt;
    r.rank = name.rank;
    r.file = path.string();
    out.records.push_back(std::move(r));
  }
}

}  // namespace

std::string spool_directory(const std::string& product) { return product + ".spool"; }

int next_spool_attempt(const std::string& directory) {
  int next = 1;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(directory, ec))
    if (const auto name = parse_name(entry.path().filename().string())) next = std::max(next, name->attempt + 1);
  return next;
}

void remove_spool(const std::string& directory) {
  std::error_code ec;
  fs::remove_all(directory, ec);
  AS_EXPECTS(!ec, OutputError, "cannot remove the spool directory '" + directory + "': " + ec.message(),
             "remove it by hand");
}

SpoolWriter::SpoolWriter(const std::string& directory, const SpoolLayout& layout, int attempt, int rank)
    : layout_(layout) {
  std::error_code ec;
  fs::create_directories(directory, ec);
  AS_EXPECTS(!ec, OutputError, "cannot create the spool directory '" + directory + "': " + ec.message(),
             "the product's directory must be writable");
  char name[64];
  std::snprintf(name, sizeof name, "attempt-%04d.rank-%05d", attempt, rank);
  path_ = (fs::path(directory) / (name + std::string(layout.file_suffix))).string();
  file_ = PosixFile(path_, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND);
  sync_directory_of(path_);  // the file itself survives a crash, not only its contents
}

void SpoolWriter::append(std::uint64_t key, std::span<const std::uint64_t> fields, std::string_view payload) {
  AS_ASSERT(fields.size() == layout_.header_fields);
  std::string bytes(layout_.magic.data(), layout_.magic.size());
  put_u64(bytes, key);
  for (const std::uint64_t f : fields) put_u64(bytes, f);
  put_u64(bytes, payload.size());
  bytes += hash_field(layout_.hash, payload);
  bytes += payload;
  file_.write_all(bytes);
}

void SpoolWriter::sync() { file_.sync(); }

SpoolRecords read_spool(const std::string& directory, const SpoolLayout& layout) {
  std::error_code ec;
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(directory, ec)) files.push_back(entry.path());
  AS_EXPECTS(!ec, InputError, "cannot list the spool directory '" + directory + "': " + ec.message(),
             "it holds the results of the finished units; restore it or start over with --overwrite");
  std::sort(files.begin(), files.end());
  SpoolRecords out;
  for (const auto& path : files) {
    const auto name = parse_name(path.filename().string());
    AS_EXPECTS(name && name->suffix == layout.file_suffix, InputError,
               "'" + path.string() + "' in the spool directory is not a spool file",
               "remove it: nothing but astrosweep's files belong there");
    read_file(path, *name, layout, out);
  }
  return out;
}

}  // namespace astrosweep::io
