#include "period_resume.hpp"

#include <sys/stat.h>

#include <filesystem>
#include <sstream>

#include "core/error.hpp"
#include "period_product.hpp"

namespace astrosweep::period {

namespace {

std::string joined(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& l : lines) out += "\n    " + l;
  return out;
}

}  // namespace

io::Fingerprint journal_fingerprint(const io::Fingerprint& product_fingerprint, const std::string& input_paths) {
  io::Fingerprint fp = product_fingerprint;
  std::istringstream paths(input_paths);
  std::string path, times;
  while (std::getline(paths, path)) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) continue;  // the catalog opened it: cannot happen but for a race
    if (!times.empty()) times += ' ';
    times.append(std::to_string(st.st_mtim.tv_sec)).append(".").append(std::to_string(st.st_mtim.tv_nsec));
  }
  fp.emplace_back("input_mtimes", times);
  return fp;
}

ResumeDecision decide_resume(const std::string& product, std::uint64_t n_objects,
                             const io::Fingerprint& product_fingerprint, const io::Fingerprint& journal_fingerprint) {
  ResumeDecision d;
  const std::string journal_file = io::journal_path(product);
  std::error_code ec;
  if (!std::filesystem::exists(product, ec)) {
    d.note = "no product '" + product + "' yet: starting";
    return d;
  }
  const auto existing = PeriodProduct::inspect(product);
  const auto journal = io::read_journal(journal_file);
  if (!existing) {
    // A product whose journal exists is ours, killed while HDF5 wrote its metadata (creating it or
    // marking it complete): nothing in it can be trusted, but it may be replaced. Anything else is
    // somebody else's file.
    AS_EXPECTS(journal.has_value(), OutputError,
               "output '" + product + "' exists and is not a readable astrosweep period product",
               "--resume continues only a period product; choose another --output or remove the file");
    d.note = "product '" + product + "' cannot be read (killed while it was being created or completed): starting over";
    return d;
  }
  const auto product_diff = io::fingerprint_differences(product_fingerprint, existing->fingerprint);
  auto refuse_other_run = [&] {
    throw UsageError("--resume: product '" + product + "' was made by another run:" + joined(product_diff),
                     "resume with the input, parameters and astrosweep version of that run, or choose another "
                     "--output (or remove the product and its journal to start over)");
  };
  if (existing->complete) {
    if (!product_diff.empty()) refuse_other_run();
    d.start = ResumeDecision::Start::complete;
    return d;
  }
  if (!journal || journal->entries.empty()) {
    // No finished unit to keep, so nothing is lost by starting over, and a file whose metadata
    // may not have been written whole (a run killed while creating it) is not trusted.
    d.note = "product '" + product + "' is incomplete and its journal records no finished unit: starting over";
    return d;
  }
  if (!product_diff.empty()) refuse_other_run();
  if (const auto diff = io::fingerprint_differences(journal_fingerprint, journal->fingerprint); !diff.empty())
    throw UsageError("--resume: the journal '" + journal_file + "' was written for other input:" + joined(diff),
                     "the input changed since the interrupted run (or was touched); resume with the same input, or "
                     "remove the product and its journal to start over");
  d.start = ResumeDecision::Start::resume;
  d.done.assign(n_objects, false);
  for (const auto& e : journal->entries) {
    AS_EXPECTS(e.first <= n_objects && e.count <= n_objects - e.first, OutputError,
               "the journal '" + journal_file + "' names objects beyond the product's " + std::to_string(n_objects),
               "remove the product and its journal to start over");
    for (std::uint64_t i = e.first; i < e.first + e.count; ++i) d.done[i] = true;
  }
  for (bool b : d.done) d.objects_done += b ? 1 : 0;
  d.units_done = journal->entries.size();
  d.journal_bytes = journal->valid_bytes;
  d.note = "resuming '" + product + "': " + std::to_string(d.objects_done) + " of " + std::to_string(n_objects) +
           " objects done in " + std::to_string(d.units_done) + " units recorded in '" + journal_file + "'" +
           (journal->torn_tail ? " (an unfinished last record is dropped)" : "");
  return d;
}

}  // namespace astrosweep::period
