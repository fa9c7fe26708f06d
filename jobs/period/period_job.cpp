#include "period_job.hpp"

#include <omp.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "core/mpi.hpp"
#include "device.hpp"
#include "dist/work_plan.hpp"
#include "period_product.hpp"
#include "run/journalled_items.hpp"
#include "run/lifecycle.hpp"
#include "run/unit_loop.hpp"
#include "run/unit_timeline.hpp"
#include "run/units_in_flight.hpp"

namespace astrosweep::period {

namespace {

struct SampleRow {
  std::int64_t id;
  std::uint32_t n_points, status;
  double best_frequency, best_period, best_power, fap;
};

struct LaneStats {
  double units = 0, objects = 0, work = 0, read_seconds = 0, search_seconds = 0, write_seconds = 0;
  LaneStats& operator+=(const LaneStats& o) {
    units += o.units;
    objects += o.objects;
    work += o.work;
    read_seconds += o.read_seconds;
    search_seconds += o.search_seconds;
    write_seconds += o.write_seconds;
    return *this;
  }
};

/// Forwards periodogram rows to the product under the lock that serialises its HDF5 calls.
class LockedSink final : public PeriodogramSink {
 public:
  LockedSink(std::unique_ptr<PeriodogramSink> sink, std::mutex& lock) : sink_(std::move(sink)), lock_(&lock) {}
  void write(std::uint64_t object, std::uint64_t k0, std::uint64_t n, const void* values) override {
    const std::scoped_lock hold(*lock_);
    sink_->write(object, k0, n, values);
  }

