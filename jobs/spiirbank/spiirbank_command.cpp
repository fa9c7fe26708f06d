// `astrosweep spiirbank`: a SPIIR template bank (docs/spiir.md) from a list of component masses,
// one process (the templates of a bank take seconds each; OpenMP shares them among threads).
#include <algorithm>
#include <boost/program_options.hpp>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <optional>
#include <sstream>

#include "bank_generation.hpp"
#include "core/command_line.hpp"
#include "core/error.hpp"
#include "core/job.hpp"
#include "core/text.hpp"
#include "gw_strain.hpp"
#include "io/output_lock.hpp"
#include "io/output_path.hpp"

namespace astrosweep {

namespace po = boost::program_options;

namespace spiir {

namespace {

// "m1,m2" from --mass.
Binary parse_pair(const std::string& text) {
  const auto comma = text.find(',');
  const auto m1 = comma == std::string::npos ? std::nullopt : parse_number(text.substr(0, comma));
  const auto m2 = comma == std::string::npos ? std::nullopt : parse_number(text.substr(comma + 1));
  AS_EXPECTS(m1 && m2 && *m1 > 0 && *m2 > 0, UsageError, "--mass '" + text + "' is not two positive masses",
             "write --mass M1,M2 in solar masses, e.g. --mass 1.4,1.35");
  return {*m1, *m2};
}

// A text file of two columns, m1 m2 in solar masses, one binary a line; '#' starts a comment.
std::vector<Binary> read_masses(const std::string& path) {
  std::ifstream in(path);
  AS_EXPECTS(in, InputError, "cannot read the masses file '" + path + "'", "check the path given to --masses");
  std::vector<Binary> out;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (const auto hash = line.find('#'); hash != std::string::npos) line.resize(hash);
    std::istringstream fields(line);
    std::string a, b, extra;
    if (!(fields >> a)) continue;
    const auto m1 = parse_number(a);
    const auto m2 = (fields >> b) ? parse_number(b) : std::nullopt;
    AS_EXPECTS(m1 && m2 && *m1 > 0 && *m2 > 0 && !(fields >> extra), InputError,
               format_text("'%s' line %d: expected two positive masses (m1 m2, solar masses)", path.c_str(), number),
               "one binary per line: m1 m2; '#' starts a comment");
    out.push_back({*m1, *m2});
  }
  AS_EXPECTS(!out.empty(), InputError, "the masses file '" + path + "' lists no binary",
             "one binary per line: m1 m2 in solar masses");
  return out;
}

std::vector<std::string> split_ifos(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    AS_EXPECTS(item.size() == 2 && std::isupper(static_cast<unsigned char>(item[0])) &&
                   std::isdigit(static_cast<unsigned char>(item[1])),
               UsageError, "--ifos: '" + item + "' is not a detector name", "write e.g. --ifos H1,L1,V1");
    out.push_back(item);
  }
  AS_EXPECTS(!out.empty(), UsageError, "--ifos names no detector", "write e.g. --ifos H1,L1,V1");
  return out;
}

}  // namespace

