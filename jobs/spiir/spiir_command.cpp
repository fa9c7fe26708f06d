// `astrosweep spiir`, this version's stage of spec §§4, 6, 7, 9, 10 (docs/spiir.md): strain in the
// astrosweep.gwstrain layout or GWOSC files, whitened by the job where it is not (strain_input.hpp),
// filtered through a single- or multi-rate bank by the OpenMP or CUDA backend, chunk after chunk with the
// states carried; each detector's peaks per chunk (spec §9's selection) and, for 2-3 detectors,
// the coherent triggers and their time-slide background (coherent_triggers.cpp), written to an
// astrosweep.spiir HDF5 file. On any number of MPI ranks: work units of templates x time handed out
// by the framework (run/unit_loop.hpp), their samples spooled, merged into the peaks on rank 0
// (spiir_units.hpp), with the framework's journal, --resume and output lock (run/lifecycle.hpp).
#include <omp.h>

#include <algorithm>
#include <boost/program_options.hpp>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <memory>
#include <numeric>
#include <optional>

#include "chunk_peaks.hpp"
#include "coherent_distribution.hpp"
#include "coherent_second_pass.hpp"
#include "coherent_triggers.hpp"
#include "core/backend.hpp"
#include "core/command_line.hpp"
#include "core/error.hpp"
#include "core/job.hpp"
#include "core/mpi.hpp"
#include "core/text.hpp"
#include "core/version.hpp"
#include "detector_geometry.hpp"
#include "device.hpp"
#include "gw_strain.hpp"
#include "io/h5.hpp"
#include "io/product_attributes.hpp"
#include "io/resume_point.hpp"
#include "multirate_filter.hpp"
#include "psd_product.hpp"
#include "run/common_options.hpp"
#include "run/journalled_items.hpp"
#include "run/lifecycle.hpp"
#include "run/unit_loop.hpp"
#include "snr_series.hpp"
#include "spiir_backend.hpp"
#include "spiir_bank.hpp"
#include "spiir_spool.hpp"
#include "spiir_units.hpp"
#include "strain_input.hpp"
#include "stretch_whitening.hpp"

