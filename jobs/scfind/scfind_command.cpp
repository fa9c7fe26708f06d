#include "scfind_command.hpp"

#include <boost/program_options.hpp>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <utility>

#include "core/command_line.hpp"
#include "core/error.hpp"
#include "core/job.hpp"
#include "core/mpi.hpp"
#include "run/common_options.hpp"
#include "scfind_job.hpp"
#include "sofia_parameter_file.hpp"

namespace astrosweep::scfind {

namespace po = boost::program_options;

namespace {

// SoFiA-2's image outputs of the source mask (moment_maps.hpp); with the linker.
constexpr std::pair<const char*, const char*> image_keys[] = {
    {"output.writeMoments",
     "write SoFiA-2's moment 0, 1, 2 and channel maps <product stem>_mom0/_mom1/_mom2/_chan.fits [false]"},
    {"output.writeMask2d", "write SoFiA-2's 2-D source mask <product stem>_mask-2d.fits [false]"},
    {"output.writeCubelets",
     "write SoFiA-2's cubelets (per source: cut-out cube, mask, moment maps, spectrum) in <product "
     "stem>_cubelets/ [false]"},
    {"output.marginCubelets", "pixels added around each source's bounding box in its cubelet [10]"},
    {"output.thresholdMom12", "cubelet moments 1 and 2 over the flux above this many times the source's rms [0]"},
};

po::options_description scfind_options() {
  po::options_description input("Input");
  input.add_options()("input,i", po::value<std::string>(),
                      "data cube: FITS (BITPIX 8/16/32/-32/-64, NAXIS 3 or 4 with NAXIS4 = 1) or HDF5 file[:/dataset]")(
      "par", po::value<std::string>(), "SoFiA-2 parameter file (its scfind.*, input.data, output.* keys)");
  po::options_description output = run::output_options(
      "product (HDF5): raw mask and noise per kernel pair; default from output.directory and output.filename in "
      "--par");
  output.add_options()("fits-mask", po::value<std::string>(),
                       "also write the raw mask as FITS (uint8, input header) at this path; default: none, or the "
                       "product's name with _mask-raw.fits when --par sets output.writeRawMask = true (as SoFiA-2)")(
      "no-fits-mask", po::bool_switch(), "write no FITS mask, whatever --par says")(
      "fits-source-mask", po::value<std::string>(),
      "with the linker: also write the source mask (int32 source ids) as FITS at this path; default: none, or the "
      "product's name with _mask.fits when --par sets output.writeMask = true (as SoFiA-2)")(
      "fits-mask-compression", po::value<std::string>()->default_value("none"),
      "the FITS mask: none (plain, as SoFiA-2 writes it), rice or gzip (CFITSIO tile-compressed image in extension 1, "
      "which astropy and DS9 read; SoFiA-2 does not)")(
      "mask-compression", po::value<std::string>()->default_value("deflate"),
      "the product's mask: deflate (compressed chunks, level 1) or none (plain, a byte per voxel)")(
      "checkpoint-minutes", po::value<double>()->default_value(10),
      "make the mask durable at least this often, so a killed run resumes from there (0: after every pair)");
  po::options_description sc("Smooth and clip (SoFiA-2 names and defaults; these override --par)");
  for (const ParameterKey& k : parameter_keys) sc.add_options()(k.key, po::value<std::string>(), k.help);
  po::options_description link("Linker (SoFiA-2 names and defaults; these override --par)");
  for (const LinkerKey& k : linker_keys) link.add_options()(k.key, po::value<std::string>(), k.help);
  po::options_description rel("Reliability filter (SoFiA-2 names and defaults; these override --par)");
  for (const ReliabilityKey& k : reliability_keys) rel.add_options()(k.key, po::value<std::string>(), k.help);
  po::options_description par("Catalogue (SoFiA-2 names and defaults; these override --par)");
  for (const CatalogueKey& k : catalogue_keys) par.add_options()(k.key, po::value<std::string>(), k.help);
  for (const auto& [key, help] : image_keys) par.add_options()(key, po::value<std::string>(), help);
  po::options_description run = run::run_options({"its slabs", 0});
  run.add_options()("slabs-per-rank", po::value<int>()->default_value(0),
                    "slabs each rank streams through its backend (0: the fewest that fit the memory budgets)")(
      "help,h", "show this help");
  po::options_description all(
      "astrosweep scfind: SoFiA-2's smooth-and-clip source finder, raw mask identical to SoFiA-2");
  all.add(input).add(output).add(sc).add(link).add(rel).add(par).add(run);
  return all;
}

bool parse_bool(const std::string& key, const std::string& text) {
  if (text == "true") return true;
  if (text == "false") return false;
  throw UsageError(key + ": '" + text + "' is not true or false", "write true or false");
}

// SoFiA-2 reads these with strtol / strtod; astrosweep refuses what they would read as garbage.
std::size_t parse_count(const std::string& key, const std::string& text) {
  errno = 0;
  char* end = nullptr;
  const long long value = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || *end != 0 || errno != 0 || value < 0)
    throw UsageError(key + ": '" + text + "' is not a whole number >= 0", "write a number of pixels, e.g. 10");
  return static_cast<std::size_t>(value);
}

double parse_number(const std::string& key, const std::string& text) {
  errno = 0;
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != 0 || errno != 0 || !std::isfinite(value))
    throw UsageError(key + ": '" + text + "' is not a finite number", "write a number, e.g. 0 or 2.5");
  return value;
}

