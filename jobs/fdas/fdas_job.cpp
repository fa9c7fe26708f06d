#include "fdas_job.hpp"

#include <omp.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <optional>
#include <sstream>
#include <vector>

#include "accel_text.hpp"
#include "core/mpi.hpp"
#include "device.hpp"
#include "dist/work_plan.hpp"
#include "fdas_inputs.hpp"
#include "fdas_product.hpp"
#include "fdas_spool.hpp"
#include "io/presto_dat.hpp"
#include "run/journalled_items.hpp"
#include "run/lifecycle.hpp"
#include "run/unit_loop.hpp"
#include "run/unit_timeline.hpp"
#include "run/units_in_flight.hpp"
#include "series_record.hpp"

namespace astrosweep::fdas {

namespace {

struct RankStats {
  double units = 0, series = 0, candidates = 0, read_seconds = 0, spectrum_seconds = 0, search_seconds = 0,
         polish_seconds = 0, write_seconds = 0;
  RankStats& operator+=(const RankStats& o) {
    units += o.units;
    series += o.series;
    candidates += o.candidates;
    read_seconds += o.read_seconds;
    spectrum_seconds += o.spectrum_seconds;
    search_seconds += o.search_seconds;
    polish_seconds += o.polish_seconds;
    write_seconds += o.write_seconds;
    return *this;
  }
};

// The band [r_lo, r_hi) in bins of a series spanning `span_s` (series_pipeline's rule).
bool band_is_empty(const FdasOptions& o, std::size_t n_fft, double span_s) {
  const double r_lo = std::max(1.0, o.f_lo * span_s);
  const double r_hi = std::min(o.f_hi * span_s, static_cast<double>(n_fft / 2));
  return !(r_lo < r_hi);
}

std::string joined(const std::vector<std::string>& items) {
  std::string text;
  for (const auto& s : items) text += s + "\n";
  return text;
}

std::string series_source(const io::TimeSeriesSource& s) {
  return s.format == io::TimeSeriesFormat::hdf5 ? s.path + "[" + std::to_string(s.batch_index) + "]" : s.path;
}

// The DM trials searched, each once, ascending (sifting matches hits to them).
std::vector<double> dm_trials(const io::TimeSeriesInputs& inputs) {
  std::vector<double> dms;
  for (const auto& s : inputs.series) dms.push_back(s.info.dm);
  std::sort(dms.begin(), dms.end());
  dms.erase(std::unique(dms.begin(), dms.end()), dms.end());
  return dms;
}

SiftResult sift(const SpoolContents& spool, const std::vector<double>& dms, const SiftOptions& options) {
  std::vector<SiftInput> inputs;
  for (const auto& [series, record] : spool.records) {
    std::size_t h = 0;
    for (const auto& c : record.candidates) {
      SiftInput in;
      in.dm = record.series.dm;
      in.T = record.series.span_s;
      in.r = c.r;
      in.z = c.z;
      in.numharm = c.numharm;
      in.coherent_power = c.coherent_power;
      for (int k = 0; k < c.numharm; ++k) in.harmonic_powers.push_back(record.harmonics.at(h++).power);
      in.series = static_cast<int>(series);
      in.candnum = c.number;
      inputs.push_back(std::move(in));
    }
  }
  return sift_candidates(inputs, dms, options);
}

void print_sifted(const SiftResult& sifted, std::size_t n_candidates) {
  if (sifted.kept.empty()) {
    std::printf("no candidate survived sifting across DM trials (%zu candidates in /candidates)\n", n_candidates);
    return;
  }
  std::printf("%8s %7s %7s %4s %14s %14s %10s %11s %5s\n", "series", "cand", "dm", "harm", "period[ms]", "freq[Hz]",
              "z", "sigma", "hits");
  const std::size_t shown = std::min<std::size_t>(sifted.kept.size(), 10);
  for (std::size_t i = 0; i < shown; ++i) {
    const auto& c = sifted.kept[i];
    std::printf("%8d %7d %7.2f %4d %14.8f %14.8f %10.2f %11.2f %5zu\n", c.input.series, c.input.candnum, c.input.dm,
                c.input.numharm, 1e3 * c.period(), c.f(), c.input.z, c.sigma, c.hits.size());
  }
  if (sifted.kept.size() > shown)
    std::printf("... %zu more sifted candidates in the product\n", sifted.kept.size() - shown);
}

// Where --accel-text writes a series' file: PRESTO's name for its input (a batch's series: the
// batch's name and the series' index).
std::string accel_text_path(const FdasOptions& o, const io::TimeSeriesSource& s) {
  const std::string input = s.format == io::TimeSeriesFormat::hdf5
                                ? std::filesystem::path(s.path).stem().string() + "_" + std::to_string(s.batch_index)
                                : s.path;
  return (std::filesystem::path(o.accel_text) / accel_text_name(input, o.z_max)).string();
}

// Rank 0, before any work: the --accel-text directory exists and no file of this run is there
// unless --overwrite or --resume allows replacing it.
void prepare_accel_text(const FdasOptions& o, const io::TimeSeriesInputs& inputs) {
  if (o.accel_text.empty()) return;
  std::error_code ec;
  std::filesystem::create_directories(o.accel_text, ec);
  AS_EXPECTS(!ec, OutputError, "cannot create the --accel-text directory '" + o.accel_text + "': " + ec.message(),
             "give a directory you can write");
  if (o.overwrite || o.resume) return;
  for (const auto& s : inputs.series) {
    const std::string path = accel_text_path(o, s);
    AS_EXPECTS(!std::filesystem::exists(path), OutputError, "'" + path + "' already exists (--accel-text)",
               "remove it, choose another directory, or pass --overwrite");
  }
}

// The series' .inf text, which PRESTO appends to its ACCEL file (empty for other inputs).
std::string inf_text(const io::TimeSeriesSource& s) {
  if (s.format != io::TimeSeriesFormat::presto) return {};
  std::ifstream in(io::presto_paths(s.path).inf);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

void run_fdas_job(const FdasOptions& options, MPI_Comm parent) {
  run::Lifecycle run("fdas", options, parent);
  const MPI_Comm comm = run.comm();
  const bool root = run.root();

  io::TimeSeriesInputs inputs;
  ProductProvenance prov;
  run::ResumeRules rules{"finished unit", FdasProduct::inspect, {}, {}};
  const TemplateBank bank = make_template_bank(options.z_max, options.numbetween, options.accuracy, options.fft_length);
  mpi::on_root_then_share_failure(comm, [&] {
    inputs = io::list_time_series_inputs(options.inputs, options.format);
    const auto n = inputs.series.size();
    AS_EXPECTS(
        run.size() <= static_cast<int>(std::min<std::size_t>(n, 1u << 30)), UsageError,
        "more MPI ranks (" + std::to_string(run.size()) + ") than series (" + std::to_string(n) + ") in the input",
        "run with at most " + std::to_string(n) + (n == 1 ? " rank" : " ranks"));
    prov.input_format = io::time_series_format_name(inputs.format);
    prov.inputs = joined(options.inputs);
    prov.n_series = n;
    for (const auto& s : inputs.series) prov.input_samples += s.n_samples;
    prov.fft_length = bank.layout.fft_length;
    prov.n_templates = bank.grid.n_z;
    rules.product_fingerprint = FdasProduct::fingerprint(options, prov);
    rules.journal_fingerprint = io::with_input_files(rules.product_fingerprint, inputs.source_paths());
    if (inputs.lengths_differ()) run.log(inputs.length_note());
    prepare_accel_text(options, inputs);
  });
  run::JournalledItems resume;  // rank 0
  const run::Start start = run.begin(rules, [&](const io::ResumePoint& point) {
    resume = run::journalled_items(point, options.output, inputs.series.size(), "series");
    return resume.note;
  });
  if (start.complete()) {
    // A run stopped after completing the product but before removing its spool left it behind.
    mpi::on_root_then_share_failure(comm, [&] {
      const std::string spool_dir = spool_directory(options.output);
      if (!std::filesystem::exists(spool_dir)) return;
      run.log("removing the spool '" + spool_dir + "' that a run stopped after completing the product left");
      remove_spool(spool_dir);
    });
    return;
  }

  broadcast_inputs(comm, inputs);
  const std::uint64_t n_series = inputs.series.size();
  mpi::broadcast_value(comm, prov.n_series);
  mpi::broadcast_value(comm, prov.input_samples);
  mpi::broadcast_string(comm, prov.input_format);
  mpi::broadcast_string(comm, prov.inputs);
  prov.fft_length = bank.layout.fft_length;
  prov.n_templates = bank.grid.n_z;

  // The spool: a fresh run starts it empty; a resumed one keeps it and appends to new files.
  const std::string spool_dir = spool_directory(options.output);
  int attempt = 1;
  std::vector<WorkUnit> units;
  std::uint64_t n_units = 0;
  double total_work = 0;
  mpi::on_root_then_share_failure(comm, [&] {
    if (!start.resuming()) remove_spool(spool_dir);
    attempt = next_spool_attempt(spool_dir);
    std::vector<std::uint64_t> counts;
    for (const auto& s : inputs.series) counts.push_back(s.n_samples);
    // Cost per sample: a transform of every template per segment, ~log2 L operations per point.
    const double cost_per_sample = static_cast<double>(bank.grid.n_z) * std::log2(bank.layout.fft_length);
    units = plan_remaining_work_units(counts, resume.done, cost_per_sample, run.size());
    n_units = units.size();
    for (const auto& u : units) total_work += u.cost;
  });
  mpi::broadcast_value(comm, attempt);
  mpi::broadcast_value(comm, n_units);

  // One backend per lane (unit in flight), each with its share of the rank's threads and budgets.
  const int lanes = run::lanes_for(options.units_in_flight, resolve_backend(run.backend_options().kind));
  const BackendOptions lane_options = run::lane_share(run.backend_options(), lanes);
  std::vector<std::unique_ptr<FdasBackend>> backends;
  for (int lane = 0; lane < lanes; ++lane) backends.push_back(make_fdas_backend(bank, lane_options));
  // The host phases of a series (dereddening, polishing) run on the lane's share too: on all of
  // the rank's threads in every lane they would oversubscribe the cores lanes-fold.
  FdasOptions lane_fdas_options = options;
  lane_fdas_options.backend = lane_options;
  char line[500];
  std::snprintf(line, sizeof line,
                "%llu series (%s), zmax %g (%zu templates, segments of %zu), numharm %d, sigma %g, %llu work units on "
                "%d ranks, backend %s%s",
                static_cast<unsigned long long>(n_series), prov.input_format.c_str(), bank.grid.z_max, bank.grid.n_z,
                bank.layout.fft_length, options.numharm, options.sigma_min, static_cast<unsigned long long>(n_units),
                run.size(), backends.front()->describe().c_str(),
                lanes > 1 ? (", " + std::to_string(lanes) + " units in flight per rank").c_str() : "");
  run.log(line);

  std::optional<FdasProduct> product;
  if (start.resuming())
    product.emplace(options.output, comm);
  else
    product.emplace(options.output, comm, options, prov);
  SpoolWriter spool(spool_dir, attempt, run.rank());
  SeriesReader reader(inputs);
  ProgressReporter progress("fdas", n_series - resume.items_done, "series", total_work, "sample-templates",
                            options.progress_interval);
  // HDF5 is not a thread-safe build: the lanes take turns at it (the batch's reads, the product's
  // rows) under one lock, which also orders their appends to the rank's spool file. Their other
  // reads, spectra, searches, polishing and fsyncs overlap.
  std::mutex io_lock;
  std::vector<RankStats> lane_stats(static_cast<std::size_t>(lanes));
  run::UnitTimeline timeline("fdas", run.rank(), "begin\tread\tsearched\twrite_locked\twritten\tdurable");
  auto work = [&](const WorkUnit& unit, int lane) {
    // Parallel regions the lane's own code opens (not only its backend's) use its share of the cores.
    if (lanes > 1) omp_set_num_threads(lane_options.threads);
    RankStats& stats = lane_stats[static_cast<std::size_t>(lane)];
    FdasBackend& backend = *backends[static_cast<std::size_t>(lane)];
    std::vector<double> marks{timeline.now()};
    std::vector<SeriesRecord> records;
    auto unit_series = reader.read(unit.first_item, unit.n_items, &io_lock);
    marks.push_back(timeline.now());
    for (auto& loaded : unit_series) {
      const auto& source = inputs.series[loaded.index];
      const std::size_t n_fft = good_fft_length(loaded.samples.size());
      if (band_is_empty(options, n_fft, static_cast<double>(n_fft) * source.info.tsamp)) {
        records.push_back(empty_band_record(loaded.index, source, n_fft));
        continue;
      }
      const SeriesResult result = search_series(loaded.samples, source.info.tsamp, lane_fdas_options, backend);
      records.push_back(series_record(loaded.index, source, result));
      stats.candidates += static_cast<double>(result.candidates.size());
      stats.spectrum_seconds += result.spectrum_seconds;
      stats.search_seconds += result.search_seconds;
      stats.polish_seconds += result.polish_seconds;
    }
    marks.push_back(timeline.now());
    std::vector<SeriesRow> rows;
    for (const auto& r : records) rows.push_back(r.series);
    std::unique_lock io(io_lock);
    marks.push_back(timeline.now());
    for (const auto& r : records) spool.append(r);
    product->write_series(rows);
    io.unlock();
    marks.push_back(timeline.now());
    product->sync();  // rows and spool records durable before the unit is reported, hence journalled
    spool.sync();
    marks.push_back(timeline.now());
    timeline.record(lane, unit.id, unit.n_items, marks);
    // marks: begin, read, searched, write_locked, written, durable
    stats.units += 1;
    stats.series += static_cast<double>(unit.n_items);
    stats.read_seconds += marks[1] - marks[0];
    stats.write_seconds += marks[5] - marks[2];
  };
  const auto finished = run::run_units(run, std::move(units), root ? &progress : nullptr, lanes, work);
  run::stop_if_interrupted(
      run, finished, n_units, resume, n_series, "series",
      [&] {
        product->close();
        if (root) progress.print_line(true);
      },
      "its finished units (and their candidates in '" + spool_dir + "') are");
  if (root) progress.print_line(true);
  product->close();

  // Rank 0 gathers every series' candidates from the spool, sifts them across DM trials and
  // completes the product.
  SiftResult sifted;
  std::size_t n_candidates = 0;
  mpi::on_root_then_share_failure(comm, [&] {
    const SpoolContents contents = read_spool(spool_dir);
    for (const auto& note : contents.notes) run.log("spool: " + note);
    for (std::uint64_t i = 0; i < n_series; ++i)
      AS_EXPECTS(contents.records.count(i), OutputError,
                 "the spool '" + spool_dir + "' lacks series " + std::to_string(i) + " ('" +
                     series_source(inputs.series[i]) + "'), which the journal records as done",
                 "the spool was changed by hand: start over with --overwrite");
    for (const auto& [i, r] : contents.records) n_candidates += r.candidates.size();
    SiftOptions sift_options = options.sift;
    const std::vector<double> dms = dm_trials(inputs);
    if (static_cast<std::size_t>(sift_options.min_num_dms) > dms.size()) {
      run.log("sifting: " + std::to_string(dms.size()) + " DM trial(s) searched, so a candidate needs " +
              std::to_string(dms.size()) + " hit(s), not --sift-min-dms " + std::to_string(sift_options.min_num_dms));
      sift_options.min_num_dms = static_cast<int>(dms.size());
    }
    sifted = sift(contents, dms, sift_options);
    FinalTables tables;
    tables.spool = &contents;
    for (const auto& s : inputs.series) tables.series_sources.push_back(series_source(s));
    tables.sifted = sifted;
    tables.sift_options = sift_options;
    write_final_tables(options.output, tables);
    if (!options.accel_text.empty())
      for (const auto& [i, r] : contents.records) {
        const AccelTextRows rows = presto_view(r.candidates, r.harmonics, r.series.span_s);
        write_accel_text(accel_text_path(options, inputs.series[i]), rows.candidates, rows.harmonics,
                         inf_text(inputs.series[i]));
      }
    // Complete only once every output is written; the spool goes after, and a run stopped between
    // the two leaves a complete product whose spool the next --resume removes.
    mark_complete(options.output);
    remove_spool(spool_dir);
  });
  run.finished();
  timeline.write();
  if (root && !options.quiet) print_sifted(sifted, n_candidates);
  RankStats stats;
  std::string usage;
  for (int lane = 0; lane < lanes; ++lane) {
    stats += lane_stats[static_cast<std::size_t>(lane)];
    const std::string u = backends[static_cast<std::size_t>(lane)]->usage();
    usage += (usage.empty() || u.empty() ? "" : "; ") + u;
  }
  char row[400];
  std::snprintf(row, sizeof row, "%4d %6.0f %7.0f %11.0f %8.3f %12.3f %10.3f %10.3f %9.3f  ", run.rank(), stats.units,
                stats.series, stats.candidates, stats.read_seconds, stats.spectrum_seconds, stats.search_seconds,
                stats.polish_seconds, stats.write_seconds);
  run.print_summary(
      "rank  units  series  candidates  read[s]  spectrum[s]  search[s]  polish[s]  write[s]  backend (per unit in "
      "flight)\n",
      row + usage + "\n", stdout);
  if (root) std::printf("product: %s\n", options.output.c_str());
}

}  // namespace astrosweep::fdas
