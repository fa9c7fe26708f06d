#pragma once
// The options every job has, with one meaning each (docs/user-guide.md, "Options every job has"):
// --output --overwrite --resume --quiet --progress-interval and the backend's --backend --threads
// --memory-budget-mb --gpu-memory-mb. A job adds its own options beside them; the framework parses
// and checks these once.

#include <boost/program_options.hpp>
#include <string>

#include "core/backend.hpp"

namespace astrosweep::run {

struct CommonOptions {
  std::string output;  ///< the product (HDF5)
  bool overwrite = false;
  bool resume = false;            ///< continue an interrupted run (docs/reliability.md)
  bool quiet = false;             ///< no result table and no per-rank summary
  double progress_interval = 10;  ///< seconds between progress lines on stderr
  BackendOptions backend;         ///< node-local place filled in by the lifecycle
  std::string command_line;       ///< for the product's provenance
};

/// What --memory-budget-mb holds for a job, and its default in MiB (0: no limit).
struct MemoryBudgetUse {
  std::string what;
  double default_mb = 0;
};

/// The "Output" and "Run" groups of a job's --help: the common options. `output_help` says what
/// the job's product holds.
boost::program_options::options_description output_options(const std::string& output_help);
boost::program_options::options_description run_options(const MemoryBudgetUse& memory);

/// Reads and checks the common options (UsageError naming the option). `output` may be empty
/// here when the job takes it from elsewhere (scfind's parameter file).
CommonOptions read_common_options(const boost::program_options::variables_map& vm);

}  // namespace astrosweep::run
