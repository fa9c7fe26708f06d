#include "scfind_resume.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <filesystem>

#include "core/error.hpp"
#include "scfind_product.hpp"

namespace astrosweep::scfind {

namespace {

std::string joined(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& l : lines) out += "\n    " + l;
  return out;
}

}  // namespace

io::Fingerprint scfind_journal_fingerprint(const io::Fingerprint& product_fingerprint, const std::string& input_file) {
  io::Fingerprint fp = product_fingerprint;
  struct stat st {};
  if (::stat(input_file.c_str(), &st) == 0) {
    fp.emplace_back("input_bytes", std::to_string(st.st_size));
    fp.emplace_back("input_mtime", std::to_string(st.st_mtim.tv_sec) + "." + std::to_string(st.st_mtim.tv_nsec));
  }
  return fp;
}

ScfindResume decide_scfind_resume(const std::string& product, std::uint64_t n_pairs,
                                  const io::Fingerprint& product_fingerprint,
                                  const io::Fingerprint& journal_fingerprint) {
  ScfindResume d;
  const std::string journal_file = io::journal_path(product);
  std::error_code ec;
  if (!std::filesystem::exists(product, ec)) {
    d.note = "no product '" + product + "' yet: starting";
    return d;
  }
  const auto existing = ScfindProduct::inspect(product);
  const auto journal = io::read_journal(journal_file);
  if (!existing) {
    // With a journal beside it the file is ours, killed while HDF5 wrote its metadata: replace it.
    AS_EXPECTS(journal.has_value(), OutputError,
               "output '" + product + "' exists and is not a readable astrosweep scfind product",
               "--resume continues only a scfind product; choose another --output or remove the file");
    d.note = "product '" + product + "' cannot be read (killed while it was being created or completed): starting over";
    return d;
  }
  const auto product_diff = io::fingerprint_differences(product_fingerprint, existing->fingerprint);
  if (!product_diff.empty())
    throw UsageError("--resume: product '" + product + "' was made by another run:" + joined(product_diff),
                     "resume with the input, parameters and astrosweep version of that run, or choose another "
                     "--output (or remove the product and its journal to start over)");
  if (existing->complete) {
    d.start = ScfindResume::Start::complete;
    return d;
  }
  if (!journal || journal->entries.empty()) {
    d.note = "product '" + product + "' is incomplete and its journal records no checkpoint: starting over";
    return d;
  }
  if (const auto diff = io::fingerprint_differences(journal_fingerprint, journal->fingerprint); !diff.empty())
    throw UsageError("--resume: the journal '" + journal_file + "' was written for other input:" + joined(diff),
                     "the input changed since the interrupted run (or was touched); resume with the same input, or "
                     "remove the product and its journal to start over");
  for (const auto& e : journal->entries) {
    AS_EXPECTS(e.first >= 1 && e.first <= n_pairs && e.count == 0, OutputError,
               "the journal '" + journal_file + "' records a checkpoint this run cannot have made",
               "remove the product and its journal to start over");
    d.pairs_done = std::max(d.pairs_done, e.first);
  }
  d.start = ScfindResume::Start::resume;
  d.journal_bytes = journal->valid_bytes;
  d.note = "resuming '" + product + "': " + std::to_string(d.pairs_done) + " of " + std::to_string(n_pairs) +
           " kernel pairs done, recorded in '" + journal_file + "'" +
           (journal->torn_tail ? " (an unfinished last record is dropped)" : "");
  return d;
}

}  // namespace astrosweep::scfind