 private:
  std::unique_ptr<PeriodogramSink> sink_;
  std::mutex* lock_;
};

std::string grid_rule(const GridRequest& r) {
  if (r.n_freq) return r.pmin ? "explicit period range and N_f" : "explicit fmin, fmax and N_f";
  char buf[160];
  std::snprintf(buf, sizeof buf,
                "astropy autofrequency: samples_per_peak=%g, nyquist_factor=%g, longest baseline, median "
                "average Nyquist%s",
                r.samples_per_peak, r.nyquist_factor, (r.fmin || r.fmax || r.pmin) ? ", user limits" : "");
  return buf;
}

void print_results(const std::vector<ObjectResult>& sample, std::uint64_t n_objects) {
  if (sample.empty()) return;
  std::printf("%12s %8s %14s %14s %12s %10s %6s\n", "id", "points", "best_freq[1/d]", "period[d]", "power", "fap",
              "status");
  for (const auto& r : sample)
    std::printf("%12lld %8u %14.8g %14.8g %12.6g %10.3g %6u\n", static_cast<long long>(r.id), r.n_points,
                r.best_frequency, r.best_period, r.best_power, r.fap, r.status);
  if (n_objects > sample.size())
    std::printf("... %llu more objects in the product\n", static_cast<unsigned long long>(n_objects - sample.size()));
  std::fflush(stdout);
}

}  // namespace

void run_period_job(const PeriodOptions& options, MPI_Comm parent) {
  run::Lifecycle run("period", options, parent);
  const MPI_Comm comm = run.comm();
  const bool root = run.root();
  io::Catalog catalog(options.catalog, comm);
  ProductProvenance prov{catalog.identity(), catalog.index().time_reference, catalog.index().has_time_references,
                         grid_rule(options.grid), options.command_line};

  PeriodConfig config = options.config;
  std::uint64_t n_objects = 0;
  run::ResumeRules rules{"finished unit", PeriodProduct::inspect, {}, {}};
  mpi::on_root_then_share_failure(comm, [&] {
    const auto& index = catalog.index();
    n_objects = index.n_objects();
    AS_EXPECTS(run.size() <= static_cast<int>(std::min<std::uint64_t>(n_objects, 1u << 30)), UsageError,
               "more MPI ranks (" + std::to_string(run.size()) + ") than objects (" + std::to_string(n_objects) +
                   ") in the input",
               "run with at most " + std::to_string(n_objects) + (n_objects == 1 ? " rank" : " ranks"));
    config.grid = make_frequency_grid(options.grid, index);
    AS_EXPECTS(!config.keep_periodograms || config.grid.n <= (1ULL << 40) / std::max<std::uint64_t>(n_objects, 1),
               UsageError, "the periodograms asked for would hold more than 2^40 values",
               "drop --periodograms or narrow the grid");
    rules.product_fingerprint = PeriodProduct::fingerprint(n_objects, config, prov);
    // An HDF5 catalog's digest covers its index only, not the light curves: their files' times too.
    rules.journal_fingerprint = io::with_input_files(rules.product_fingerprint, prov.input.paths);
  });
  run::JournalledItems resume;  // rank 0
  const run::Start start = run.begin(rules, [&](const io::ResumePoint& point) {
    resume = run::journalled_items(point, options.output, n_objects, "objects");
    return resume.note;
  });
  if (start.complete()) return;

  std::vector<WorkUnit> units;
  std::uint64_t n_units = 0;
  double total_work = 0;
  mpi::on_root_then_share_failure(comm, [&] {
    units =
        plan_remaining_work_units(catalog.index().counts, resume.done, static_cast<double>(config.grid.n), run.size());
    n_units = units.size();
    for (const auto& u : units) total_work += u.cost;
  });
  mpi::broadcast_value(comm, config.grid);
  mpi::broadcast_value(comm, n_objects);
  mpi::broadcast_value(comm, n_units);
  mpi::broadcast_string(comm, prov.input.format);
  mpi::broadcast_string(comm, prov.input.paths);
  mpi::broadcast_value(comm, prov.input.bytes);
  mpi::broadcast_string(comm, prov.input.digest);
  mpi::broadcast_string(comm, prov.time_reference);
  mpi::broadcast_value(comm, prov.time_references);

  const int lanes = run::lanes_for(options.units_in_flight, resolve_backend(run.backend_options().kind));
  std::vector<std::unique_ptr<PeriodBackend>> backends;
  for (int lane = 0; lane < lanes; ++lane)
    backends.push_back(make_period_backend(run::lane_share(run.backend_options(), lanes)));
  // A backend that cannot run this configuration (the CUDA backend and --method fast) says so now,
  // before the product exists.
  for (const auto& b : backends) b->check(config);
  const auto& backend = backends.front();
  char line[400];
  std::snprintf(line, sizeof line,
                "%llu objects, grid %.8g..%.8g 1/d (N_f = %llu), %s %s %s, method %s, %zu work units on %d ranks, "
                "backend %s%s",
                static_cast<unsigned long long>(n_objects), config.grid.f0, config.grid.last(),
                static_cast<unsigned long long>(config.grid.n), to_string(config.model), to_string(config.precision),
                to_string(config.normalization), to_string(config.method), units.size(), run.size(),
                backend->describe().c_str(),
                lanes > 1 ? (", " + std::to_string(lanes) + " units in flight per rank").c_str() : "");
  run.log(line);

  std::optional<PeriodProduct> product;
  if (start.resuming()) {
    product.emplace(options.output, comm, config);
  } else {
    product.emplace(options.output, comm, n_objects, config, prov);
  }
  ProgressReporter progress("period", n_objects - resume.items_done, "objects", total_work, "pairs",
                            options.progress_interval);
  // HDF5 (and CFITSIO) are not thread-safe builds: the lanes take turns at the library (the
  // catalog's metadata, the product); their points' reads, kernels and host computing overlap.
  std::mutex io_lock;
  std::vector<LaneStats> lane_stats(static_cast<std::size_t>(lanes));
  std::vector<io::LightCurveBlock> lane_blocks(static_cast<std::size_t>(lanes));  // buffers reused unit after unit
  std::vector<ObjectResult> sample;  // the first objects, for the result table
  run::UnitTimeline timeline("period", run.rank(),
                             "begin\tread_locked\tread\tsearched\twrite_locked\twritten\tdurable\tkernel_s");
  const int lane_threads = run::lane_share(run.backend_options(), lanes).threads;
  auto work = [&](const WorkUnit& unit, int lane) {
    // Parallel regions the lane's own code opens (not only its backend's) use its share of the cores.
    if (lanes > 1) omp_set_num_threads(lane_threads);
    LaneStats& stats = lane_stats[static_cast<std::size_t>(lane)];
    auto& lane_backend = *backends[static_cast<std::size_t>(lane)];
    std::vector<double> marks{timeline.now()};
    std::unique_lock io(io_lock);
    marks.push_back(timeline.now());
    auto sink = product->periodogram_sink(unit.first_item);
    io.unlock();
    // The catalog takes the lock for its HDF5 calls only: the lanes read their points at once.
    io::LightCurveBlock& block = lane_blocks[static_cast<std::size_t>(lane)];
    catalog.read(unit.first_item, unit.n_items, unit.first_row, unit.n_rows, block, &io_lock);
    marks.push_back(timeline.now());
    std::vector<ObjectResult> results(block.n_objects());
    std::unique_ptr<PeriodogramSink> locked;
    if (sink) locked = std::make_unique<LockedSink>(std::move(sink), io_lock);
    search_block(lane_backend, block, config, results, locked.get());
    marks.push_back(timeline.now());
    io.lock();
    marks.push_back(timeline.now());
    product->write_results(unit.first_item, results);
    product->write_time_references(unit.first_item, block);
    if (unit.first_item == 0)
      sample.assign(results.begin(), results.begin() + std::min<std::size_t>(results.size(), 10));
    io.unlock();
    marks.push_back(timeline.now());
    product->sync();  // durable before the unit is reported, hence journalled
    marks.push_back(timeline.now());
    marks.push_back(lane_backend.last_kernel_seconds());
    timeline.record(lane, unit.id, unit.n_items, marks);
    // marks: begin, read_locked, read, searched, write_locked, written, durable
    stats.read_seconds += marks[2] - marks[0];
    stats.search_seconds += marks[3] - marks[2];
    stats.write_seconds += marks[6] - marks[3];
    stats.units += 1;
    stats.objects += static_cast<double>(unit.n_items);
    stats.work += unit.cost;
  };
  const auto finished = run::run_units(run, std::move(units), root ? &progress : nullptr, lanes, work);
  run::stop_if_interrupted(
      run, finished, n_units, resume, n_objects, "objects",
      [&] {
        product->close();
        if (root) progress.print_line(true);
      },
      "its finished units are");
  if (root) progress.print_line(true);

  product->finish();
  run.finished();
  timeline.write();
  // The result table shows the catalog's first objects, whichever rank computed them.
  int holder = sample.empty() ? run.size() : run.rank();
  AS_MPI_TRY(MPI_Allreduce(MPI_IN_PLACE, &holder, 1, MPI_INT, MPI_MIN, comm));
  if (holder > 0 && holder < run.size()) {
    std::vector<SampleRow> rows;
    for (const auto& r : sample)
      rows.push_back({r.id, r.n_points, r.status, r.best_frequency, r.best_period, r.best_power, r.fap});
    mpi::broadcast_vector(comm, rows, holder);
    sample.assign(rows.size(), ObjectResult{});
    for (std::size_t i = 0; i < rows.size(); ++i) {
      sample[i].id = rows[i].id;
      sample[i].n_points = rows[i].n_points;
      sample[i].status = rows[i].status;
      sample[i].best_frequency = rows[i].best_frequency;
      sample[i].best_period = rows[i].best_period;
      sample[i].best_power = rows[i].best_power;
      sample[i].fap = rows[i].fap;
    }
  }
  if (root && !options.quiet) print_results(sample, n_objects);
  LaneStats stats;
  std::string usage;
  for (int lane = 0; lane < lanes; ++lane) {
    stats += lane_stats[static_cast<std::size_t>(lane)];
    const std::string u = backends[static_cast<std::size_t>(lane)]->usage();
    usage += (usage.empty() || u.empty() ? "" : "; ") + u;
  }
  char row[200];
  std::snprintf(row, sizeof row, "%4d %6.0f %8.0f %11.4g %8.3f %10.3f %9.3f  ", run.rank(), stats.units, stats.objects,
                stats.work, stats.read_seconds, stats.search_seconds, stats.write_seconds);
  run.print_summary("rank  units  objects       pairs  read[s]  search[s]  write[s]  backend (per unit in flight)\n",
                    row + usage + "\n", stdout);
  if (root) std::printf("product: %s\n", options.output.c_str());
}

}  // namespace astrosweep::period
