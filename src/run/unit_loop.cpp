#include "run/unit_loop.hpp"

#include <chrono>
#include <exception>
#include <thread>
#include <vector>

#include "core/error.hpp"
#include "core/interrupt.hpp"
#include "core/mpi.hpp"

namespace astrosweep::run {

UnitsFinished run_units(Lifecycle& run, std::vector<WorkUnit> units, ProgressReporter* progress,
                        const std::function<void(const WorkUnit&)>& work) {
  return run_units(run, std::move(units), progress, 1, [&](const WorkUnit& unit, int) { work(unit); });
}

UnitsFinished run_units(Lifecycle& run, std::vector<WorkUnit> units, ProgressReporter* progress, int lanes,
                        const std::function<void(const WorkUnit&, int lane)>& work) {
  UnitsFinished finished;
  {
    auto journal = [&](const WorkUnit& u) {
      run.journal()->append({u.first_item, u.n_items});
      finished.items += u.n_items;
    };
    WorkDispatcher dispatcher(run.comm(), std::move(units), progress, journal, lanes);
    auto lane_loop = [&](int lane) {
      WorkClient client(dispatcher, lane);
      UnitReport report;
      for (;;) {
        report.signal = interrupt::received();  // a stop signal on any rank ends the hand-out
        const auto unit = client.next(report);
        if (!unit) break;
        try {
          const auto t0 = std::chrono::steady_clock::now();
          work(*unit, lane);
          const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
          report = {static_cast<std::int64_t>(unit->id), unit->n_items, unit->cost, seconds};
        } catch (const Error& e) {
          mpi::abort_all(MPI_COMM_WORLD, e.code(),
                         "astrosweep: error on rank " + std::to_string(run.rank()) + ": " + e.what() +
                             (e.hint().empty() ? "" : "\n  hint: " + e.hint()));
        } catch (const std::exception& e) {
          mpi::abort_all(MPI_COMM_WORLD, ExitCode::internal,
                         "astrosweep: internal error on rank " + std::to_string(run.rank()) + ": " + e.what());
        }
      }
    };
    std::vector<std::thread> others;
    try {
      for (int lane = 1; lane < lanes; ++lane) others.emplace_back(lane_loop, lane);
    } catch (const std::exception& e) {  // the lanes already started would wait for the others forever
      mpi::abort_all(MPI_COMM_WORLD, ExitCode::internal,
                     "astrosweep: rank " + std::to_string(run.rank()) + " could not start its lanes: " + e.what());
    }
    lane_loop(0);
    for (auto& t : others) t.join();
    dispatcher.join();
    finished.units = dispatcher.units_finished();
  }
  mpi::broadcast_value(run.comm(), finished.units);
  mpi::broadcast_value(run.comm(), finished.items);
  return finished;
}

void stop_if_interrupted(Lifecycle& run, const UnitsFinished& finished, std::uint64_t n_units,
                         const JournalledItems& resumed, std::uint64_t n_items, const std::string& noun,
                         const std::function<void()>& close, const std::string& recorded) {
  const bool signalled = interrupt::any_rank(run.comm());
  if (finished.units == n_units) return;
  // Only a signal stops the hand-out early. The product stays incomplete, its rows and journal
  // consistent; every rank throws the same error after closing it.
  AS_ASSERT(signalled);
  run.interrupted(close,
                  std::to_string(resumed.units_done + finished.units) + " of " +
                      std::to_string(resumed.units_done + n_units) + " units done (" +
                      std::to_string(resumed.items_done + finished.items) + " of " + std::to_string(n_items) + " " +
                      noun + ")",
                  recorded);
}

}  // namespace astrosweep::run
