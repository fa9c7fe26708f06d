#include "io/resume_point.hpp"

#include <sys/stat.h>

#include <ctime>
#include <filesystem>
#include <set>
#include <sstream>

#include "core/error.hpp"

namespace astrosweep::io {

namespace {

constexpr const char* kInputFileKey = "input_file ";  // with_input_files: "input_file 3"

std::string joined(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& l : lines) out += "\n    " + l;
  return out;
}

/// "2026-11-21 14:03:12.123456789 UTC".
std::string utc_text(const timespec& t) {
  std::tm utc{};
  char seconds[32] = {};
  if (::gmtime_r(&t.tv_sec, &utc) == nullptr || std::strftime(seconds, sizeof seconds, "%Y-%m-%d %H:%M:%S", &utc) == 0)
    return std::to_string(t.tv_sec) + " s since 1970";
  char nanoseconds[16];
  std::snprintf(nanoseconds, sizeof nanoseconds, ".%09ld", static_cast<long>(t.tv_nsec));
  return std::string(seconds) + nanoseconds + " UTC";
}

struct InputFile {
  std::string path, bytes, modified;
};
InputFile input_file(const std::string& value) {  // with_input_files' value: path, size, time, a line each
  InputFile f;
  std::istringstream lines(value);
  std::getline(lines, f.path);
  std::getline(lines, f.bytes);
  std::getline(lines, f.modified);
  return f;
}

/// The journal's fingerprint differences, an input file's as "input 'PATH' changed: ...".
std::vector<std::string> journal_differences(const Fingerprint& expected, const Fingerprint& found) {
  std::vector<std::string> out;
  for (const auto& line : fingerprint_differences(expected, found)) {
    if (line.rfind(kInputFileKey, 0) != 0) {
      out.push_back(line);
      continue;
    }
    const std::string key = line.substr(0, line.find(": "));
    const auto now = fingerprint_value(expected, key);
    const auto before = fingerprint_value(found, key);
    if (!now || !before) {  // the input lists differ: the product's fingerprint says how
      const InputFile f = input_file(now ? *now : *before);
      out.push_back("input '" + f.path + "': " +
                    (now ? "not an input of the interrupted run" : "an input of the interrupted run, not of this one"));
      continue;
    }
    const InputFile a = input_file(*now);
    const InputFile b = input_file(*before);
    std::string what;
    if (a.path != b.path) what = "was '" + b.path + "' in the interrupted run";
    if (a.bytes != b.bytes) what += (what.empty() ? "" : "; ") + b.bytes + " bytes before, " + a.bytes + " now";
    if (a.modified != b.modified)
      what += (what.empty() ? "" : "; ") + std::string("modified ") + b.modified + " before, " + a.modified + " now";
    out.push_back("input '" + a.path + "' changed: " + what);
  }
  return out;
}

}  // namespace

Fingerprint with_input_files(Fingerprint fingerprint, const std::string& paths) {
  std::istringstream lines(paths);
  std::set<std::string> seen;
  std::string path;
  std::size_t n = 0;
  while (std::getline(lines, path)) {
    if (path.empty() || !seen.insert(path).second) continue;
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) continue;  // listed a moment ago: only a race removes it
    fingerprint.emplace_back(kInputFileKey + std::to_string(n++),
                             path + "\n" + std::to_string(st.st_size) + "\n" + utc_text(st.st_mtim));
  }
  return fingerprint;
}

ResumePoint find_resume_point(const std::string& product, const std::string& job, const std::string& entries,
                              const std::function<std::optional<ExistingProduct>(const std::string&)>& inspect,
                              const Fingerprint& product_fingerprint, const Fingerprint& journal_fingerprint) {
  ResumePoint p;
  const std::string journal_file = journal_path(product);
  std::error_code ec;
  if (!std::filesystem::exists(product, ec)) {
    p.note = "no product '" + product + "' yet: starting";
    return p;
  }
  const auto existing = inspect(product);
  auto journal = read_journal(journal_file);
  if (!existing) {
    // A product whose journal exists is ours, killed while HDF5 wrote its metadata (creating it or
    // marking it complete): nothing in it can be trusted, but it may be replaced. Anything else is
    // somebody else's file.
    AS_EXPECTS(journal.has_value(), OutputError,
               "output '" + product + "' exists and is not a readable astrosweep " + job + " product",
               "--resume continues only a " + job + " product; choose another --output or remove the file");
    p.note = "product '" + product + "' cannot be read (killed while it was being created or completed): starting over";
    return p;
  }
  const auto product_diff = fingerprint_differences(product_fingerprint, existing->fingerprint);
  auto refuse_other_run = [&] {
    throw UsageError("--resume: product '" + product + "' was made by another run:" + joined(product_diff),
                     "resume with the input, parameters and astrosweep version of that run, or choose another "
                     "--output (or remove the product and its journal to start over)");
  };
  if (existing->complete) {
    if (!product_diff.empty()) refuse_other_run();
    p.start = ResumePoint::Start::complete;
    return p;
  }
  if (!journal || journal->entries.empty()) {
    // Nothing finished to keep, so nothing is lost by starting over, and a file whose metadata may
    // not have been written whole (a run killed while creating it) is not trusted.
    p.note = "product '" + product + "' is incomplete and its journal records no " + entries + ": starting over";
    return p;
  }
  if (!product_diff.empty()) refuse_other_run();
  if (const auto diff = journal_differences(journal_fingerprint, journal->fingerprint); !diff.empty())
    throw UsageError("--resume: the journal '" + journal_file + "' was written for other input:" + joined(diff),
                     "the input changed since the interrupted run (or was touched); resume with the same input, or "
                     "remove the product and its journal to start over");
  p.start = ResumePoint::Start::resume;
  p.journal = std::move(journal);
  return p;
}

}  // namespace astrosweep::io
