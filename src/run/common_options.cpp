#include "run/common_options.hpp"

#include "core/error.hpp"

namespace astrosweep::run {

namespace po = boost::program_options;

po::options_description output_options(const std::string& output_help) {
  po::options_description d("Output");
  d.add_options()("output,o", po::value<std::string>(), output_help.c_str())("overwrite", po::bool_switch(),
                                                                             "replace existing outputs")(
      "resume", po::bool_switch(),
      "continue an interrupted run: compute only what its journal (OUTPUT.journal) does not record; start "
      "when there is no product, do nothing when it is complete (exit 0)")(
      "quiet,q", po::bool_switch(), "no result table and no per-rank summary (progress, warnings and errors stay)")(
      "progress-interval", po::value<double>()->default_value(10.0), "seconds between progress lines on stderr");
  return d;
}

po::options_description run_options(const MemoryBudgetUse& memory) {
  po::options_description d("Run");
  const std::string budget_help = "host memory a rank may use for " + memory.what + ", MiB (0: no limit)";
  d.add_options()("backend", po::value<std::string>()->default_value("auto"),
                  "auto (GPU when there is one), cpu, cuda")(
      "threads", po::value<int>()->default_value(0), "OpenMP threads per rank (0: OMP_NUM_THREADS or all cores)")(
      "memory-budget-mb", po::value<double>()->default_value(memory.default_mb), budget_help.c_str())(
      "gpu-memory-mb", po::value<double>()->default_value(0),
      "GPU memory per rank, MiB (0: its share of the free memory of its GPU)");
  return d;
}

CommonOptions read_common_options(const po::variables_map& vm) {
  CommonOptions o;
  if (vm.count("output")) o.output = vm["output"].as<std::string>();
  o.overwrite = vm["overwrite"].as<bool>();
  o.resume = vm["resume"].as<bool>();
  AS_EXPECTS(!(o.resume && o.overwrite), UsageError, "--resume and --overwrite contradict each other",
             "--resume continues the existing product, --overwrite replaces it: pass one (to start over under a "
             "script that always passes --resume, remove the product and its .journal)");
  o.quiet = vm["quiet"].as<bool>();
  o.progress_interval = vm["progress-interval"].as<double>();
  AS_EXPECTS(o.progress_interval >= 0, UsageError, "--progress-interval must be >= 0");
  o.backend.kind = parse_backend(vm["backend"].as<std::string>());
  o.backend.threads = vm["threads"].as<int>();
  AS_EXPECTS(o.backend.threads >= 0, UsageError, "--threads must be >= 0");
  const double budget = vm["memory-budget-mb"].as<double>();
  AS_EXPECTS(budget >= 0, UsageError, "--memory-budget-mb must be >= 0 (0: no limit)");
  o.backend.host_memory_budget = static_cast<std::uint64_t>(budget * 1024 * 1024);
  const double gpu_budget = vm["gpu-memory-mb"].as<double>();
  AS_EXPECTS(gpu_budget >= 0, UsageError, "--gpu-memory-mb must be >= 0");
  o.backend.device_memory_budget = static_cast<std::uint64_t>(gpu_budget * 1024 * 1024);
  return o;
}

}  // namespace astrosweep::run