namespace astrosweep {

namespace po = boost::program_options;

namespace spiir {

namespace {

// Spec §10's product: the per-detector peaks and, for 2-3 detectors, the coherent triggers.
inline constexpr const char* peaks_format_name = "astrosweep.spiir";
inline constexpr std::int64_t peaks_format_version = 2;  // 2: /snr, snr_templates

// A unit's warm-up lasts until what the strain before it left in the filters' states has decayed
// to this fraction (spiir_units.hpp): below FP32's resolution, so a unit's SNR is a whole run's but
// for rounding.
inline constexpr double warmup_tolerance = 1e-9;

struct PeakRows {
  std::vector<std::int64_t> end_s, end_ns, template_index, sample;
  std::vector<double> snr, phase;
};

// One detector's filtering, chunk by chunk: a single-rate backend, or the multi-rate stream
// (late by its latency, fed chunks of a multiple of its unit, flushed with zeros at the end).
struct ChunkFilter {
  std::size_t n_templates = 0;
  std::size_t latency = 0;   // output sample s is the SNR at input sample s − latency
  std::size_t multiple = 1;  // chunk sizes must be multiples of this
  std::function<void(std::span<const double>, std::span<std::complex<double>>)> run;
  // The same keeping per sample only the best template (on a GPU, only that comes down).
  std::function<void(std::span<const double>, std::span<SampleMax>)> run_max;
};

// One detector's strain as the filters read it: gaps as zeros, padded with zeros to the stream's
// length, and per strain sample whether a peak may be taken there.
struct DetectorStream {
  std::vector<double> x;
  std::vector<bool> usable;
};

// The longest template, in samples: the warm-up after the start and after a gap.
std::size_t longest_template(const SpiirBank& bank) {
  std::size_t span = 1;
  for (const auto& t : bank.templates)
    span = std::max(span, static_cast<std::size_t>(std::ceil(t.duration * bank.sample_rate_max)));
  return span;
}

DetectorStream detector_stream(const DetectorStrain& d, std::size_t span, std::size_t n_stream) {
  // Usable samples: past the warm-up (the longest template) and no gap within a template length on
  // either side (spec §6: before, the gap is inside the template; after, the whitening's roll-off).
  const std::size_t n_total = d.strain.size();
  DetectorStream s{std::vector<double>(n_stream, 0.0), std::vector<bool>(n_total, true)};
  std::size_t last_gap = SIZE_MAX;
  for (std::size_t n = 0; n < n_total; ++n) {
    const bool gap = !std::isfinite(d.strain[n]);
    s.x[n] = gap ? 0.0 : static_cast<double>(d.strain[n]);
    if (gap) last_gap = n;
    s.usable[n] = n + 1 >= span && (last_gap == SIZE_MAX || n - last_gap >= span);
  }
  for (std::size_t n = n_total, next_gap = SIZE_MAX; n-- > 0;) {
    if (!std::isfinite(d.strain[n])) next_gap = n;
    if (next_gap != SIZE_MAX && next_gap - n < span) s.usable[n] = false;
  }
  return s;
}

// Filters output samples [u0, u0 + n) of one detector, starting `warmup` samples before (or at 0),
// in chunks; `each` gets every chunk past the warm-up's start: its first output sample, its length,
// its per-sample best template and, with `keep_snr`, every template's SNR (else an empty span):
// the SNRs come back from the backend only where they are kept, and the best is the same either way.
void filter_range(const DetectorStream& s, const ChunkFilter& filter, std::size_t u0, std::size_t n, std::size_t warmup,
                  std::size_t chunk, bool keep_snr,
                  const std::function<void(std::size_t, std::size_t, std::span<const SampleMax>,
                                           std::span<const std::complex<double>>)>& each) {
  chunk = std::max(filter.multiple, chunk / filter.multiple * filter.multiple);
  std::vector<std::complex<double>> z;
  std::vector<SampleMax> best;
  for (std::size_t first = u0 > warmup ? u0 - warmup : 0; first < u0 + n; first += chunk) {
    const std::size_t m = std::min(chunk, u0 + n - first);
    best.resize(m);
    if (keep_snr) {
      z.resize(filter.n_templates * m);
      filter.run(std::span(s.x).subspan(first, m), z);
      sample_max(z, filter.n_templates, m, best);
    } else {
      filter.run_max(std::span(s.x).subspan(first, m), best);
    }
    if (first + m > u0) each(first, m, best, z);
  }
}

// Every root attribute but status, in the order written; the one list the writer, the fingerprint
// and --resume's reader share. The unit sizes are not among them (the product does not depend on
// them); they are in the journal's fingerprint.
struct ProductSettings {
  std::string command_line, bank, strain, precision;
  std::string snr_templates;  // "" (no /snr) or "FIRST:LAST"
  std::string snr_samples;    // "" (no /snr) or "FIRST:LAST", strain samples
  double sample_rate = 0, threshold = 0, psd_stretch_seconds = 0;
  std::int64_t chunk_samples = 0;
  CoherentStageSettings coherent;
};

std::vector<io::ProductAttribute> root_attributes(const ProductSettings& p) {
  return {{"format", std::string(peaks_format_name)},
          {"format_version", peaks_format_version},
          {"software", std::string("astrosweep")},
          {"software_version", std::string(version_string())},
          {"command_line", p.command_line},
          {"bank", p.bank},
          {"strain", p.strain},
          {"sample_rate", p.sample_rate},
          {"threshold", p.threshold},
          {"precision", p.precision},
          {"chunk_samples", p.chunk_samples},
          {"psd_stretch_seconds", p.psd_stretch_seconds},
          {"snr_templates", p.snr_templates},
          {"snr_samples", p.snr_samples},
          {"sky_order", std::int64_t{p.coherent.sky_order}},
          {"n_slides", std::int64_t{p.coherent.n_slides}},
          {"slide_seconds", p.coherent.slide_seconds},
          {"cluster_window", p.coherent.cluster_window_seconds},
          {"subsample", std::int64_t{p.coherent.subsample ? 1 : 0}},
          {"sky_stride", std::int64_t{p.coherent.sky_stride}},
          {"skymaps", std::int64_t{p.coherent.skymaps ? 1 : 0}}};
}

std::optional<io::ExistingProduct> inspect_product(const std::string& path) {
  if (!h5::is_hdf5(path)) return std::nullopt;
  try {
    h5::Id file = h5::open_file(path, h5::Access::read);
    if (h5::string_attribute(file.get(), "format") != std::string(peaks_format_name)) return std::nullopt;
    io::ExistingProduct found;
    found.fingerprint = io::stored_results_fingerprint(file.get(), root_attributes({}));
    found.complete = h5::string_attribute(file.get(), "status") == std::string("complete");
    return found;
  } catch (const Error&) {
    return std::nullopt;  // damaged: killed while HDF5 wrote its metadata
  }
}

}  // namespace

int spiir_command(const std::vector<std::string>& args, MPI_Comm comm) {
  po::options_description desc(
      "astrosweep spiir: strain (astrosweep.gwstrain or GWOSC HDF5, whitened here where it is not) through a SPIIR "
      "bank -> per-detector SNR peaks and, for 2-3 detectors, coherent triggers; on any number of MPI ranks");
  desc.add_options()("bank", po::value<std::string>(), "astrosweep.spiirbank file (astrosweep spiirbank)")(
      "strain", po::value<std::vector<std::string>>()->composing(),
      "strain files: astrosweep.gwstrain (whitened or not) and/or GWOSC HDF5 (one detector each); repeat the option "
      "or separate them by commas")("input,i", po::value<std::vector<std::string>>()->composing(),
                                    "the same as --strain (the name the other jobs and the Slurm scripts use)")(
      "output,o", po::value<std::string>(), "peaks file to write (HDF5)")("overwrite", po::bool_switch(),
                                                                          "replace an existing output")(
      "resume", po::bool_switch(), "continue an interrupted run of the same command (docs/reliability.md)")(
      "threshold", po::value<double>()->default_value(4.0), "single-detector SNR above which a peak is kept")(
      "precision", po::value<std::string>()->default_value("fp32"), "arithmetic of the filters: fp32 or fp64")(
      "chunk-seconds", po::value<double>()->default_value(1.0),
      "strain filtered per call (states carried across); peaks are selected per chunk")(
      "templates-per-unit", po::value<long long>()->default_value(0),
      "work units: templates per unit (0: the whole bank)")(
      "unit-seconds", po::value<double>()->default_value(256.0),
      "work units: strain seconds per unit (rounded up to whole chunks); each unit also filters a warm-up of the "
      "longest template before its range")(
      "backend", po::value<std::string>()->default_value("auto"),
      "filtering backend: cuda (the GPU filters), cpu (OpenMP), or auto: cuda where the rank sees a GPU, else cpu")(
      "threads", po::value<int>()->default_value(0), "OpenMP threads per rank (0: the default)")(
      "psd-stretch-seconds", po::value<double>()->default_value(0.0),
      "strain the job whitens: one PSD per stretch of this many seconds (>= 8: two Welch segments), each stretch "
      "whitened by its own; 0: one PSD for the whole file")("sky-order", po::value<int>()->default_value(5),
                                                            "coherent stage: HEALPix order of the sky grid")(
      "n-slides", po::value<int>()->default_value(100), "coherent stage: time-slide trials per candidate")(
      "slide-seconds", po::value<double>()->default_value(0.1), "coherent stage: step between time slides")(
      "cluster-window", po::value<double>()->default_value(1.0),
      "coherent stage: seconds within which the loudest trigger is kept")(
      "subsample", po::bool_switch(),
      "coherent stage: read each detector's SNR at the exact light-travel delay (windowed-sinc interpolation) "
      "rather than at the nearest sample")("sky-stride", po::value<int>()->default_value(1),
                                           "coherent stage: trial k searches the pixels p = k mod N only (1: all)")(
      "skymaps", po::bool_switch(),
      "coherent stage: write every clustered trigger's rho_coh^2 sky map (HEALPix NESTED) under /skymaps")(
      "snr-templates", po::value<std::string>()->default_value(""),
      "keep the complex SNR series of these bank rows under /snr/<IFO> (float32 complex, templates x samples: 8 "
      "bytes each per detector): 'all', K or FIRST:LAST (inclusive); none by default")(
      "snr-gps", po::value<std::string>()->default_value(""),
      "with --snr-templates: keep the series only for the samples at GPS times START:END (default: the whole "
      "strain)")("help,h", "show this help");
  const std::optional<po::variables_map> parsed =
      parse_command_line<po::variables_map>(args, desc, "spiir", comm, [](const po::variables_map& v) { return v; });
  if (!parsed) return 0;  // --help
  const po::variables_map& vm = *parsed;
  AS_EXPECTS(vm.count("bank"), UsageError, "no bank given", "pass --bank BANK.h5");
  AS_EXPECTS(vm.count("strain") || vm.count("input"), UsageError, "no strain given", "pass --strain STRAIN.h5");
  AS_EXPECTS(vm.count("output"), UsageError, "no output given", "pass --output PEAKS.h5");
  const auto precision_name = vm["precision"].as<std::string>();
  AS_EXPECTS(precision_name == "fp32" || precision_name == "fp64", UsageError,
             "--precision must be fp32 or fp64, not '" + precision_name + "'");
  const double threshold = vm["threshold"].as<double>();
  const double chunk_seconds = vm["chunk-seconds"].as<double>();
  const double unit_seconds = vm["unit-seconds"].as<double>();
  const long long templates_per_unit = vm["templates-per-unit"].as<long long>();
  AS_EXPECTS(threshold >= 0 && std::isfinite(threshold), UsageError, "--threshold must be a number >= 0");
  AS_EXPECTS(chunk_seconds > 0 && std::isfinite(chunk_seconds), UsageError, "--chunk-seconds must be positive");
  AS_EXPECTS(unit_seconds > 0 && std::isfinite(unit_seconds), UsageError, "--unit-seconds must be positive",
             "give the strain seconds of a work unit, e.g. --unit-seconds 256");
  AS_EXPECTS(templates_per_unit >= 0, UsageError, "--templates-per-unit must be >= 0 (0: the whole bank)");
  const double psd_stretch_seconds = vm["psd-stretch-seconds"].as<double>();
  AS_EXPECTS(
      psd_stretch_seconds == 0 || (psd_stretch_seconds >= min_stretch_seconds && std::isfinite(psd_stretch_seconds)),
      UsageError,
      format_text("--psd-stretch-seconds must be 0 (one PSD for the whole file) or at least %g s (two Welch "
                  "segments of 4 s), not %g",
                  min_stretch_seconds, psd_stretch_seconds),
      "give e.g. --psd-stretch-seconds 256");
  ProductSettings settings;
  settings.coherent.sky_order = vm["sky-order"].as<int>();
  settings.coherent.n_slides = vm["n-slides"].as<int>();
  settings.coherent.slide_seconds = vm["slide-seconds"].as<double>();
  settings.coherent.cluster_window_seconds = vm["cluster-window"].as<double>();
  settings.coherent.subsample = vm["subsample"].as<bool>();
  settings.coherent.sky_stride = vm["sky-stride"].as<int>();
  settings.coherent.skymaps = vm["skymaps"].as<bool>();
  settings.coherent.precision = precision_name == "fp32" ? Precision::fp32 : Precision::fp64;
  settings.coherent.threads = vm["threads"].as<int>();
  check_coherent_settings(settings.coherent);
  run::CommonOptions common;
  common.output = vm["output"].as<std::string>();
  common.overwrite = vm["overwrite"].as<bool>();
  common.resume = vm["resume"].as<bool>();
  common.backend.kind = parse_backend(vm["backend"].as<std::string>());
  common.backend.threads = vm["threads"].as<int>();
  common.command_line = command_line_text("spiir", args);
  const auto bank_path = vm["bank"].as<std::string>();
  std::vector<std::string> strain_paths;
  std::vector<std::string> strain_items;
  for (const char* option : {"strain", "input"})
    if (vm.count(option))
      for (const auto& item : vm[option].as<std::vector<std::string>>()) strain_items.push_back(item);
  for (const auto& item : strain_items)
    for (std::size_t from = 0; from <= item.size();) {
      const std::size_t comma = std::min(item.find(',', from), item.size());
      if (comma > from) strain_paths.push_back(item.substr(from, comma - from));
      from = comma + 1;
    }
  AS_EXPECTS(!strain_paths.empty(), UsageError, "--strain names no file", "pass --strain STRAIN.h5");
  std::string strain_list;
  for (const auto& p : strain_paths) strain_list += (strain_list.empty() ? "" : ",") + p;
  run::Lifecycle run("spiir", common, comm);  // the output lock and check, before the input is read
  const std::string& output = common.output;

  // Every rank reads and whitens the whole strain (a unit reads any time range of every detector);
  // the same input and code give the same arrays everywhere, and the same error on every rank.
  const auto bank = read_spiir_bank(bank_path);
  const SnrSelection snr_selection = parse_snr_templates(vm["snr-templates"].as<std::string>(), bank.n_templates());
  auto inputs = read_strain_inputs(strain_paths);
  for (const auto& in : inputs) {
    const auto& d = in.strain;
    const std::string& strain_path = in.path;
    AS_EXPECTS(d.sample_rate == bank.sample_rate_max, InputError,
               format_text("bank '%s' is for %g Hz but strain file '%s' is sampled at %g Hz", bank_path.c_str(),
                           bank.sample_rate_max, strain_path.c_str(), d.sample_rate),
               "make a bank with --sample-rate equal to the strain's rate");
    AS_EXPECTS(bank.sigmasq.count(d.ifo) > 0, InputError,
               "bank '" + bank_path + "' has no norms for detector " + d.ifo + " of '" + strain_path + "'",
               "make the bank with --ifos naming every detector of the strain file");
    const auto known = known_detectors();
    AS_EXPECTS(inputs.size() == 1 || (inputs.size() <= 3 && std::count(known.begin(), known.end(), d.ifo) == 1),
               InputError,
               "strain file '" + strain_path + "': the coherent stage combines 2 or 3 of H1, L1, V1, not " +
                   std::to_string(inputs.size()) + " detectors with " + d.ifo,
               "give the strain of H1, L1 and/or V1 (or one detector alone for its peaks)");
  }
  whiten_inputs(inputs, bank.f_low, psd_stretch_seconds);  // after the checks: whitening takes a while
  std::vector<DetectorStrain> detectors;
  for (auto& in : inputs) {
    const std::string how = !in.whitened_here ? std::string("whitened")
                            : in.stretch_psds.empty()
                                ? format_text("whitened here (median-Welch PSD, %.2f s)", in.whitening_seconds)
                                : format_text("whitened here (median-Welch PSDs of %zu stretches of %g s, %.2f s)",
                                              in.stretch_psds.size(), psd_stretch_seconds, in.whitening_seconds);
    run.log(format_text("%s from '%s': %s, %zu s masked (data quality or NaN)%s", in.strain.ifo.c_str(),
                        in.path.c_str(), how.c_str(), in.masked_seconds,
                        in.injection_seconds
                            ? format_text(", %zu s with hardware injections (Injmask)", in.injection_seconds).c_str()
                            : ""));
    detectors.push_back(std::move(in.strain));  // in keeps its path and counts for the product
  }
  const auto precision = precision_name == "fp32" ? Precision::fp32 : Precision::fp64;
  const BackendOptions options = run.backend_options();
  settings.coherent.backend = options;  // the sky search runs where the filtering does
  // A fresh filter per detector and unit: states from zero. `describe` (the first pass's) gets
  // what the backend is; the second pass makes filters on several threads at once, with none.
  std::string described;
  const auto make_filter = [&](const SpiirBank& b, const BackendOptions& o, std::string* describe) {
    ChunkFilter f;
    f.n_templates = b.n_templates();
    if (const RateBank* single = b.single_rate()) {
      std::shared_ptr<SpiirBackend> backend = make_spiir_backend(*single, precision, o);
      if (describe) *describe = backend->describe();
      f.run = [backend](std::span<const double> x, std::span<std::complex<double>> z) { backend->filter(x, z); };
      f.run_max = [backend](std::span<const double> x, std::span<SampleMax> best) { backend->filter_max(x, best); };
    } else {
      // Levels filtered, interpolated and summed where the backend runs (on a GPU, only the
      // per-sample maximum comes down in the first pass).
      std::shared_ptr<MultirateBackend> stream = make_multirate_backend(b, precision, o);
      if (describe) *describe = stream->describe();
      f.latency = stream->latency();
      f.multiple = stream->chunk_multiple();
      f.run = [stream](std::span<const double> x, std::span<std::complex<double>> z) { stream->filter(x, z); };
      f.run_max = [stream](std::span<const double> x, std::span<SampleMax> best) { stream->filter_max(x, best); };
    }
    return f;
  };
  const ChunkFilter whole = make_filter(bank, options, &described);  // checks the backend before anything is written
  const std::size_t n_total = detectors.front().strain.size();
  std::size_t chunk = static_cast<std::size_t>(std::max(1.0, std::round(chunk_seconds * bank.sample_rate_max)));
  chunk = std::max(whole.multiple, chunk / whole.multiple * whole.multiple);
  UnitGrid grid;
  grid.n_templates = bank.n_templates();
  grid.templates_per_unit = templates_per_unit == 0
                                ? grid.n_templates
                                : std::min(grid.n_templates, static_cast<std::size_t>(templates_per_unit));
  const double unit_samples = std::ceil(unit_seconds * bank.sample_rate_max / static_cast<double>(chunk));
  AS_EXPECTS(unit_samples < 1e15, UsageError, "--unit-seconds is too large");
  grid.unit_samples = std::max<std::size_t>(1, static_cast<std::size_t>(unit_samples)) * chunk;
  grid.n_stream = (n_total + whole.latency + whole.multiple - 1) / whole.multiple * whole.multiple;
  // The warm-up: the filters' settling (at least the longest template) and the stream's latency, in
  // whole stream units, so a unit's states (and the multi-rate levels' phases) are those of a run
  // from the start.
  const std::size_t span = longest_template(bank);
  const std::size_t settle = std::max(span, settling_samples(bank, warmup_tolerance));
  const std::size_t warmup = (settle + whole.latency + whole.multiple - 1) / whole.multiple * whole.multiple;
  std::vector<DetectorStream> streams;
  for (const auto& d : detectors) streams.push_back(detector_stream(d, span, grid.n_stream));

  settings.command_line = common.command_line;
  settings.bank = bank_path;
  settings.strain = strain_list;
  settings.precision = precision_name;
  settings.sample_rate = bank.sample_rate_max;
  settings.threshold = threshold;
  settings.chunk_samples = static_cast<std::int64_t>(chunk);
  settings.psd_stretch_seconds = psd_stretch_seconds;
  const std::string snr_gps = vm["snr-gps"].as<std::string>();
  AS_EXPECTS(snr_gps.empty() || snr_selection.enabled, UsageError, "--snr-gps needs --snr-templates",
             "name the templates whose SNR series to keep, e.g. --snr-templates all");
  const SnrWindow snr_window = snr_gps.empty()
                                   ? SnrWindow{0, n_total}
                                   : parse_snr_gps(snr_gps, detectors.front().gps_start_s,
                                                   detectors.front().gps_start_ns, bank.sample_rate_max, n_total);
  if (snr_selection.enabled) {
    settings.snr_templates = format_text("%zu:%zu", snr_selection.first, snr_selection.first + snr_selection.count - 1);
    settings.snr_samples = format_text("%zu:%zu", snr_window.first, snr_window.first + snr_window.count - 1);
  }
  const auto attributes = root_attributes(settings);
  run::ResumeRules rules{"finished unit", inspect_product, io::results_fingerprint(attributes), {}};
  rules.journal_fingerprint = io::with_input_files(rules.product_fingerprint, strain_list + "\n" + bank_path);
  rules.journal_fingerprint.emplace_back("templates_per_unit", std::to_string(grid.templates_per_unit));
  rules.journal_fingerprint.emplace_back("unit_samples", std::to_string(grid.unit_samples));
  const std::uint64_t n_units = grid.n_units();
  run::JournalledItems resume;  // rank 0
  const run::Start start = run.begin(rules, [&](const io::ResumePoint& point) {
    resume = run::journalled_items(point, output, n_units, "units");
    return resume.note;
  });
  const std::string spool_dir = spiir_spool_directory(output);
  if (start.complete()) {
    // A run stopped after completing the product but before removing its spool left it behind.
    mpi::on_root_then_share_failure(comm, [&] {
      if (!std::filesystem::exists(spool_dir)) return;
      run.log("removing the spool '" + spool_dir + "' that a run stopped after completing the product left");
      remove_spiir_spool(spool_dir);
    });
    return 0;
  }
  int attempt = 1;
  std::vector<WorkUnit> units;
  double total_work = 0;
  mpi::on_root_then_share_failure(comm, [&] {
    if (!start.resuming()) {
      remove_spiir_spool(spool_dir);
      h5::Id file = h5::open_file(output, h5::Access::create_truncate);
      io::write_root_attributes(file.get(), attributes);
      h5::set_attribute(file.get(), "status", std::string("incomplete"));
      h5::close_file(file);
    }
    attempt = next_spiir_spool_attempt(spool_dir);
    for (std::uint64_t u = 0; u < n_units; ++u) {
      if (!resume.done.empty() && resume.done[u]) continue;
      const double cost = static_cast<double>(grid.n_unit_templates(u) * (grid.n_unit_samples(u) + warmup));
      units.push_back({u, u, 1, 0, 0, cost});
      total_work += cost;
    }
  });
  mpi::broadcast_value(comm, attempt);
  std::uint64_t n_remaining = units.size();
  mpi::broadcast_value(comm, n_remaining);
  run.log(
      format_text("%zu templates x %zu detectors, %zu samples at %g Hz; %s; %llu work units on %d ranks (%zu "
                  "templates x %.1f s each, warm-up %.1f s; %llu in all)",
                  bank.n_templates(), detectors.size(), n_total, bank.sample_rate_max, described.c_str(),
                  static_cast<unsigned long long>(n_remaining), run.size(), grid.templates_per_unit,
                  static_cast<double>(grid.unit_samples) / bank.sample_rate_max,
                  static_cast<double>(warmup) / bank.sample_rate_max, static_cast<unsigned long long>(n_units)));

  // --snr-templates: every rank writes its units' SNR series into the product (made or reopened
  // here, on every rank) as it filters them.
  std::optional<SnrSeriesWriter> snr_writer;
  if (snr_selection.enabled) {
    std::vector<std::string> ifos;
    for (const auto& d : detectors) ifos.push_back(d.ifo);
    snr_writer.emplace(output, comm,
                       SnrSeriesLayout{ifos, snr_selection, snr_window.first, snr_window.count, bank.sample_rate_max,
                                       detectors.front().gps_start_s, detectors.front().gps_start_ns});
  }
  SpiirSpoolWriter spool(spool_dir, attempt, run.rank());
  ProgressReporter progress("spiir", n_remaining, "units", total_work, "template-samples", 10);
  double units_done = 0, filter_seconds = 0;
  const auto finished = run::run_units(run, std::move(units), run.root() ? &progress : nullptr, [&](const WorkUnit& u) {
    const auto t0 = std::chrono::steady_clock::now();
    const SpiirBank block = template_block(bank, grid.first_template(u.id), grid.n_unit_templates(u.id));
    const std::size_t u0 = grid.first_sample(u.id), n = grid.n_unit_samples(u.id);
    UnitSamples samples(detectors.size());
    for (std::size_t d = 0; d < detectors.size(); ++d) {
      const ChunkFilter f = make_filter(block, options, nullptr);
      AS_ASSERT(f.latency == whole.latency && f.multiple == whole.multiple);
      filter_range(streams[d], f, u0, n, warmup, chunk, snr_writer.has_value(),
                   [&](std::size_t first, std::size_t m, std::span<const SampleMax> best,
                       std::span<const std::complex<double>> z) {
                     std::vector<bool> usable(m, false);
                     for (std::size_t i = 0; i < m; ++i) {
                       const std::size_t s = first + i;
                       usable[i] = s >= u0 && s < u0 + n && s >= f.latency && s - f.latency < n_total &&
                                   streams[d].usable[s - f.latency];
                     }
                     append_sample_best(best, usable, threshold, static_cast<std::int64_t>(first),
                                        grid.first_template(u.id), samples[d]);
                     if (snr_writer) {
                       const auto lat = static_cast<std::int64_t>(f.latency);
                       snr_writer->write(d, grid.first_template(u.id), f.n_templates, static_cast<std::int64_t>(first),
                                         m, f.latency, static_cast<std::int64_t>(u0) - lat,
                                         static_cast<std::int64_t>(u0 + n) - lat, z);
                     }
                   });
    }
    if (snr_writer) snr_writer->sync();  // the unit's /snr rows durable before it is journalled
    spool.append(u.id, samples);
    spool.sync();  // durable before the unit is reported, hence journalled
    units_done += 1;
    filter_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  });
  run::stop_if_interrupted(
      run, finished, n_remaining, resume, n_units, "units",
      [&] {
        if (run.root()) progress.print_line(true);
      },
      "its finished units (and their samples in '" + spool_dir + "') are");
  if (run.root()) progress.print_line(true);
  if (snr_writer) snr_writer->close();  // collective, before rank 0 reopens the product alone

  // Rank 0 merges the units into the peaks and writes them; the coherent stage runs on every rank
  // (coherent_distribution.hpp); rank 0 writes its triggers and completes the product.
  std::string summary;
  std::optional<h5::Id> file;  // rank 0: the product, open from the peaks to its completion
  CoherentStageInput network{
      bank_path, {}, detectors.front().gps_start_s, detectors.front().gps_start_ns, bank.sample_rate_max, n_total,
      {},        {}};
  mpi::on_root_then_share_failure(comm, [&] {
    const SpiirSpoolContents contents = read_spiir_spool(spool_dir, detectors.size());
    for (const auto& note : contents.notes) run.log("spool: " + note);
    std::vector<std::vector<SampleBest>> merged(detectors.size());
    for (std::uint64_t u = 0; u < n_units; ++u) {
      const auto it = contents.units.find(u);
      AS_EXPECTS(
          it != contents.units.end(), OutputError,
          "the spool '" + spool_dir + "' lacks unit " + std::to_string(u) + ", which the journal records as done",
          "the spool was changed by hand: start over with --overwrite");
      for (std::size_t d = 0; d < detectors.size(); ++d)
        merged[d].insert(merged[d].end(), it->second[d].begin(), it->second[d].end());
    }
    file.emplace(h5::open_file(output, h5::Access::read_write));
    // Groups a run stopped while writing them left behind.
    for (const char* stale : {"detectors", "peaks", "triggers", "background", "skymaps"})
      if (h5::exists(file->get(), stale)) h5::check(H5Ldelete(file->get(), stale, H5P_DEFAULT), "H5Ldelete");
    // The PSDs this run whitened with (every rank estimated the same; rank 0's are written), so a
    // bank's norms can be made from the data's own PSD (spiirbank --psd PRODUCT).
    for (std::size_t di = 0; di < detectors.size(); ++di) {
      const auto& in = inputs[di];
      if (in.psd) write_estimated_psd(file->get(), detectors[di], *in.psd);
      if (!in.stretch_psds.empty())
        write_stretch_psds(file->get(), detectors[di], psd_stretch_seconds, in.psd_stretch_starts, in.stretch_psds);
    }
    h5::Id peaks = h5::create_group(file->get(), "peaks");
    for (std::size_t di = 0; di < detectors.size(); ++di) {
      const auto& d = detectors[di];
      PeakRows rows;
      const std::int64_t start_ns = d.gps_start_s * 1000000000LL + d.gps_start_ns;
      for (const auto& p : merged_peaks(std::move(merged[di]), chunk, threshold)) {
        const std::int64_t sample = p.sample - static_cast<std::int64_t>(whole.latency);
        const double seconds = static_cast<double>(sample) / d.sample_rate +
                               bank.templates[static_cast<std::size_t>(p.template_index)].end_offset;
        const std::int64_t end = start_ns + std::llround(seconds * 1e9);
        rows.end_s.push_back(end / 1000000000LL);
        rows.end_ns.push_back(end % 1000000000LL);
        rows.template_index.push_back(p.template_index);
        rows.sample.push_back(sample);
        rows.snr.push_back(std::abs(p.z));
        rows.phase.push_back(std::arg(p.z));
      }
      network.ifos.push_back(d.ifo);
      network.peak_samples.push_back(rows.sample);
      network.peak_templates.push_back(rows.template_index);
      h5::Id g = h5::create_group(peaks.get(), d.ifo);
      const auto& in = inputs[di];
      h5::set_attribute(g.get(), "masked_seconds", static_cast<std::int64_t>(in.masked_seconds));
      h5::set_attribute(g.get(), "whitened_by_job", std::int64_t{in.whitened_here ? 1 : 0});
      h5::set_attribute(g.get(), "hardware_injection_seconds", static_cast<std::int64_t>(in.injection_seconds));
      h5::write_column(g.get(), "end_time_gps_s", rows.end_s, "s",
                       "GPS seconds of the coalescence: peak sample time plus the template's end_offset");
      h5::write_column(g.get(), "end_time_gps_ns", rows.end_ns, "ns", "nanoseconds to add to end_time_gps_s");
      h5::write_column(g.get(), "template", rows.template_index, "", "row of the template in the bank's /templates");
      h5::write_column(g.get(), "sample", rows.sample, "", "index of the peak sample in the strain file");
      h5::write_column(g.get(), "snr", rows.snr, "", "|z|: the single-detector SNR of the peak");
      h5::write_column(g.get(), "phase", rows.phase, "rad",
                       "arg z (the complex conjugate of the usual matched-filter phase convention)");
      summary += format_text("%s%s %zu", summary.empty() ? "" : ", ", d.ifo.c_str(), rows.snr.size());
    }
  });

  // The coherent stage over the merged peaks: 2 or 3 detectors (H1, L1, V1); one detector's run
  // has peaks alone. Its second pass filters each candidate's template around it (tasks of
  // coherent_second_pass.hpp), on every rank, as the first pass filters its units.
  std::optional<CoherentStagePlan> plan;
  std::optional<CoherentSkyMaps> maps;
  std::vector<SecondPassTask> tasks;
  RankCoherentStage stage;
  // Ranges on a grid of a quarter warm-up, so that the tasks of one event share them (batches).
  SecondPassFilter second_pass{
      whole.latency, whole.multiple, warmup, grid.n_stream, second_pass_granule(warmup, whole.multiple), {}, 1, 0};
  // The CPU backend filters a template on one thread: batches of one template run side by side, a
  // thread each. A GPU filters a batch's templates at once, up to the first pass's block (whose
  // SNR buffers fitted its memory).
  BackendOptions task_options = options;
  if (resolve_backend(options.kind) != BackendKind::cuda) {
    second_pass.threads = options.threads > 0 ? options.threads : omp_get_max_threads();
    second_pass.max_batch_templates = 1;
    task_options.threads = 1;
  } else {
    second_pass.max_batch_templates = grid.templates_per_unit;
  }
  second_pass.run_batch = [&](std::size_t d, std::span<const std::size_t> templates, std::size_t first, std::size_t end,
                              const SecondPassFilter::Each& each) {
    filter_batch(
        bank, templates, streams[d].x, first, end, chunk,
        [&](const RateBank& r) { return make_spiir_backend(r, precision, task_options); }, each,
        [&](const SpiirBank& b) { return make_multirate_backend(b, precision, task_options); });
  };
  if (detectors.size() >= 2) {
    network.peak_samples.resize(detectors.size());
    network.peak_templates.resize(detectors.size());
    for (auto& v : network.peak_samples) mpi::broadcast_vector(comm, v);
    for (auto& v : network.peak_templates) mpi::broadcast_vector(comm, v);
    network.ifos.clear();
    for (const auto& d : detectors) network.ifos.push_back(d.ifo);
    plan.emplace(plan_coherent_stage(bank, network, settings.coherent));
    maps.emplace(network, settings.coherent, *plan);
    tasks = group_second_pass(plan->candidates, plan->before, plan->after, static_cast<std::int64_t>(warmup));
    std::vector<std::size_t> every(tasks.size());
    std::iota(every.begin(), every.end(), std::size_t{0});
    const std::vector<SecondPassBatch> batches = batch_second_pass(tasks, every, second_pass);
    const std::uint64_t second_samples = second_pass_samples(batches);
    std::uint64_t first_samples = 0;
    for (std::uint64_t u = 0; u < n_units; ++u)
      first_samples += grid.n_unit_templates(u) * (grid.n_unit_samples(u) + std::min(warmup, grid.first_sample(u)));
    run.log(format_text(
        "coherent stage: %zu candidates (%zu without margin) in %zu second-pass tasks (%zu batches) on %d ranks: "
        "%.3g template-samples per detector (%.2f%% of the first pass's %.3g)",
        plan->candidates.size(), plan->dropped, tasks.size(), batches.size(), run.size(),
        static_cast<double>(second_samples),
        100.0 * static_cast<double>(second_samples) / static_cast<double>(std::max<std::uint64_t>(1, first_samples)),
        static_cast<double>(first_samples)));
    stage = run_coherent_stage_on_ranks(comm, bank, network, settings.coherent, *plan, tasks, second_pass, *maps);
    if (stage.interrupted)
      run.interrupted([&] { file.reset(); },
                      format_text("%llu of %llu units done, the coherent stage stopped",
                                  static_cast<unsigned long long>(n_units), static_cast<unsigned long long>(n_units)),
                      "its finished units (and their samples in '" + spool_dir + "') are");
  }

  mpi::on_root_then_share_failure(comm, [&] {
    if (plan) {
      // /skymaps: the clustered triggers' windows (rank 0's own, or other ranks' tasks again).
      const WindowsOf windows_of = [&](std::span<const std::size_t> kept) {
        return windows_on_root(stage, *plan, network.ifos, tasks, second_pass, kept);
      };
      const auto written = write_coherent_triggers(file->get(), bank, network, settings.coherent, *plan, stage.results,
                                                   *maps, windows_of);
      summary += format_text("; coherent: %zu candidates (%zu without margin), %zu triggers", written.candidates,
                             written.dropped, written.triggers);
    }
    // Complete only once everything is written; the spool goes after, and a run stopped between
    // the two leaves a complete product whose spool the next --resume removes.
    h5::set_attribute(file->get(), "status", std::string("complete"));
    h5::close_file(*file);
    file.reset();
    remove_spiir_spool(spool_dir);
  });
  run.finished();
  run.print_summary("rank  units  filter[s]  tasks  batches  coherent[s]\n",
                    format_text("%4d %6.0f %10.3f %6zu %8zu %12.3f\n", run.rank(), units_done, filter_seconds,
                                stage.my_tasks, stage.my_batches, stage.my_seconds),
                    stdout);
  if (run.root()) std::printf("peaks: %s; product: %s\n", summary.c_str(), output.c_str());
  return 0;
}

}  // namespace spiir

namespace jobs {
const Job& spiir() {
  static const Job job{"spiir", "SPIIR gravitational-wave filtering: whitened strain to per-detector SNR peaks", false,
                       spiir::spiir_command};
  return job;
}
}  // namespace jobs

}  // namespace astrosweep
