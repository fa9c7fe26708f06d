#include "period_command.hpp"

#include <boost/program_options.hpp>
#include <cmath>
#include <cstdio>
#include <map>
#include <numbers>

#include "core/command_line.hpp"
#include "core/error.hpp"
#include "core/job.hpp"
#include "core/mpi.hpp"
#include "core/option_file.hpp"
#include "core/text.hpp"
#include "period_backend.hpp"
#include "period_job.hpp"
#include "run/common_options.hpp"
#include "run/units_in_flight.hpp"

namespace astrosweep::period {

namespace po = boost::program_options;

namespace {

po::options_description period_options() {
  po::options_description input("Input");
  input.add_options()(
      "input,i", po::value<std::vector<std::string>>()->multitoken(),
      "light curves: a CSV file (id, t, y[, dy]), an astrosweep HDF5 catalog, TESS/Kepler FITS files or "
      "directories of them, or @LIST (a file naming one path per line)")(
      "format", po::value<std::string>()->default_value("auto"), "input format: auto, csv, fits, hdf5")(
      "flux-column", po::value<std::string>()->default_value(""),
      "FITS flux column (default PDCSAP_FLUX, else SAP_FLUX)")("no-quality-mask", po::bool_switch(),
                                                               "FITS: keep cadences with non-zero QUALITY")(
      "time-reference", po::value<std::string>()->default_value(""),
      "label of the time zero point (e.g. MJD), stored in the product");
  po::options_description peaks("Peaks and periodograms");
  peaks.add_options()("periodograms", po::bool_switch(), "store every full periodogram in the product")(
      "top-k", po::value<int>()->default_value(3), "distinct peaks stored per object")(
      "peak-separation", po::value<double>()->default_value(1.0),
      "minimum distance of stored peaks, in units of 1/baseline");
  po::options_description model("Periodogram");
  model.add_options()("model", po::value<std::string>()->default_value("generalized"),
                      "standard (classical, no errors) or generalized (floating mean, 1/dy^2 weights)")(
      "normalization", po::value<std::string>()->default_value("standard"), "standard, model, log or psd (astropy's)")(
      "precision", po::value<std::string>()->default_value("fp64"), "fp64 or fp32")(
      "method", po::value<std::string>()->default_value("auto"),
      "auto (per object, the cheaper by estimated cost), direct (sums over every point and frequency) or fast "
      "(non-uniform FFTs; CPU backend only so far)");
  po::options_description grid("Frequency grid (cyclic frequency in 1/day; one grid for the whole run)");
  grid.add_options()("fmin", po::value<double>(), "lowest frequency")(
      "fmax", po::value<double>(), "highest frequency (excluded when --n-freq is given)")(
      "n-freq", po::value<std::string>(),
      "number of frequencies: f_k = fmin + k (fmax - fmin) / n_freq (a whole number: 100000 or 1e5)")(
      "pmin", po::value<double>(), "shortest period (days), instead of --fmax")(
      "pmax", po::value<double>(), "longest period (days), instead of --fmin")(
      "angular", po::bool_switch(),
      "--fmin/--fmax are angular frequencies (rad/day) as in gpu_lomb_scargle; divided by 2 pi")(
      "samples-per-peak", po::value<double>()->default_value(5.0), "automatic grid: samples per peak width 1/baseline")(
      "nyquist-factor", po::value<double>()->default_value(5.0),
      "automatic grid: multiple of the average Nyquist frequency");
  po::options_description more("Parameters");
  more.add_options()("config", po::value<std::string>(),
                     "parameter file: 'name = value' lines with the long option names")("help,h", "show this help");
  po::options_description all("astrosweep period: Lomb-Scargle period search over a catalog of light curves");
  all.add(input)
      .add(run::output_options("product file (HDF5)"))
      .add(peaks)
      .add(model)
      .add(grid)
      .add(run::run_options({"periodogram buffers", default_buffer_budget_mb}))
      .add(run::units_in_flight_options())
      .add(more);
  return all;
}

template <class T>
std::optional<T> optional_value(const po::variables_map& vm, const char* name) {
  if (!vm.count(name)) return std::nullopt;
  return vm[name].as<T>();
}

// A count written as an integer or in scientific notation (1e5, 2.5e6), as grid sizes are; a
// fraction or anything else is a UsageError.
std::int64_t whole_number(const std::string& text, const std::string& option) {
  const std::optional<double> value = parse_number(text);
  const bool whole = value && std::isfinite(*value) && *value == std::floor(*value) &&
                     std::abs(*value) <= 9007199254740992.0;  // 2^53: every whole double up to here is exact
  AS_EXPECTS(whole, UsageError, option + " needs a whole number, got '" + text + "'",
             "for example " + option + " 100000 or " + option + " 1e5");
  return static_cast<std::int64_t>(*value);
}

PeriodOptions to_options(const po::variables_map& vm) {
  PeriodOptions o;
  static_cast<run::CommonOptions&>(o) = run::read_common_options(vm);
  AS_EXPECTS(vm.count("input"), UsageError, "no input given", "pass --input PATH (see astrosweep period --help)");
  AS_EXPECTS(vm.count("output"), UsageError, "no output given", "pass --output PRODUCT.h5");
  o.catalog.inputs = vm["input"].as<std::vector<std::string>>();
  o.catalog.format = io::parse_input_format(vm["format"].as<std::string>());
  o.catalog.fits.flux_column = vm["flux-column"].as<std::string>();
  o.catalog.fits.use_quality = !vm["no-quality-mask"].as<bool>();
  o.catalog.time_reference = vm["time-reference"].as<std::string>();
  o.config.keep_periodograms = vm["periodograms"].as<bool>();
  o.config.top_k = vm["top-k"].as<int>();
  AS_EXPECTS(o.config.top_k >= 1 && o.config.top_k <= 1000, UsageError, "--top-k must be between 1 and 1000");
  o.config.peak_separation = vm["peak-separation"].as<double>();
  AS_EXPECTS(o.config.peak_separation >= 0, UsageError, "--peak-separation must be >= 0");
  o.config.model = parse_model(vm["model"].as<std::string>());
  o.config.normalization = parse_normalization(vm["normalization"].as<std::string>());
  o.config.precision = parse_precision(vm["precision"].as<std::string>());
  o.config.method = parse_method(vm["method"].as<std::string>());
  const double scale = vm["angular"].as<bool>() ? 1.0 / (2 * std::numbers::pi) : 1.0;
  if (auto f = optional_value<double>(vm, "fmin")) o.grid.fmin = *f * scale;
  if (auto f = optional_value<double>(vm, "fmax")) o.grid.fmax = *f * scale;
  o.grid.pmin = optional_value<double>(vm, "pmin");
  o.grid.pmax = optional_value<double>(vm, "pmax");
  if (auto text = optional_value<std::string>(vm, "n-freq")) o.grid.n_freq = whole_number(*text, "--n-freq");
  o.grid.samples_per_peak = vm["samples-per-peak"].as<double>();
  o.grid.nyquist_factor = vm["nyquist-factor"].as<double>();
  o.units_in_flight = run::read_units_in_flight(vm);
  return o;
}

}  // namespace

int period_command(const std::vector<std::string>& args, MPI_Comm comm) {
  const auto desc = period_options();
  // A parameter file (--config) is read after the command line, whose values therefore win.
  std::map<std::string, std::string> where;  // "FILE:LINE" of each value taken from it
  auto read_config = [&desc, &where](po::variables_map& vm) {
    if (vm.count("config")) where = store_option_file(vm["config"].as<std::string>(), desc, vm);
  };
  // A bad value from the parameter file is reported with its file and line.
  auto located_options = [&where](const po::variables_map& vm) {
    try {
      return to_options(vm);
    } catch (const UsageError& e) {
      const std::string at = option_file_location(std::string(e.what()) + " " + e.hint(), where);
      if (at.empty()) throw;
      throw UsageError(at + ": " + e.what(), e.hint());
    }
  };
  auto options = parse_command_line<PeriodOptions>(args, desc, "period", comm, located_options, read_config);
  if (!options) return 0;
  options->command_line = command_line_text("period", args);
  run_period_job(*options, comm);
  return 0;
}

}  // namespace astrosweep::period

namespace astrosweep {

namespace jobs {
const Job& period() {
  static const Job job{"period", "Lomb-Scargle period search over a catalog of light curves", false,
                       period::period_command};
  return job;
}
}  // namespace jobs

}  // namespace astrosweep
