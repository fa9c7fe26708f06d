#include "period_job.hpp"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>

#include "core/mpi.hpp"
#include "core/work_dispatch.hpp"
#include "core/work_plan.hpp"
#include "io/output_path.hpp"
#include "period_product.hpp"

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
  mpi::Communicator comm(parent);
  const bool root = comm.rank() == 0;
  mpi::on_root_then_share_failure(comm.get(), [&] { io::check_output_path(options.output, options.overwrite); });
  io::Catalog catalog(options.catalog, comm.get());

  PeriodConfig config = options.config;
  std::vector<WorkUnit> units;
  std::uint64_t n_objects = 0;
  double total_work = 0;
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
    units = plan_work_units(index.counts, static_cast<double>(config.grid.n), comm.size());
    for (const auto& u : units) total_work += u.cost;
  });
  mpi::broadcast_value(comm.get(), config.grid);
  mpi::broadcast_value(comm.get(), n_objects);
  ProductProvenance prov{catalog.identity(), catalog.index().time_reference, grid_rule(options.grid),
                         options.command_line};
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

  PeriodProduct product(options.output, comm.get(), n_objects, config, prov);
  ProgressReporter progress(n_objects, total_work, options.progress_interval, "pairs");
  RankStats stats;
  std::vector<ObjectResult> sample;  // the first objects, for the result table
  {
    WorkDispatcher dispatcher(comm.get(), std::move(units), root ? &progress : nullptr);
    WorkClient client(dispatcher);
    UnitReport report;
    while (auto unit = client.next(report)) try {
        const auto t0 = std::chrono::steady_clock::now();
        const auto block = catalog.read(unit->first_object, unit->n_objects, unit->first_row, unit->n_rows);
        std::vector<ObjectResult> results(block.n_objects());
        auto sink = product.periodogram_sink(unit->first_object);
        search_block(*backend, block, config, results, sink.get());
        const auto t1 = std::chrono::steady_clock::now();
        product.write_results(unit->first_object, results);
        const auto t2 = std::chrono::steady_clock::now();
        report = {static_cast<std::int64_t>(unit->id), unit->n_objects, unit->cost,
                  std::chrono::duration<double>(t2 - t0).count()};
        stats.units += 1;
        stats.objects += static_cast<double>(unit->n_objects);
        stats.work += unit->cost;
        stats.compute_seconds += std::chrono::duration<double>(t1 - t0).count();
        stats.write_seconds += std::chrono::duration<double>(t2 - t1).count();
        if (unit->first_object == 0)
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
    dispatcher.join();
  }
  if (root) progress.print_line(true);

  product.finish();
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
