#include "io/journal.hpp"

#include <fcntl.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/error.hpp"
#include "io/light_curves.hpp"

namespace astrosweep::io {

namespace {

constexpr const char* magic = "astrosweep-journal 1";
constexpr const char* end_of_header = "end-of-header";

// Values stay on one line: backslash and newline escaped.
std::string escape(const std::string& value) {
  std::string out;
  for (char c : value) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

std::string unescape(const std::string& text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\\' && i + 1 < text.size()) {
      out += text[i + 1] == 'n' ? '\n' : text[i + 1];
      ++i;
    } else {
      out += text[i];
    }
  }
  return out;
}

std::string checksum(std::uint64_t first, std::uint64_t count) {
  const std::string payload = std::to_string(first) + " " + std::to_string(count);
  Fnv1a64 h;
  h.update(payload.data(), payload.size());
  return h.hex();
}

std::string entry_line(const JournalEntry& e) {
  return "done " + std::to_string(e.first) + " " + std::to_string(e.count) + " " + checksum(e.first, e.count) + "\n";
}

// One entry line without its newline; nullopt unless whole and matching its checksum.
std::optional<JournalEntry> parse_entry(const std::string& line) {
  std::istringstream in(line);
  std::string word, sum, rest;
  JournalEntry e;
  if (!(in >> word >> e.first >> e.count >> sum) || word != "done" || (in >> rest)) return std::nullopt;
  if (sum != checksum(e.first, e.count)) return std::nullopt;
  return e;
}

}  // namespace

std::optional<std::string> fingerprint_value(const Fingerprint& fingerprint, const std::string& key) {
  for (const auto& [k, v] : fingerprint)
    if (k == key) return v;
  return std::nullopt;
}

std::vector<std::string> fingerprint_differences(const Fingerprint& expected, const Fingerprint& found) {
  std::vector<std::string> out;
  auto shown = [](const std::optional<std::string>& v) { return v ? "'" + *v + "'" : std::string("(none)"); };
  for (const auto& [key, value] : expected) {
    const auto other = fingerprint_value(found, key);
    if (other != value) out.push_back(key + ": " + shown(value) + " for this run, " + shown(other) + " before");
  }
  for (const auto& [key, value] : found)
    if (!fingerprint_value(expected, key)) out.push_back(key + ": (none) for this run, " + shown(value) + " before");
  return out;
}

std::string journal_path(const std::string& product) { return product + ".journal"; }

std::optional<JournalContents> read_journal(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return std::nullopt;
  std::ifstream in(path, std::ios::binary);
  AS_EXPECTS(in.good(), InputError, "cannot read the journal '" + path + "'", "check its permissions");
  std::stringstream buffer;
  buffer << in.rdbuf();
  const std::string text = buffer.str();

  JournalContents j;
  std::size_t pos = 0;
  auto next_line = [&](std::string& line) {  // false at a line without its newline: torn
    const auto end = text.find('\n', pos);
    if (end == std::string::npos) return false;
    line = text.substr(pos, end - pos);
    pos = end + 1;
    return true;
  };
  std::string line;
  if (!next_line(line) || line != magic) return std::nullopt;
  for (;;) {
    if (!next_line(line)) return std::nullopt;
    if (line == end_of_header) break;
    const auto eq = line.find(" = ");
    if (eq == std::string::npos) return std::nullopt;
    j.fingerprint.emplace_back(line.substr(0, eq), unescape(line.substr(eq + 3)));
  }
  j.valid_bytes = pos;
  while (next_line(line)) {
    const auto entry = parse_entry(line);
    if (!entry) break;  // a damaged entry ends what we trust; its units are simply done again
    j.entries.push_back(*entry);
    j.valid_bytes = pos;
  }
  j.torn_tail = j.valid_bytes < text.size();
  return j;
}

void remove_journal(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::remove(path, ec) && ec)
    throw OutputError("cannot remove the old journal '" + path + "': " + ec.message(),
                      "check the permissions of its directory");
  sync_directory_of(path);
}

Journal Journal::create(const std::string& path, const Fingerprint& fingerprint) {
  std::string header = std::string(magic) + "\n";
  for (const auto& [key, value] : fingerprint) {
    AS_ASSERT(key.find('\n') == std::string::npos && key.find(" = ") == std::string::npos);
    header += key + " = " + escape(value) + "\n";
  }
  header += std::string(end_of_header) + "\n";
  const std::string temporary = path + ".new";
  {
    PosixFile file(temporary, O_WRONLY | O_CREAT | O_TRUNC);
    file.write_all(header);
    file.sync();
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0)
    throw OutputError("cannot rename '" + temporary + "' to '" + path + "': " + std::strerror(errno),
                      "check the permissions of the product's directory");
  sync_directory_of(path);
  return Journal(PosixFile(path, O_WRONLY | O_APPEND));
}

Journal Journal::resume(const std::string& path, std::uint64_t valid_bytes) {
  PosixFile file(path, O_WRONLY | O_APPEND);
  file.truncate(valid_bytes);
  file.sync();
  return Journal(std::move(file));
}

void Journal::append(const JournalEntry& entry) {
  file_.write_all(entry_line(entry));
  file_.sync();
}

}  // namespace astrosweep::io
