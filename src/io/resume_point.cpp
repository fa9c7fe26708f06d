#include "io/resume_point.hpp"

#include <filesystem>

#include "core/error.hpp"

namespace astrosweep::io {

namespace {

std::string joined(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& l : lines) out += "\n    " + l;
  return out;
}

}  // namespace

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
  if (const auto diff = fingerprint_differences(journal_fingerprint, journal->fingerprint); !diff.empty())
    throw UsageError("--resume: the journal '" + journal_file + "' was written for other input:" + joined(diff),
                     "the input changed since the interrupted run (or was touched); resume with the same input, or "
                     "remove the product and its journal to start over");
  p.start = ResumePoint::Start::resume;
  p.journal = std::move(journal);
  return p;
}

}  // namespace astrosweep::io
