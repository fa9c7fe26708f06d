#pragma once
// The journal of a run's finished work units, kept beside its product (`<product>.journal`): what
// `--resume` skips. One process writes it (rank 0's work dispatcher). It is created whole (header
// written to a temporary file, fsync'd, renamed over any old journal), then gets one line per
// finished unit, appended and fsync'd only after the ranks that computed the unit made its rows
// durable. A torn last line (a kill in the middle of an append) fails its checksum: it is ignored,
// and cut off when the journal is continued. Why a side file: docs/reliability.md.
//
//   astrosweep-journal 1
//   <key> = <value>          the run's fingerprint: what its results depend on
//   ...
//   end-of-header
//   done <first> <count> <FNV-1a 64 of "<first> <count>", hex>     objects [first, first + count)

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "io/posix_file.hpp"

namespace astrosweep::io {

/// What a run's results depend on, as `key = value` pairs in a fixed order (values may hold any
/// text; keys no newline and no " = ").
using Fingerprint = std::vector<std::pair<std::string, std::string>>;

/// The value of `key` in `fingerprint`; empty when it has none.
std::optional<std::string> fingerprint_value(const Fingerprint& fingerprint, const std::string& key);

/// "key: <expected> here, <found> there" for every key that differs or is on one side only.
std::vector<std::string> fingerprint_differences(const Fingerprint& expected, const Fingerprint& found);

/// A finished unit: objects [first, first + count).
struct JournalEntry {
  std::uint64_t first = 0;
  std::uint64_t count = 0;
};

struct JournalContents {
  Fingerprint fingerprint;
  std::vector<JournalEntry> entries;
  std::uint64_t valid_bytes = 0;  ///< the header and the whole, checked entries before anything else
  bool torn_tail = false;         ///< bytes after valid_bytes (an append cut short)
};

/// `<product>.journal`.
std::string journal_path(const std::string& product);

/// Reads the journal at `path`: nullopt when there is none, or no whole journal header (not ours).
/// Throws InputError when it exists but cannot be read.
std::optional<JournalContents> read_journal(const std::string& path);

/// Removes the journal at `path` (absent is fine) and makes that durable; throws OutputError.
void remove_journal(const std::string& path);

class Journal {
 public:
  /// Creates the journal at `path` with `fingerprint` and no entries, atomically replacing an old
  /// one; throws OutputError.
  static Journal create(const std::string& path, const Fingerprint& fingerprint);
  /// Continues the journal at `path` after its first `valid_bytes` (from read_journal), cutting off
  /// a torn tail; throws OutputError.
  static Journal resume(const std::string& path, std::uint64_t valid_bytes);

  /// Appends one entry and returns once it is durable (fsync); throws OutputError.
  void append(const JournalEntry& entry);

 private:
  explicit Journal(PosixFile file) : file_(std::move(file)) {}
  PosixFile file_;
};

}  // namespace astrosweep::io
