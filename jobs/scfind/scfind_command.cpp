#include "scfind_command.hpp"

#include <boost/program_options.hpp>
#include <cstdio>
#include <filesystem>
#include <map>
#include <sstream>
#include <type_traits>

#include "core/command_line.hpp"
#include "core/error.hpp"
#include "core/job.hpp"
#include "core/mpi.hpp"
#include "scfind_job.hpp"
#include "sofia_parameter_file.hpp"

namespace astrosweep::scfind {

namespace po = boost::program_options;

namespace {

po::options_description scfind_options() {
  po::options_description io("Input and output");
  io.add_options()("input,i", po::value<std::string>(),
                   "data cube: FITS (BITPIX 8/16/32/-32/-64, NAXIS 3 or 4 with NAXIS4 = 1) or HDF5 file[:/dataset]")(
      "output,o", po::value<std::string>(), "product (HDF5): raw mask and noise per kernel pair")(
      "fits-mask", po::value<std::string>(),
      "FITS raw mask (uint8, input header); default: the product's name with _mask-raw.fits")(
      "no-fits-mask", po::bool_switch(), "write no FITS mask")("overwrite", po::bool_switch(),
                                                               "replace existing outputs")(
      "resume", po::bool_switch(),
      "continue an interrupted run's product (start it when there is none; nothing to do when complete)")(
      "checkpoint-minutes", po::value<double>()->default_value(10),
      "make the mask durable at least this often, so a killed run resumes from there (0: after every pair)")(
      "par", po::value<std::string>(), "SoFiA-2 parameter file (its scfind.*, input.data, output.* keys)")(
      "quiet,q", po::bool_switch(), "only errors on stderr");
  po::options_description sc("Smooth and clip (SoFiA-2 names and defaults; these override --par)");
  sc.add_options()("scfind.kernelsXY", po::value<std::string>(), "spatial Gaussian FWHMs in pixels [0, 3, 6]")(
      "scfind.kernelsZ", po::value<std::string>(), "spectral boxcar widths in channels [0, 3, 7, 15]")(
      "scfind.threshold", po::value<double>(), "clip level in multiples of the noise [5.0]")(
      "scfind.replacement", po::value<double>(), "replacement of detected voxels in noise units; < 0: off [2.0]")(
      "scfind.statistic", po::value<std::string>(), "std, mad or gauss [mad]")(
      "scfind.fluxRange", po::value<std::string>(), "negative, positive or full [negative]");
  po::options_description run("Run");
  run.add_options()("backend", po::value<std::string>()->default_value("auto"),
                    "auto (GPU when there is one), cpu, cuda")(
      "threads", po::value<int>()->default_value(0), "OpenMP threads per rank (0: OMP_NUM_THREADS or all cores)")(
      "memory-budget-mb", po::value<double>()->default_value(0),
      "host memory a rank may use for its slabs, MiB (0: no limit)")(
      "gpu-memory-mb", po::value<double>()->default_value(0),
      "GPU memory per rank, MiB (0: its share of its GPU's free memory)")(
      "slabs-per-rank", po::value<int>()->default_value(0),
      "slabs each rank streams through its backend (0: the fewest that fit the memory budgets)")("help,h",
                                                                                                 "show this help");
  po::options_description all(
      "astrosweep scfind: SoFiA-2's smooth-and-clip source finder, raw mask identical to SoFiA-2");
  all.add(io).add(sc).add(run);
  return all;
}

double parse_number(const std::string& key, const std::string& text) {
  std::size_t used = 0;
  double value = 0;
  try {
    value = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  AS_EXPECTS(used > 0 && text.find_first_not_of(" \t\r", used) == std::string::npos, UsageError,
             key + ": '" + text + "' is not a number", "write a decimal number, e.g. 5 or 2.5e-3");
  return value;
}

template <class T>
std::vector<T> parse_list(const std::string& key, const std::string& text) {
  std::vector<T> out;
  std::string item;
  std::istringstream in(text);
  while (std::getline(in, item, ',')) {
    const double value = parse_number(key, item);
    if constexpr (std::is_integral_v<T>) {
      AS_EXPECTS(value >= 0 && value < 1e9 && value == static_cast<double>(static_cast<T>(value)), UsageError,
                 key + ": '" + item + "' is not a whole number of channels");
    }
    out.push_back(static_cast<T>(value));
  }
  return out;
}

bool parse_bool(const std::string& key, const std::string& text) {
  if (text == "true") return true;
  if (text == "false") return false;
  throw UsageError(key + ": '" + text + "' is not true or false", "write true or false");
}

ScfindOptions to_options(const po::variables_map& vm) {
  ScfindOptions o;
  std::map<std::string, std::string> values;  // SoFiA-2 keys: the parameter file, then the command line
  std::map<std::string, std::string> where;   // "FILE:LINE" of the values taken from the parameter file
  if (vm.count("par")) {
    const auto path = vm["par"].as<std::string>();
    const auto file = read_sofia_parameter_file(path);
    values = file.values;
    where = file.where;
    o.ignored_parameters = file.ignored;
  }
  for (const char* key : {"scfind.kernelsXY", "scfind.kernelsZ", "scfind.statistic", "scfind.fluxRange"})
    if (vm.count(key)) {
      values[key] = vm[key].as<std::string>();
      where.erase(key);
    }
  for (const char* key : {"scfind.threshold", "scfind.replacement"}) {
    if (vm.count(key)) {
      std::ostringstream s;
      s.precision(17);
      s << vm[key].as<double>();
      values[key] = s.str();
      where.erase(key);
    }
  }
  // A bad value from the parameter file is reported with its file and line.
  auto given_at = [&](const UsageError& e) -> UsageError {
    const std::string text = std::string(e.what()) + " " + e.hint();
    for (const auto& [key, at] : where)
      if (text.find(key) != std::string::npos) return UsageError(at + ": " + e.what(), e.hint());
    return e;
  };
  auto& p = o.parameters;
  try {
    if (values.count("scfind.enable"))
      AS_EXPECTS(parse_bool("scfind.enable", values["scfind.enable"]), UsageError,
                 "scfind.enable is false: nothing to do", "set scfind.enable = true in the parameter file");
    if (values.count("scfind.kernelsXY"))
      p.kernels_xy = parse_list<double>("scfind.kernelsXY", values["scfind.kernelsXY"]);
    if (values.count("scfind.kernelsZ"))
      p.kernels_z = parse_list<std::size_t>("scfind.kernelsZ", values["scfind.kernelsZ"]);
    if (values.count("scfind.threshold")) p.threshold = parse_number("scfind.threshold", values["scfind.threshold"]);
    if (values.count("scfind.replacement"))
      p.replacement = parse_number("scfind.replacement", values["scfind.replacement"]);
    if (values.count("scfind.statistic")) p.statistic = parse_statistic(values["scfind.statistic"]);
    if (values.count("scfind.fluxRange")) p.flux_range = parse_flux_range(values["scfind.fluxRange"]);
    validate(p);
  } catch (const UsageError& e) {
    throw given_at(e);
  }

  if (vm.count("input")) {
    o.input = vm["input"].as<std::string>();
  } else if (values.count("input.data") && !values["input.data"].empty()) {
    o.input = values["input.data"];
  }
  AS_EXPECTS(!o.input.empty(), UsageError, "no input cube given", "pass --input CUBE.fits or input.data in --par");
  if (vm.count("output")) {
    o.output = vm["output"].as<std::string>();
  } else if (values.count("output.filename") && !values["output.filename"].empty()) {
    const std::filesystem::path dir = values.count("output.directory") ? values["output.directory"] : std::string{};
    o.output = (dir / (values["output.filename"] + ".h5")).string();
  }
  AS_EXPECTS(!o.output.empty(), UsageError, "no output given",
             "pass --output PRODUCT.h5 (or output.filename in --par)");
  if (!vm["no-fits-mask"].as<bool>()) {
    if (vm.count("fits-mask")) {
      o.fits_mask = vm["fits-mask"].as<std::string>();
    } else {
      std::filesystem::path path(o.output);
      o.fits_mask = (path.parent_path() / (path.stem().string() + "_mask-raw.fits")).string();
    }
  }
  o.overwrite = vm["overwrite"].as<bool>() ||
                (values.count("output.overwrite") && parse_bool("output.overwrite", values["output.overwrite"]));
  o.quiet = vm["quiet"].as<bool>();
  o.resume = vm["resume"].as<bool>();
  AS_EXPECTS(!(o.resume && vm["overwrite"].as<bool>()), UsageError, "--resume and --overwrite contradict each other",
             "--resume continues the existing product, --overwrite replaces it: pass one (to start over under a "
             "script that always passes --resume, remove the product and its .journal)");
  const double minutes = vm["checkpoint-minutes"].as<double>();
  AS_EXPECTS(minutes >= 0, UsageError, "--checkpoint-minutes must be >= 0");
  o.checkpoint_seconds = minutes * 60;
  o.backend.kind = parse_backend(vm["backend"].as<std::string>());
  o.backend.threads = vm["threads"].as<int>();
  AS_EXPECTS(o.backend.threads >= 0, UsageError, "--threads must be >= 0");
  const double budget = vm["memory-budget-mb"].as<double>();
  AS_EXPECTS(budget >= 0, UsageError, "--memory-budget-mb must be >= 0");
  o.backend.host_memory_budget = static_cast<std::uint64_t>(budget * 1024 * 1024);
  const double gpu_budget = vm["gpu-memory-mb"].as<double>();
  AS_EXPECTS(gpu_budget >= 0, UsageError, "--gpu-memory-mb must be >= 0");
  o.backend.device_memory_budget = static_cast<std::uint64_t>(gpu_budget * 1024 * 1024);
  const int slabs = vm["slabs-per-rank"].as<int>();
  AS_EXPECTS(slabs >= 0, UsageError, "--slabs-per-rank must be >= 0 (0: as few as the memory budgets allow)");
  o.slabs_per_rank = static_cast<std::size_t>(slabs);
  return o;
}

}  // namespace

std::optional<ScfindOptions> parse_scfind_options(const std::vector<std::string>& args, MPI_Comm comm) {
  return parse_command_line<ScfindOptions>(args, scfind_options(), "scfind", comm, to_options);
}

int scfind_command(const std::vector<std::string>& args, MPI_Comm comm) {
  auto options = parse_scfind_options(args, comm);
  if (!options) return 0;
  options->command_line = command_line_text("scfind", args);
  run_scfind_job(*options, comm);
  return 0;
}

}  // namespace astrosweep::scfind

namespace astrosweep {

namespace jobs {
const Job& scfind() {
  static const Job job{"scfind", "SoFiA-2 smooth-and-clip source finding on a data cube: raw mask", false, scfind::scfind_command};
  return job;
}
}  // namespace jobs

}  // namespace astrosweep