ScfindOptions to_options(const po::variables_map& vm) {
  ScfindOptions o;
  static_cast<run::CommonOptions&>(o) = run::read_common_options(vm);
  std::map<std::string, std::string> values;  // SoFiA-2 keys: the parameter file, then the command line
  std::map<std::string, std::string> where;   // "FILE:LINE" of the values taken from the parameter file
  if (vm.count("par")) {
    const auto path = vm["par"].as<std::string>();
    const auto file = read_sofia_parameter_file(path);
    values = file.values;
    where = file.where;
    o.unimplemented_parameters = file.not_implemented;
    o.sofia_settings = file.written;
  }
  std::vector<const char*> option_keys;
  for (const ParameterKey& k : parameter_keys) option_keys.push_back(k.key);
  for (const LinkerKey& k : linker_keys) option_keys.push_back(k.key);
  for (const CatalogueKey& k : catalogue_keys) option_keys.push_back(k.key);
  for (const ReliabilityKey& k : reliability_keys) option_keys.push_back(k.key);
  for (const auto& [key, help] : image_keys) option_keys.push_back(key);
  for (const char* key : option_keys)
    if (vm.count(key)) {
      values[key] = vm[key].as<std::string>();
      o.sofia_settings[key] = values[key];
      where.erase(key);
    }
  // A bad value from the parameter file is reported with its file and line.
  bool write_raw_mask = false;
  bool write_mask = false;
  auto given_at = [&](const UsageError& e) -> UsageError {
    const std::string text = std::string(e.what()) + " " + e.hint();
    for (const auto& [key, at] : where)
      if (text.find(key) != std::string::npos) return UsageError(at + ": " + e.what(), e.hint());
    return e;
  };
  try {
    if (values.count("scfind.enable"))
      AS_EXPECTS(parse_bool("scfind.enable", values["scfind.enable"]), UsageError,
                 "scfind.enable is false: nothing to do", "set scfind.enable = true in the parameter file");
    o.parameters = parameters_from_text(values);
    // SoFiA-2 writes its raw mask when output.writeRawMask = true, by default not.
    if (values.count("output.writeRawMask"))
      write_raw_mask = parse_bool("output.writeRawMask", values["output.writeRawMask"]);
    if (values.count("output.writeMask")) write_mask = parse_bool("output.writeMask", values["output.writeMask"]);
    if (values.count("output.writeMoments"))
      o.write_moments = parse_bool("output.writeMoments", values["output.writeMoments"]);
    if (values.count("output.writeMask2d"))
      o.write_mask_2d = parse_bool("output.writeMask2d", values["output.writeMask2d"]);
    if (values.count("output.writeCubelets"))
      o.write_cubelets = parse_bool("output.writeCubelets", values["output.writeCubelets"]);
    if (values.count("output.marginCubelets"))
      o.margin_cubelets = parse_count("output.marginCubelets", values["output.marginCubelets"]);
    if (values.count("output.thresholdMom12"))
      o.threshold_mom12 = parse_number("output.thresholdMom12", values["output.thresholdMom12"]);
    // A SoFiA-2 parameter file means SoFiA-2's defaults, the linker on among them; the command line
    // alone asks for the raw mask (the job before the linker), unless --linker.enable true.
    LinkerParameters fallback;
    fallback.enable = vm.count("par") != 0;
    o.linker = linker_parameters_from_text(values, fallback);
    o.reliability = reliability_parameters_from_text(values);
    check_linker_for_reliability(o.linker, o.reliability);
    o.catalogue = catalogue_parameters_from_text(values);
    // SoFiA-2 writes its ASCII and XML catalogues by default; without --par, only those asked for.
    const CatalogueFiles sofia_files;
    o.catalogue_files =
        catalogue_files_from_text(values, vm.count("par") ? sofia_files : CatalogueFiles{false, false, false});
  } catch (const UsageError& e) {
    throw given_at(e);
  }

  if (vm.count("input")) {
    o.input = vm["input"].as<std::string>();
  } else if (values.count("input.data") && !values["input.data"].empty()) {
    o.input = values["input.data"];
  }
  AS_EXPECTS(!o.input.empty(), UsageError, "no input cube given", "pass --input CUBE.fits or input.data in --par");
  if (o.output.empty() && values.count("output.filename") && !values["output.filename"].empty()) {
    const std::filesystem::path dir = values.count("output.directory") ? values["output.directory"] : std::string{};
    o.output = (dir / (values["output.filename"] + ".h5")).string();
  }
  AS_EXPECTS(!o.output.empty(), UsageError, "no output given",
             "pass --output PRODUCT.h5 (or output.filename in --par)");
  if (!vm["no-fits-mask"].as<bool>()) {
    if (vm.count("fits-mask")) {
      o.fits_mask = vm["fits-mask"].as<std::string>();
    } else if (write_raw_mask) {
      std::filesystem::path path(o.output);
      o.fits_mask = (path.parent_path() / (path.stem().string() + "_mask-raw.fits")).string();
    }
  }
  if (vm.count("fits-source-mask")) {
    o.fits_source_mask = vm["fits-source-mask"].as<std::string>();
  } else if (write_mask && !vm["no-fits-mask"].as<bool>()) {
    std::filesystem::path path(o.output);
    o.fits_source_mask = (path.parent_path() / (path.stem().string() + "_mask.fits")).string();
  }
  AS_EXPECTS(o.linker.enable || o.fits_source_mask.empty(), UsageError,
             "a FITS source mask is asked for (" +
                 std::string(vm.count("fits-source-mask") ? "--fits-source-mask" : "output.writeMask = true") +
                 "), but the linker is off",
             "set linker.enable = true (or --linker.enable true), or do not ask for the source mask");
  const std::string fits_compression = vm["fits-mask-compression"].as<std::string>();
  AS_EXPECTS(fits_compression == "none" || fits_compression == "rice" || fits_compression == "gzip", UsageError,
             "--fits-mask-compression: '" + fits_compression + "' is not none, rice or gzip",
             "none writes the FITS mask plain, as SoFiA-2 does; rice or gzip tile-compress it");
  o.fits_mask_compression = fits_compression == "rice"   ? io::FitsCompression::rice
                            : fits_compression == "gzip" ? io::FitsCompression::gzip
                                                         : io::FitsCompression::none;
  AS_EXPECTS(o.fits_mask_compression == io::FitsCompression::none || !o.fits_mask.empty(), UsageError,
             "--fits-mask-compression " + fits_compression + ", but no FITS mask is written",
             "ask for one with --fits-mask PATH (or output.writeRawMask = true in --par)");
  // output.overwrite in the parameter file is SoFiA-2's --overwrite; a --resume on the command line
  // is the later word, so a parameter file written for SoFiA-2 can be resumed as it is.
  if (values.count("output.overwrite") && parse_bool("output.overwrite", values["output.overwrite"]) && !o.resume)
    o.overwrite = true;
  const std::string compression = vm["mask-compression"].as<std::string>();
  AS_EXPECTS(compression == "deflate" || compression == "none", UsageError,
             "--mask-compression: '" + compression + "' is not deflate or none",
             "deflate compresses the product's mask (the default); none writes it plain");
  o.mask_compression = compression == "deflate" ? MaskCompression::deflate : MaskCompression::none;
  const double minutes = vm["checkpoint-minutes"].as<double>();
  AS_EXPECTS(minutes >= 0, UsageError, "--checkpoint-minutes must be >= 0");
  o.checkpoint_seconds = minutes * 60;
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
  static const Job job{"scfind", "SoFiA-2 smooth-and-clip source finding on a data cube: raw mask, linked sources",
                       false, scfind::scfind_command};
  return job;
}
}  // namespace jobs

}  // namespace astrosweep
