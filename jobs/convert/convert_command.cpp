#include "convert_command.hpp"

#include <boost/program_options.hpp>
#include <cstdio>
#include <optional>

#include "core/command_line.hpp"
#include "core/error.hpp"
#include "core/job.hpp"
#include "io/catalog.hpp"
#include "io/h5_timeseries.hpp"
#include "io/output_lock.hpp"
#include "io/output_path.hpp"
#include "io/time_series_inputs.hpp"

namespace astrosweep {

namespace po = boost::program_options;

namespace {

// Time series (SIGPROC .tim, PRESTO .dat/.inf) -> one astrosweep.timeseries batch, series by
// series: the headers are listed and checked first (tsamp, sizes), then each series is read,
// checked for non-finite samples and appended. A failure removes the partial batch.
int convert_time_series(const std::vector<std::string>& inputs, io::TimeSeriesFormat format,
                        const std::string& output) {
  const auto listed = io::list_time_series_inputs(inputs, format);
  AS_EXPECTS(listed.format != io::TimeSeriesFormat::hdf5, UsageError, "the input is already an HDF5 time-series batch",
             "give it to fdas as it is");
  if (listed.lengths_differ()) std::fprintf(stderr, "[astrosweep] convert: note: %s\n", listed.length_note().c_str());
  io::H5TimeSeriesWriter writer(output, io::time_series_format_name(listed.format), listed.source_paths());
  for (const auto& source : listed.series) writer.append(source.info, io::read_time_series_samples(source));
  writer.finish();
  std::printf("timeseries: %s (%llu series, %llu samples, tsamp %.9g s)\n", output.c_str(),
              static_cast<unsigned long long>(writer.n_series()), static_cast<unsigned long long>(writer.n_rows()),
              listed.series.front().info.tsamp);
  return 0;
}

}  // namespace

int convert_command(const std::vector<std::string>& args, MPI_Comm /*comm: one process*/) {
  po::options_description desc(
      "astrosweep convert: light curves (CSV or TESS/Kepler FITS) -> HDF5 catalog, or time series (SIGPROC .tim, "
      "PRESTO .dat/.inf) -> HDF5 time-series batch");
  desc.add_options()("input,i", po::value<std::vector<std::string>>()->multitoken(),
                     "CSV file, FITS files/directories, .tim or .dat/.inf files/directories, or @LIST")(
      "format", po::value<std::string>()->default_value("auto"), "auto, csv, fits, tim or presto")(
      "output,o", po::value<std::string>(), "HDF5 catalog or time-series batch to write")(
      "overwrite", po::bool_switch(), "replace an existing output")(
      "flux-column", po::value<std::string>()->default_value(""),
      "FITS flux column (default PDCSAP_FLUX, else SAP_FLUX)")("no-quality-mask", po::bool_switch(),
                                                               "FITS: keep cadences with non-zero QUALITY")(
      "time-reference", po::value<std::string>()->default_value(""), "label of the time zero point (e.g. MJD)")(
      "help,h", "show this help");
  // One process: MPI_COMM_SELF, so --help prints here and an error is this process's alone.
  const std::optional<po::variables_map> parsed = parse_command_line<po::variables_map>(
      args, desc, "convert", MPI_COMM_SELF, [](const po::variables_map& v) { return v; });
  if (!parsed) return 0;  // --help
  const po::variables_map& vm = *parsed;
  AS_EXPECTS(vm.count("input"), UsageError, "no input given", "pass --input PATH");
  AS_EXPECTS(vm.count("output"), UsageError, "no output given", "pass --output CATALOG.h5");
  const auto format = vm["format"].as<std::string>();
  const auto arguments = vm["input"].as<std::vector<std::string>>();
  const auto output = vm["output"].as<std::string>();
  // One convert per output (io/output_lock.hpp): held until this function returns.
  io::check_output_path(output, true);  // the lock file's directory exists and is writable
  io::OutputLock lock = io::OutputLock::acquire(output, command_line_text("convert", args));
  if (!lock.held()) std::fprintf(stderr, "[astrosweep] convert: warning: %s\n", lock.unsupported().c_str());
  if (format == "tim" || format == "presto" ||
      (format == "auto" && io::looks_like_time_series(io::expand_input_lists(arguments)))) {
    io::check_output_path(output, vm["overwrite"].as<bool>());
    return convert_time_series(arguments, io::parse_time_series_format(format), output);
  }
  io::CatalogOptions options;
  options.inputs = arguments;
  options.format = io::parse_input_format(format);
  options.fits.flux_column = vm["flux-column"].as<std::string>();
  options.fits.use_quality = !vm["no-quality-mask"].as<bool>();
  options.time_reference = vm["time-reference"].as<std::string>();
  io::check_output_path(output, vm["overwrite"].as<bool>());  // exists, a directory or device, no directory

  const auto inputs = io::resolve_inputs(options);
  AS_EXPECTS(inputs.format != io::InputFormat::hdf5, UsageError, "the input is already an HDF5 catalog");
  const auto written = io::convert_to_catalog(inputs, options, output);
  std::printf("catalog: %s (%llu objects, %llu rows%s)\n", output.c_str(),
              static_cast<unsigned long long>(written.n_objects), static_cast<unsigned long long>(written.n_rows),
              written.has_errors ? ", with dy" : "");
  return 0;
}

namespace jobs {
const Job& convert() {
  static const Job job{"convert",
                       "convert light curves (CSV, TESS/Kepler FITS) into an HDF5 catalog, or time series (SIGPROC "
                       ".tim, PRESTO .dat/.inf) into an HDF5 batch",
                       true, convert_command};
  return job;
}
}  // namespace jobs

}  // namespace astrosweep