int spiirbank_command(const std::vector<std::string>& args, MPI_Comm /*comm: one process*/) {
  po::options_description desc(
      "astrosweep spiirbank: non-spinning TaylorF2 templates -> SPIIR filters, an astrosweep.spiirbank HDF5 file");
  desc.add_options()("mass", po::value<std::vector<std::string>>()->composing(),
                     "one binary, M1,M2 in solar masses (repeatable)")(
      "masses", po::value<std::string>(), "text file of binaries: m1 m2 per line, '#' comments")(
      "output,o", po::value<std::string>(), "bank file to write (HDF5)")(
      "overwrite", po::bool_switch(), "replace an existing output")("f-low", po::value<double>()->default_value(15.0),
                                                                    "Hz: where the templates start")(
      "sample-rate", po::value<double>()->default_value(0.0),
      "Hz, a power of two: the top rate (0: 2^(ceil(log2 f_ISCO)+1) of the highest f_ISCO)")(
      "epsilon", po::value<double>()->default_value(0.02), "phase-error budget per filter, cycles")(
      "alpha", po::value<double>()->default_value(0.99), "where in its step a filter takes its phase rate")(
      "beta", po::value<double>()->default_value(0.25), "filter decay: |a1| = exp(-beta / step)")(
      "padding", po::value<double>()->default_value(1.3), "frequency head-room of the rate chosen for a filter")(
      "n-rates", po::value<int>()->default_value(7), "rates f_s, f_s/2 ... f_s/2^(D-1), D in 1..7; 1: single-rate")(
      "min-match", po::value<double>()->default_value(0.0), "search epsilon until the overlap reaches this (0: none)")(
      "min-filters", po::value<std::size_t>()->default_value(0), "epsilon search: at least this many filters")(
      "max-filters", po::value<std::size_t>()->default_value(0), "epsilon search: at most this many filters")(
      "max-epsilon", po::value<double>()->default_value(0.0), "epsilon search: upper limit (0: none)")(
      "ifos", po::value<std::string>()->default_value("H1,L1,V1"), "detectors the norms are stored for")(
      "autocorrelation-length", po::value<std::size_t>()->default_value(201), "lags stored per template (odd)")(
      "psd", po::value<std::string>()->default_value("white"),
      "whitening PSD: 'white' (unit variance per sample), an astrosweep.gwstrain file or an astrosweep.spiir "
      "product, with /detectors/<IFO>/psd for every detector of --ifos (the first one's makes the filters; a spiir "
      "product holds the PSDs its strain was whitened with where spiir whitened it, docs/spiir.md#the-product)")(
      "threads", po::value<int>()->default_value(0), "OpenMP threads over templates (0: the default)")(
      "help,h", "show this help");
  // One process: MPI_COMM_SELF, so --help prints here and an error is this process's alone.
  const std::optional<po::variables_map> parsed = parse_command_line<po::variables_map>(
      args, desc, "spiirbank", MPI_COMM_SELF, [](const po::variables_map& v) { return v; });
  if (!parsed) return 0;  // --help
  const po::variables_map& vm = *parsed;
  AS_EXPECTS(vm.count("output"), UsageError, "no output given", "pass --output BANK.h5");
  AS_EXPECTS(vm.count("mass") || vm.count("masses"), UsageError, "no binaries given",
             "pass --masses FILE or --mass M1,M2");
  BankSettings s;
  s.f_low = vm["f-low"].as<double>();
  s.sample_rate = vm["sample-rate"].as<double>();
  s.iir = {vm["epsilon"].as<double>(), vm["alpha"].as<double>(), vm["beta"].as<double>()};
  s.padding = vm["padding"].as<double>();
  s.n_rates = vm["n-rates"].as<int>();
  s.requirement = {vm["min-match"].as<double>(), vm["min-filters"].as<std::size_t>(),
                   vm["max-filters"].as<std::size_t>(), vm["max-epsilon"].as<double>()};
  s.ifos = split_ifos(vm["ifos"].as<std::string>());
  s.autocorrelation_length = vm["autocorrelation-length"].as<std::size_t>();
  s.threads = vm["threads"].as<int>();
  AS_EXPECTS(s.f_low > 0 && std::isfinite(s.f_low), UsageError, "--f-low must be positive");
  AS_EXPECTS(s.sample_rate >= 0, UsageError, "--sample-rate must be 0 (automatic) or a power of two");
  AS_EXPECTS(s.iir.epsilon > 0 && s.iir.alpha > 0 && s.iir.beta > 0, UsageError,
             "--epsilon, --alpha and --beta must be positive");
  AS_EXPECTS(s.n_rates >= 1 && s.n_rates <= 7, UsageError, "--n-rates must lie in 1 ... 7");
  AS_EXPECTS(s.requirement.min_match >= 0 && s.requirement.min_match < 1, UsageError, "--min-match must lie in [0, 1)");
  AS_EXPECTS(s.autocorrelation_length % 2 == 1, UsageError, "--autocorrelation-length must be odd");

  std::vector<Binary> binaries;
  if (vm.count("masses")) binaries = read_masses(vm["masses"].as<std::string>());
  if (vm.count("mass"))
    for (const auto& m : vm["mass"].as<std::vector<std::string>>()) binaries.push_back(parse_pair(m));
  if (const auto psd_path = vm["psd"].as<std::string>(); psd_path != "white") {
    // The PSDs must cover every template's band: f_low to the highest f_final.
    const double rate = s.sample_rate > 0 ? s.sample_rate : default_sample_rate(binaries);
    double f_high = 0;
    for (const auto& b : binaries) f_high = std::max(f_high, std::min(f_isco(b), 0.45 * rate));
    for (const auto& ifo : s.ifos) s.psds[ifo] = read_psd(psd_path, ifo, s.f_low, f_high);
    s.psd_name = psd_path;
  }

  const auto output = vm["output"].as<std::string>();
  io::check_output_path(output, true);
  io::OutputLock lock = io::OutputLock::acquire(output, command_line_text("spiirbank", args));
  if (!lock.held()) std::fprintf(stderr, "[astrosweep] spiirbank: warning: %s\n", lock.unsupported().c_str());
  io::check_output_path(output, vm["overwrite"].as<bool>());

  auto bank = make_spiir_bank(binaries, s);
  bank.command_line = command_line_text("spiirbank", args);
  write_spiir_bank(output, bank);

  std::size_t min_filters = SIZE_MAX, max_filters = 0, total = 0;
  double min_match = 1;
  for (std::size_t t = 0; t < bank.n_templates(); ++t) {
    std::size_t count = 0;
    for (const auto& r : bank.rates) count += static_cast<std::size_t>(r.n_filters[t]);
    min_filters = std::min(min_filters, count);
    max_filters = std::max(max_filters, count);
    total += count;
    min_match = std::min(min_match, bank.templates[t].match);
  }
  if (s.requirement.min_match > 0) {
    std::size_t below = 0;
    for (const auto& t : bank.templates) below += t.match < s.requirement.min_match ? 1 : 0;
    if (below > 0)
      std::fprintf(
          stderr,
          "[astrosweep] spiirbank: warning: %zu templates stay below --min-match %g within the epsilon limits\n", below,
          s.requirement.min_match);
  }
  std::string rates;
  for (const auto& r : bank.rates) {
    if (!rates.empty()) rates += ',';
    rates += std::to_string(r.rate);
  }
  std::printf(
      "bank: %s (%zu templates, rates %s Hz, filters per template %zu ... %zu (mean %.1f), lowest match %.4f)\n",
      output.c_str(), bank.n_templates(), rates.c_str(), min_filters, max_filters,
      static_cast<double>(total) / static_cast<double>(bank.n_templates()), min_match);
  return 0;
}

}  // namespace spiir

namespace jobs {
const Job& spiirbank() {
  static const Job job{"spiirbank", "SPIIR template bank: TaylorF2 templates to IIR filters (HDF5)", true,
                       spiir::spiirbank_command};
  return job;
}
}  // namespace jobs

}  // namespace astrosweep
