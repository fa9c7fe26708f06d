#include "fdas_options.hpp"

#include <boost/program_options.hpp>
#include <cmath>
#include <fstream>
#include <sstream>

#include "core/command_line.hpp"
#include "core/error.hpp"
#include "harmonic_tables.hpp"
#include "run/units_in_flight.hpp"

namespace astrosweep::fdas {

namespace po = boost::program_options;

namespace {

po::options_description fdas_options() {
  po::options_description input("Input");
  input.add_options()("input,i", po::value<std::vector<std::string>>()->multitoken(),
                      "dedispersed time series: SIGPROC .tim, PRESTO .dat/.inf, directories or @LIST of them, or "
                      "an astrosweep.timeseries HDF5 batch (astrosweep convert)")(
      "format", po::value<std::string>()->default_value("auto"), "auto, tim, presto or hdf5");
  po::options_description output = run::output_options("product (HDF5): series, candidates, harmonics, sifted");
  output.add_options()("accel-text", po::value<std::string>(),
                       "also write PRESTO-format <input>_ACCEL_<zmax> text files into this directory");
  po::options_description search("Search (PRESTO accelsearch's names and defaults)");
  search.add_options()("zmax", po::value<double>()->default_value(200), "largest drift searched, bins (0 … 1200)")(
      "numharm", po::value<int>()->default_value(8), "harmonics summed: 1, 2, 4, 8, 16 or 32")(
      "numbetween", po::value<int>()->default_value(2),
      "outputs per Fourier bin: 2 (exact half bins) or 1 (half bins interbinned: fewer FFTs)")(
      "sigma", po::value<double>()->default_value(2.0), "lowest candidate significance kept")(
      "flo", po::value<double>()->default_value(1.0), "lowest frequency searched, Hz")(
      "fhi", po::value<double>()->default_value(10000.0), "highest frequency searched, Hz (clipped to Nyquist)")(
      "norm", po::value<std::string>()->default_value("deredden"),
      "deredden (PRESTO's), known-variance (with --variance; for tests) or none")(
      "variance", po::value<double>(), "the input's noise variance for --norm known-variance")(
      "birdies", po::value<std::string>(), "file of 'frequency_hz width_hz' lines whose bins are zeroed")(
      "max-candidates", po::value<int>()->default_value(2000), "candidates kept per series (the weakest dropped)")(
      "accuracy", po::value<std::string>()->default_value("low"), "template half-width: low (+16 bins) or high (+48)")(
      "fft-length", po::value<int>()->default_value(0), "segment FFT length (0: chosen from the widest template)");
  po::options_description sift("Sifting across DM trials (PRESTO's ACCEL_sift.py; its names and defaults)");
  sift.add_options()("sift-sigma", po::value<double>()->default_value(4.0), "lowest sigma kept")(
      "sift-c-pow", po::value<double>()->default_value(100.0),
      "lowest coherent power of a one-harmonic candidate below --sift-sigma that is kept")(
      "sift-harm-pow", po::value<double>()->default_value(8.0), "a harmonic must exceed this power")(
      "sift-r-err", po::value<double>()->default_value(1.1), "bins within which candidates are the same")(
      "sift-short-period", po::value<double>()->default_value(0.0005), "shortest period kept, s")(
      "sift-long-period", po::value<double>()->default_value(15.0), "longest period kept, s")(
      "sift-min-dms", po::value<int>()->default_value(2),
      "DM trials a candidate must be seen at (at most the number of DMs searched)")(
      "sift-low-dm", po::value<double>()->default_value(2.0), "a candidate's best DM must exceed this, pc cm-3");
  po::options_description all("astrosweep fdas: Fourier-domain acceleration search (PRESTO accelsearch's method)");
  po::options_description run = run::run_options({"its series and planes", 0});
  run.add_options()("help,h", "show this help");
  all.add(input).add(output).add(search).add(sift).add(run).add(run::units_in_flight_options());
  return all;
}

FdasOptions to_options(const po::variables_map& vm) {
  FdasOptions o;
  static_cast<run::CommonOptions&>(o) = run::read_common_options(vm);
  AS_EXPECTS(vm.count("input"), UsageError, "no input given", "pass --input PATH (see astrosweep fdas --help)");
  AS_EXPECTS(!o.output.empty(), UsageError, "no output given", "pass --output PRODUCT.h5");
  o.inputs = vm["input"].as<std::vector<std::string>>();
  o.format = io::parse_time_series_format(vm["format"].as<std::string>());
  o.z_max = vm["zmax"].as<double>();
  AS_EXPECTS(std::isfinite(o.z_max) && o.z_max >= 0 && o.z_max <= 1200, UsageError,
             "--zmax must be between 0 and 1200");
  o.numharm = vm["numharm"].as<int>();
  AS_EXPECTS(valid_numharm(o.numharm), UsageError, "--numharm must be 1, 2, 4, 8, 16 or 32");
  o.numbetween = vm["numbetween"].as<int>();
  AS_EXPECTS(o.numbetween == 1 || o.numbetween == 2, UsageError, "--numbetween must be 1 or 2",
             "2 interpolates half bins exactly; 1 interbins them (docs/fdas.md)");
  o.sigma_min = vm["sigma"].as<double>();
  AS_EXPECTS(std::isfinite(o.sigma_min) && o.sigma_min > 0, UsageError, "--sigma must be positive");
  o.f_lo = vm["flo"].as<double>();
  o.f_hi = vm["fhi"].as<double>();
  AS_EXPECTS(o.f_lo >= 0 && o.f_hi > o.f_lo, UsageError, "--flo and --fhi must satisfy 0 <= flo < fhi");
  const std::string norm = vm["norm"].as<std::string>();
  if (norm == "deredden") {
    o.normalisation = Normalisation::deredden;
  } else if (norm == "known-variance") {
    o.normalisation = Normalisation::known_variance;
    AS_EXPECTS(vm.count("variance") && vm["variance"].as<double>() > 0, UsageError,
               "--norm known-variance needs --variance (> 0)");
    o.known_variance = vm["variance"].as<double>();
  } else if (norm == "none") {
    o.normalisation = Normalisation::none;
  } else {
    throw UsageError("unknown --norm '" + norm + "'", "use deredden, known-variance or none");
  }
  if (vm.count("birdies")) o.birdies = read_birdies(vm["birdies"].as<std::string>());
  const int max_candidates = vm["max-candidates"].as<int>();
  AS_EXPECTS(max_candidates >= 1, UsageError, "--max-candidates must be at least 1");
  o.max_candidates = static_cast<std::size_t>(max_candidates);
  const std::string accuracy = vm["accuracy"].as<std::string>();
  AS_EXPECTS(accuracy == "low" || accuracy == "high", UsageError, "--accuracy must be low or high");
  o.accuracy = accuracy == "low" ? Accuracy::low : Accuracy::high;
  const int fft_length = vm["fft-length"].as<int>();
  AS_EXPECTS(fft_length >= 0, UsageError, "--fft-length must be >= 0 (0: chosen from the templates)");
  o.fft_length = static_cast<std::size_t>(fft_length);
  if (vm.count("accel-text")) o.accel_text = vm["accel-text"].as<std::string>();
  auto positive = [&](const char* name) {
    const double v = vm[name].as<double>();
    AS_EXPECTS(std::isfinite(v) && v >= 0, UsageError, std::string("--") + name + " must be a number >= 0");
    return v;
  };
  o.sift.sigma_threshold = positive("sift-sigma");
  o.sift.c_pow_threshold = positive("sift-c-pow");
  o.sift.harm_pow_cutoff = positive("sift-harm-pow");
  o.sift.r_err = positive("sift-r-err");
  o.sift.short_period = positive("sift-short-period");
  o.sift.long_period = positive("sift-long-period");
  AS_EXPECTS(o.sift.long_period > o.sift.short_period, UsageError,
             "--sift-long-period must exceed --sift-short-period");
  o.sift.min_num_dms = vm["sift-min-dms"].as<int>();
  AS_EXPECTS(o.sift.min_num_dms >= 1, UsageError, "--sift-min-dms must be at least 1");
  o.sift.low_dm_cutoff = vm["sift-low-dm"].as<double>();
  AS_EXPECTS(std::isfinite(o.sift.low_dm_cutoff), UsageError, "--sift-low-dm must be a number");
  o.units_in_flight = run::read_units_in_flight(vm);
  return o;
}

}  // namespace

std::vector<Birdie> read_birdies(const std::string& path) {
  std::ifstream in(path);
  AS_EXPECTS(in.good(), InputError, "cannot read birdie file '" + path + "'", "check the path given to --birdies");
  std::vector<Birdie> birdies;
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    const std::string text = line.substr(0, line.find('#'));
    if (text.find_first_not_of(" \t\r") == std::string::npos) continue;
    std::istringstream fields(text);
    Birdie b{};
    std::string rest;
    AS_EXPECTS(fields >> b.frequency >> b.width && !(fields >> rest) && b.frequency >= 0 && b.width >= 0 &&
                   std::isfinite(b.frequency) && std::isfinite(b.width),
               InputError, path + ":" + std::to_string(number) + ": expected 'frequency_hz width_hz' (both >= 0)",
               "one birdie per line; '#' starts a comment");
    birdies.push_back(b);
  }
  return birdies;
}

std::optional<FdasOptions> parse_fdas_options(const std::vector<std::string>& args, MPI_Comm comm) {
  auto options = parse_command_line<FdasOptions>(args, fdas_options(), "fdas", comm, to_options);
  if (options) options->command_line = command_line_text("fdas", args);
  return options;
}

}  // namespace astrosweep::fdas
