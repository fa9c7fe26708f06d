#include "convert_command.hpp"

#include <boost/program_options.hpp>
#include <cstdio>
#include <iostream>

#include "core/error.hpp"
#include "core/job.hpp"
#include "io/catalog.hpp"
#include "io/h5_catalog.hpp"
#include "io/output_path.hpp"

namespace astrosweep {

namespace po = boost::program_options;

int convert_command(const std::vector<std::string>& args, MPI_Comm /*comm: one process*/) {
  po::options_description desc("astrosweep convert: light curves (CSV or TESS/Kepler FITS) -> HDF5 catalog");
  desc.add_options()("input,i", po::value<std::vector<std::string>>()->multitoken(),
                     "CSV file, FITS files/directories, or @LIST")(
      "format", po::value<std::string>()->default_value("auto"), "auto, csv or fits")(
      "output,o", po::value<std::string>(), "HDF5 catalog to write")("overwrite", po::bool_switch(),
                                                                     "replace an existing output")(
      "flux-column", po::value<std::string>()->default_value(""),
      "FITS flux column (default PDCSAP_FLUX, else SAP_FLUX)")("no-quality-mask", po::bool_switch(),
                                                               "FITS: keep cadences with non-zero QUALITY")(
      "time-reference", po::value<std::string>()->default_value(""), "label of the time zero point (e.g. MJD)")(
      "help,h", "show this help");
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(args).options(desc).run(), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    throw UsageError(std::string("convert: ") + e.what(), "see astrosweep convert --help");
  }
  if (vm.count("help")) {
    std::cout << desc << "\n";
    return 0;
  }
  AS_EXPECTS(vm.count("input"), UsageError, "no input given", "pass --input PATH");
  AS_EXPECTS(vm.count("output"), UsageError, "no output given", "pass --output CATALOG.h5");
  io::CatalogOptions options;
  options.inputs = vm["input"].as<std::vector<std::string>>();
  options.format = io::parse_input_format(vm["format"].as<std::string>());
  options.fits.flux_column = vm["flux-column"].as<std::string>();
  options.fits.use_quality = !vm["no-quality-mask"].as<bool>();
  options.time_reference = vm["time-reference"].as<std::string>();
  const auto output = vm["output"].as<std::string>();
  io::check_output_path(output, vm["overwrite"].as<bool>());  // exists, a directory or device, no directory

  const auto inputs = io::resolve_inputs(options);
  AS_EXPECTS(inputs.format != io::InputFormat::hdf5, UsageError, "the input is already an HDF5 catalog");
  const auto read = io::read_serial(inputs, options);
  io::write_h5_catalog(output, read.block, read.time_reference, read.identity);
  std::printf("catalog: %s (%zu objects, %zu rows%s)\n", output.c_str(), read.block.n_objects(), read.block.t.size(),
              read.block.has_errors() ? ", with dy" : "");
  return 0;
}

namespace jobs {
const Job& convert() {
  static const Job job{"convert", "convert CSV or TESS/Kepler FITS light curves into an HDF5 catalog", true,
                       convert_command};
  return job;
}
}  // namespace jobs

}  // namespace astrosweep
