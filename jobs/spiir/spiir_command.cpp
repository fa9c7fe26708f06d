// `astrosweep spiir`, this version's stage of spec §§4, 6, 7, 9, 10 (docs/spiir.md): strain in the
// astrosweep.gwstrain layout or GWOSC files, whitened by the job where it is not (strain_input.hpp),
// filtered through a single- or multi-rate bank by the OpenMP backend, chunk after chunk with the
// states carried; each detector's peaks per chunk (spec §9's selection) and, for 2-3 detectors,
// the coherent triggers and their time-slide background (coherent_triggers.cpp), written to an
// astrosweep.spiir HDF5 file. One process; the MPI work units are still to come (issue 13).
#include <algorithm>
#include <boost/program_options.hpp>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>

#include "chunk_peaks.hpp"
#include "coherent_triggers.hpp"
#include "core/backend.hpp"
#include "core/command_line.hpp"
#include "core/error.hpp"
#include "core/job.hpp"
#include "core/text.hpp"
#include "core/version.hpp"
#include "detector_geometry.hpp"
#include "gw_strain.hpp"
#include "io/h5.hpp"
#include "io/output_lock.hpp"
#include "io/output_path.hpp"
#include "io/product_attributes.hpp"
#include "multirate_filter.hpp"
#include "spiir_backend.hpp"
#include "spiir_bank.hpp"
#include "strain_input.hpp"

