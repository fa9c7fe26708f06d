#include "period_job.hpp"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <optional>

#include "core/interrupt.hpp"
#include "core/mpi.hpp"
#include "dist/work_dispatch.hpp"
#include "dist/work_plan.hpp"
#include "io/journal.hpp"
#include "io/output_path.hpp"
#include "period_product.hpp"
#include "period_resume.hpp"

namespace astrosweep::period {

namespace {

struct SampleRow {
  std::int64_t id;
  std::uint32_t n_points, status;
  double best_frequency, best_period, best_power, fap;
};

struct RankStats {
  double units = 0, objects = 0, work = 0, compute_seconds = 0, write_seconds = 0;
  char backend[160] = {};  ///< the backend's own account of what it used (device memory, kernel time)
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

void print_summary(const std::vector<RankStats>& stats, const std::vector<ObjectResult>& sample,
                   std::uint64_t n_objects, const std::string& output, bool quiet) {
  if (!quiet && !sample.empty()) {
    std::printf("%12s %8s %14s %14s %12s %10s %6s\n", "id", "points", "best_freq[1/d]", "period[d]", "power", "fap",
                "status");
    for (const auto& r : sample)
      std::printf("%12lld %8u %14.8g %14.8g %12.6g %10.3g %6u\n", static_cast<long long>(r.id), r.n_points,
                  r.best_frequency, r.best_period, r.best_power, r.fap, r.status);
    if (n_objects > sample.size())
      std::printf("... %llu more objects in the product\n", static_cast<unsigned long long>(n_objects - sample.size()));
  }
  std::printf("rank  units  objects       pairs   compute[s]  write[s]\n");
  for (std::size_t r = 0; r < stats.size(); ++r)
    std::printf("%4zu %6.0f %8.0f %11.4g %12.3f %9.3f\n", r, stats[r].units, stats[r].objects, stats[r].work,
                stats[r].compute_seconds, stats[r].write_seconds);
  for (std::size_t r = 0; r < stats.size(); ++r)
    if (stats[r].backend[0]) std::printf("rank %zu: %s\n", r, stats[r].backend);
  std::printf("product: %s\n", output.c_str());
  std::fflush(stdout);
}

}  // namespace

void run_period_job(const PeriodOptions& options, MPI_Comm parent) {
  // Before anything takes long: a signal from here on stops the run at the next unit boundary.
  interrupt::install_handlers();
  mpi::Communicator comm(parent);
  const bool root = comm.rank() == 0;
  mpi::on_root_then_share_failure(comm.get(), [&] {
    // --resume accepts an existing product: decide_resume below says whether it may be continued.
    io::check_output_path(options.output, options.overwrite || options.resume);
  });
  io::Catalog catalog(options.catalog, comm.get());
  ProductProvenance prov{catalog.identity(), catalog.index().time_reference, grid_rule(options.grid),
                         options.command_line};

  PeriodConfig config = options.config;
  std::vector<WorkUnit> units;
  std::uint64_t n_objects = 0;
  std::uint64_t n_units = 0;
  double total_work = 0;
  ResumeDecision resume;               // rank 0
  std::optional<io::Journal> journal;  // rank 0: written by the dispatcher thread
  const std::string journal_file = io::journal_path(options.output);
  mpi::on_root_then_share_failure(comm.get(), [&] {
    const auto& index = catalog.index();
    n_objects = index.n_objects();
    AS_EXPECTS(comm.size() <= static_cast<int>(std::min<std::uint64_t>(n_objects, 1u << 30)), UsageError,
               "more MPI ranks (" + std::to_string(comm.size()) + ") than objects (" + std::to_string(n_objects) +
                   ") in the input",
               "run with at most " + std::to_string(n_objects) + (n_objects == 1 ? " rank" : " ranks"));
    config.grid = make_frequency_grid(options.grid, index);
    AS_EXPECTS(!config.keep_periodograms || config.grid.n <= (1ULL << 40) / std::max<std::uint64_t>(n_objects, 1),
               UsageError, "the periodograms asked for would hold more than 2^40 values",
               "drop --periodograms or narrow the grid");
    const auto product_fp = PeriodProduct::fingerprint(n_objects, config, prov);
    const auto journal_fp = journal_fingerprint(product_fp, prov.input.paths);
    if (options.resume) resume = decide_resume(options.output, n_objects, product_fp, journal_fp);
    if (!resume.note.empty()) std::fprintf(stderr, "[astrosweep] %s\n", resume.note.c_str());
    // The journal is replaced (empty) before a fresh product is created, never after: entries of
    // an earlier run must not outlive the rows they stand for.
    if (resume.start == ResumeDecision::Start::fresh) journal = io::Journal::create(journal_file, journal_fp);
    if (resume.start == ResumeDecision::Start::resume)
      journal = io::Journal::resume(journal_file, resume.journal_bytes);
    units = plan_remaining_work_units(index.counts, resume.done, static_cast<double>(config.grid.n), comm.size());
    n_units = units.size();
    for (const auto& u : units) total_work += u.cost;
  });
  int start = static_cast<int>(resume.start);
  mpi::broadcast_value(comm.get(), start);
  if (start == static_cast<int>(ResumeDecision::Start::complete)) {
    if (root) {
      std::printf("product '%s' is complete: nothing to do\n", options.output.c_str());
      std::fflush(stdout);
      try {
        io::remove_journal(journal_file);  // left behind when a run was killed right after completing
      } catch (const Error& e) {
        std::fprintf(stderr, "[astrosweep] warning: %s\n", e.what());
      }
    }
    return;
  }
  mpi::broadcast_value(comm.get(), config.grid);
  mpi::broadcast_value(comm.get(), n_objects);
  mpi::broadcast_value(comm.get(), n_units);
  mpi::broadcast_string(comm.get(), prov.input.format);
  mpi::broadcast_string(comm.get(), prov.input.paths);
  mpi::broadcast_value(comm.get(), prov.input.bytes);
  mpi::broadcast_string(comm.get(), prov.input.digest);
  mpi::broadcast_string(comm.get(), prov.time_reference);

  BackendOptions backend_options = options.backend;
  const auto local = mpi::node_local(comm.get());
  backend_options.node_local_rank = local.rank;
  backend_options.node_local_size = local.size;
  auto backend = make_period_backend(backend_options);
  if (root)
    std::fprintf(stderr,
                 "[astrosweep] period: %llu objects, grid %.8g..%.8g 1/d (N_f = %llu), %s %s %s, %zu work units on "
                 "%d ranks, backend %s\n",
                 static_cast<unsigned long long>(n_objects), config.grid.f0, config.grid.last(),
                 static_cast<unsigned long long>(config.grid.n), name_of(config.model), name_of(config.precision),
                 name_of(config.normalization), units.size(), comm.size(), backend->describe().c_str());

  std::optional<PeriodProduct> product;
  if (start == static_cast<int>(ResumeDecision::Start::resume)) {
    product.emplace(options.output, comm.get(), config);
  } else {
    product.emplace(options.output, comm.get(), n_objects, config, prov);
  }
  ProgressReporter progress(n_objects - resume.objects_done, "objects", total_work, "pairs", options.progress_interval);
  RankStats stats;
  std::vector<ObjectResult> sample;  // the first objects, for the result table
  std::uint64_t units_finished = 0, objects_finished = 0;
  {
    // A unit enters the journal once the rank that computed it has made its rows durable (sync
    // below, before it reports the unit): a journalled unit is never lost, whatever kills the run.
    auto record = [&](const WorkUnit& u) {
      journal->append({u.first_item, u.n_items});
      objects_finished += u.n_items;
    };
    WorkDispatcher dispatcher(comm.get(), std::move(units), root ? &progress : nullptr, record);
    WorkClient client(dispatcher);
    UnitReport report;
    for (;;) {
      report.signal = interrupt::received();  // a stop signal on any rank ends the hand-out
      const auto unit = client.next(report);
      if (!unit) break;
      try {
        const auto t0 = std::chrono::steady_clock::now();
        const auto block = catalog.read(unit->first_item, unit->n_items, unit->first_row, unit->n_rows);
        std::vector<ObjectResult> results(block.n_objects());
        auto sink = product->periodogram_sink(unit->first_item);
        search_block(*backend, block, config, results, sink.get());
        const auto t1 = std::chrono::steady_clock::now();
        product->write_results(unit->first_item, results);
        product->sync();
        const auto t2 = std::chrono::steady_clock::now();
        report = {static_cast<std::int64_t>(unit->id), unit->n_items, unit->cost,
                  std::chrono::duration<double>(t2 - t0).count()};
        stats.units += 1;
        stats.objects += static_cast<double>(unit->n_items);
        stats.work += unit->cost;
        stats.compute_seconds += std::chrono::duration<double>(t1 - t0).count();
        stats.write_seconds += std::chrono::duration<double>(t2 - t1).count();
        if (unit->first_item == 0)
          sample.assign(results.begin(), results.begin() + std::min<std::size_t>(results.size(), 10));
      } catch (const Error& e) {
        // Stop every rank here, before unwinding: on rank 0 leaving this scope would join the
        // dispatcher thread, which waits for ranks that will never ask again.
        mpi::abort_all(MPI_COMM_WORLD, e.code(),
                       "astrosweep: error on rank " + std::to_string(comm.rank()) + ": " + e.what() +
                           (e.hint().empty() ? "" : "\n  hint: " + e.hint()));
      } catch (const std::exception& e) {
        mpi::abort_all(MPI_COMM_WORLD, ExitCode::internal,
                       "astrosweep: internal error on rank " + std::to_string(comm.rank()) + ": " + e.what());
      }
    }
    dispatcher.join();
    units_finished = dispatcher.units_finished();
  }
  mpi::broadcast_value(comm.get(), units_finished);
  const bool signalled = interrupt::any_rank(comm.get());
  if (units_finished < n_units) {
    // Only a signal stops the hand-out early. The product stays incomplete, its rows and journal
    // consistent; every rank throws the same error after closing it.
    AS_ASSERT(signalled);
    product->close();
    if (root) progress.print_line(true);
    // Only rank 0 reports the error, and only it knows the counts.
    throw interrupt::Interrupted(interrupt::received(),
                                 std::to_string(resume.units_done + units_finished) + " of " +
                                     std::to_string(resume.units_done + n_units) + " units done (" +
                                     std::to_string(resume.objects_done + objects_finished) + " of " +
                                     std::to_string(n_objects) + " objects)",
                                 "the product '" + options.output +
                                     "' stays incomplete; its finished units are recorded in '" + journal_file + "'");
  }
  if (root) progress.print_line(true);

  product->finish();
  if (root) {
    try {
      io::remove_journal(journal_file);  // the product says complete: the journal has served
    } catch (const Error& e) {
      std::fprintf(stderr, "[astrosweep] warning: %s\n", e.what());
    }
  }
  std::snprintf(stats.backend, sizeof stats.backend, "%s", backend->usage().c_str());
  std::vector<RankStats> all(static_cast<std::size_t>(comm.size()));
  AS_MPI_TRY(MPI_Gather(&stats, sizeof stats, MPI_BYTE, all.data(), sizeof stats, MPI_BYTE, 0, comm.get()));
  // The result table shows the catalog's first objects, whichever rank computed them.
  int holder = sample.empty() ? comm.size() : comm.rank();
  AS_MPI_TRY(MPI_Allreduce(MPI_IN_PLACE, &holder, 1, MPI_INT, MPI_MIN, comm.get()));
  if (holder > 0 && holder < comm.size()) {
    std::vector<SampleRow> rows;
    for (const auto& r : sample)
      rows.push_back({r.id, r.n_points, r.status, r.best_frequency, r.best_period, r.best_power, r.fap});
    mpi::broadcast_vector(comm.get(), rows, holder);
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
  if (root) print_summary(all, sample, n_objects, options.output, options.quiet);
}

}  // namespace astrosweep::period