namespace astrosweep {

namespace po = boost::program_options;

namespace spiir {

namespace {

// Spec §10's product: the per-detector peaks and, for 2-3 detectors, the coherent triggers.
inline constexpr const char* peaks_format_name = "astrosweep.spiir";
inline constexpr std::int64_t peaks_format_version = 1;

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
};

// Filters one detector through the bank and collects its peaks.
// `sink`, when given, also receives every chunk's SNR (the coherent stage's second pass).
PeakRows detector_peaks(const DetectorStrain& d, const SpiirBank& bank, const ChunkFilter& filter, double threshold,
                        std::size_t chunk, const SnrSink& sink = {}) {
  const std::size_t n_total = d.strain.size();
  // Usable samples: past the warm-up (the longest template) and no gap within a template length on
  // either side (spec §6: before, the gap is inside the template; after, the whitening's roll-off).
  std::size_t span = 1;
  for (const auto& t : bank.templates)
    span = std::max(span, static_cast<std::size_t>(std::ceil(t.duration * bank.sample_rate_max)));
  const std::size_t n_stream = (n_total + filter.latency + filter.multiple - 1) / filter.multiple * filter.multiple;
  std::vector<double> x(n_stream, 0.0);
  std::vector<bool> usable(n_total, true);
  std::size_t last_gap = SIZE_MAX;
  for (std::size_t n = 0; n < n_total; ++n) {
    const bool gap = !std::isfinite(d.strain[n]);
    x[n] = gap ? 0.0 : static_cast<double>(d.strain[n]);
    if (gap) last_gap = n;
    usable[n] = n + 1 >= span && (last_gap == SIZE_MAX || n - last_gap >= span);
  }
  for (std::size_t n = n_total, next_gap = SIZE_MAX; n-- > 0;) {
    if (!std::isfinite(d.strain[n])) next_gap = n;
    if (next_gap != SIZE_MAX && next_gap - n < span) usable[n] = false;
  }
  chunk = std::max(filter.multiple, chunk / filter.multiple * filter.multiple);
  PeakRows rows;
  const std::int64_t start_ns = d.gps_start_s * 1000000000LL + d.gps_start_ns;
  std::vector<std::complex<double>> z;
  for (std::size_t first = 0; first < n_stream; first += chunk) {
    const std::size_t n = std::min(chunk, n_stream - first);
    z.resize(filter.n_templates * n);
    filter.run(std::span(x).subspan(first, n), z);
    if (sink) sink(static_cast<std::int64_t>(first) - static_cast<std::int64_t>(filter.latency), n, z);
    std::vector<bool> chunk_usable(n, false);
    for (std::size_t i = 0; i < n; ++i) {
      const std::size_t s = first + i;
      chunk_usable[i] = s >= filter.latency && s - filter.latency < n_total && usable[s - filter.latency];
    }
    for (const auto& p : chunk_peaks(z, filter.n_templates, n, chunk_usable, threshold)) {
      const std::size_t sample = first + p.sample - filter.latency;
      const double seconds = static_cast<double>(sample) / d.sample_rate + bank.templates[p.template_index].end_offset;
      const std::int64_t end = start_ns + std::llround(seconds * 1e9);
      rows.end_s.push_back(end / 1000000000LL);
      rows.end_ns.push_back(end % 1000000000LL);
      rows.template_index.push_back(static_cast<std::int64_t>(p.template_index));
      rows.sample.push_back(static_cast<std::int64_t>(sample));
      rows.snr.push_back(std::abs(p.z));
      rows.phase.push_back(std::arg(p.z));
    }
  }
  return rows;
}

template <class T>
void write_column(hid_t group, const char* name, const std::vector<T>& values, const char* units,
                  const char* description) {
  h5::Id ds = h5::described(h5::create_dataset(group, name, h5::native_type<T>(), {values.size()}), units, description);
  h5::write_rows(ds.get(), h5::native_type<T>(), 0, values.size(), values.data());
}

}  // namespace

int spiir_command(const std::vector<std::string>& args, MPI_Comm /*comm: one process*/) {
  po::options_description desc(
      "astrosweep spiir: strain (astrosweep.gwstrain or GWOSC HDF5, whitened here where it is not) through a SPIIR "
      "bank -> per-detector SNR peaks");
  desc.add_options()("bank", po::value<std::string>(), "astrosweep.spiirbank file (astrosweep spiirbank)")(
      "strain", po::value<std::vector<std::string>>()->composing(),
      "strain files: astrosweep.gwstrain (whitened or not) and/or GWOSC HDF5 (one detector each); repeat the option "
      "or separate them by commas")("output,o", po::value<std::string>(), "peaks file to write (HDF5)")(
      "overwrite", po::bool_switch(), "replace an existing output")(
      "threshold", po::value<double>()->default_value(4.0), "single-detector SNR above which a peak is kept")(
      "precision", po::value<std::string>()->default_value("fp32"), "arithmetic of the filters: fp32 or fp64")(
      "chunk-seconds", po::value<double>()->default_value(1.0), "strain filtered per call (states carried across)")(
      "backend", po::value<std::string>()->default_value("auto"), "auto, cpu or cuda (no CUDA backend yet)")(
      "threads", po::value<int>()->default_value(0), "OpenMP threads (0: the default)")(
      "sky-order", po::value<int>()->default_value(5), "coherent stage: HEALPix order of the sky grid")(
      "n-slides", po::value<int>()->default_value(100), "coherent stage: time-slide trials per candidate")(
      "slide-seconds", po::value<double>()->default_value(0.1), "coherent stage: step between time slides")(
      "cluster-window", po::value<double>()->default_value(1.0),
      "coherent stage: seconds within which the loudest "
      "trigger is kept")("help,h", "show this help");
  // One process: MPI_COMM_SELF, so --help prints here and an error is this process's alone.
  const std::optional<po::variables_map> parsed = parse_command_line<po::variables_map>(
      args, desc, "spiir", MPI_COMM_SELF, [](const po::variables_map& v) { return v; });
  if (!parsed) return 0;  // --help
  const po::variables_map& vm = *parsed;
  AS_EXPECTS(vm.count("bank"), UsageError, "no bank given", "pass --bank BANK.h5");
  AS_EXPECTS(vm.count("strain"), UsageError, "no strain given", "pass --strain STRAIN.h5");
  AS_EXPECTS(vm.count("output"), UsageError, "no output given", "pass --output PEAKS.h5");
  const auto precision_name = vm["precision"].as<std::string>();
  AS_EXPECTS(precision_name == "fp32" || precision_name == "fp64", UsageError,
             "--precision must be fp32 or fp64, not '" + precision_name + "'");
  const double threshold = vm["threshold"].as<double>();
  const double chunk_seconds = vm["chunk-seconds"].as<double>();
  AS_EXPECTS(threshold >= 0 && std::isfinite(threshold), UsageError, "--threshold must be a number >= 0");
  AS_EXPECTS(chunk_seconds > 0 && std::isfinite(chunk_seconds), UsageError, "--chunk-seconds must be positive");
  CoherentStageSettings coherent;
  coherent.sky_order = vm["sky-order"].as<int>();
  coherent.n_slides = vm["n-slides"].as<int>();
  coherent.slide_seconds = vm["slide-seconds"].as<double>();
  coherent.cluster_window_seconds = vm["cluster-window"].as<double>();
  coherent.precision = precision_name == "fp32" ? Precision::fp32 : Precision::fp64;
  coherent.threads = vm["threads"].as<int>();
  check_coherent_settings(coherent);
  BackendOptions options;
  options.kind = parse_backend(vm["backend"].as<std::string>());
  options.threads = vm["threads"].as<int>();
  const auto bank_path = vm["bank"].as<std::string>();
  std::vector<std::string> strain_paths;
  for (const auto& item : vm["strain"].as<std::vector<std::string>>())
    for (std::size_t from = 0; from <= item.size();) {
      const std::size_t comma = std::min(item.find(',', from), item.size());
      if (comma > from) strain_paths.push_back(item.substr(from, comma - from));
      from = comma + 1;
    }
  AS_EXPECTS(!strain_paths.empty(), UsageError, "--strain names no file", "pass --strain STRAIN.h5");
  std::string strain_list;
  for (const auto& p : strain_paths) strain_list += (strain_list.empty() ? "" : ",") + p;
  const auto output = vm["output"].as<std::string>();
  io::check_output_path(output, true);
  io::OutputLock lock = io::OutputLock::acquire(output, command_line_text("spiir", args));
  if (!lock.held()) std::fprintf(stderr, "[astrosweep] spiir: warning: %s\n", lock.unsupported().c_str());
  io::check_output_path(output, vm["overwrite"].as<bool>());

  const auto bank = read_spiir_bank(bank_path);
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
  whiten_inputs(inputs, bank.f_low);  // after the checks: whitening a long file takes a while
  std::vector<DetectorStrain> detectors;
  for (auto& in : inputs) {
    const std::string how =
        in.whitened_here ? format_text("whitened here (median-Welch PSD, %.2f s)", in.whitening_seconds) : "whitened";
    std::fprintf(stderr, "[astrosweep] spiir: %s from '%s': %s, %zu s masked (data quality or NaN)%s\n",
                 in.strain.ifo.c_str(), in.path.c_str(), how.c_str(), in.masked_seconds,
                 in.injection_seconds
                     ? format_text(", %zu s with hardware injections (Injmask)", in.injection_seconds).c_str()
                     : "");
    detectors.push_back(std::move(in.strain));  // in keeps its path and counts for the product
  }
  const auto precision = precision_name == "fp32" ? Precision::fp32 : Precision::fp64;
  // A fresh filter per detector: states from zero.
  std::string described;
  const auto make_filter = [&] {
    ChunkFilter f;
    f.n_templates = bank.n_templates();
    if (const RateBank* single = bank.single_rate()) {
      std::shared_ptr<SpiirBackend> backend = make_spiir_backend(*single, precision, options);
      described = backend->describe();
      f.run = [backend](std::span<const double> x, std::span<std::complex<double>> z) { backend->filter(x, z); };
    } else {
      auto stream = std::make_shared<MultirateStream>(bank, [&](const RateBank& r) {
        auto backend = make_spiir_backend(r, precision, options);
        described = backend->describe();
        return backend;
      });
      f.latency = stream->latency();
      f.multiple = stream->chunk_multiple();
      f.run = [stream](std::span<const double> x, std::span<std::complex<double>> z) { stream->filter(x, z); };
      described += format_text(", %zu rates (latency %zu samples)", bank.rates.size(), f.latency);
    }
    return f;
  };
  make_filter();  // checks the backend before anything is written
  const auto chunk = static_cast<std::size_t>(std::max(1.0, std::round(chunk_seconds * bank.sample_rate_max)));
  std::fprintf(stderr, "[astrosweep] spiir: %zu templates x %zu detectors, %zu samples at %g Hz; %s\n",
               bank.n_templates(), detectors.size(), detectors.front().strain.size(), bank.sample_rate_max,
               described.c_str());

  try {
    h5::Id file = h5::open_file(output, h5::Access::create_truncate);
    io::write_root_attributes(file.get(), {{"format", std::string(peaks_format_name)},
                                           {"format_version", peaks_format_version},
                                           {"software", std::string("astrosweep")},
                                           {"software_version", std::string(version_string())},
                                           {"command_line", command_line_text("spiir", args)},
                                           {"bank", bank_path},
                                           {"strain", strain_list},
                                           {"sample_rate", bank.sample_rate_max},
                                           {"threshold", threshold},
                                           {"precision", precision_name},
                                           {"chunk_samples", static_cast<std::int64_t>(chunk)}});
    h5::Id peaks = h5::create_group(file.get(), "peaks");
    std::string summary;
    CoherentStageInput network{bank_path,
                               {},
                               detectors.front().gps_start_s,
                               detectors.front().gps_start_ns,
                               bank.sample_rate_max,
                               detectors.front().strain.size(),
                               {},
                               {}};
    for (const auto& d : detectors) {
      const auto rows = detector_peaks(d, bank, make_filter(), threshold, chunk);
      network.ifos.push_back(d.ifo);
      network.peak_samples.push_back(rows.sample);
      network.peak_templates.push_back(rows.template_index);
      h5::Id g = h5::create_group(peaks.get(), d.ifo);
      const auto& in = inputs[static_cast<std::size_t>(&d - detectors.data())];
      h5::set_attribute(g.get(), "masked_seconds", static_cast<std::int64_t>(in.masked_seconds));
      h5::set_attribute(g.get(), "whitened_by_job", std::int64_t{in.whitened_here ? 1 : 0});
      h5::set_attribute(g.get(), "hardware_injection_seconds", static_cast<std::int64_t>(in.injection_seconds));
      write_column(g.get(), "end_time_gps_s", rows.end_s, "s",
                   "GPS seconds of the coalescence: peak sample time plus the template's end_offset");
      write_column(g.get(), "end_time_gps_ns", rows.end_ns, "ns", "nanoseconds to add to end_time_gps_s");
      write_column(g.get(), "template", rows.template_index, "", "row of the template in the bank's /templates");
      write_column(g.get(), "sample", rows.sample, "", "index of the peak sample in the strain file");
      write_column(g.get(), "snr", rows.snr, "", "|z|: the single-detector SNR of the peak");
      write_column(g.get(), "phase", rows.phase, "rad",
                   "arg z (the complex conjugate of the usual matched-filter phase convention)");
      summary += format_text("%s%s %zu", summary.empty() ? "" : ", ", d.ifo.c_str(), rows.snr.size());
    }
    // The coherent stage: 2 or 3 detectors (H1, L1, V1); one detector's run has peaks alone.
    if (detectors.size() >= 2) {
      const auto stage =
          write_coherent_triggers(file.get(), bank, network, coherent, [&](std::size_t d, const SnrSink& sink) {
            detector_peaks(detectors[d], bank, make_filter(), threshold, chunk, sink);
          });
      summary += format_text("; coherent: %zu candidates (%zu without margin), %zu triggers", stage.candidates,
                             stage.dropped, stage.triggers);
    }
    h5::set_attribute(file.get(), "status", std::string("complete"));
    peaks = h5::Id();
    h5::close_file(file);
    std::printf("peaks: %s; product: %s\n", summary.c_str(), output.c_str());
  } catch (...) {
    std::error_code ec;
    std::filesystem::remove(output, ec);
    throw;
  }
  return 0;
}

}  // namespace spiir

namespace jobs {
const Job& spiir() {
  static const Job job{"spiir", "SPIIR gravitational-wave filtering: whitened strain to per-detector SNR peaks", true,
                       spiir::spiir_command};
  return job;
}
}  // namespace jobs

}  // namespace astrosweep
