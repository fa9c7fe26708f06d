#pragma once
// The compute loop of the jobs whose work is a list of items in units (period's objects, fdas's
// series), written once: rank 0 hands the units out on request (dist/work_dispatch.hpp), each rank
// does the units it receives, rank 0 journals a unit once its rank reports it done, and an error
// on any rank stops every rank with that rank's message.

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "dist/work_dispatch.hpp"
#include "run/journalled_items.hpp"
#include "run/lifecycle.hpp"

namespace astrosweep::run {

/// What the loop finished in this run, the same on every rank.
struct UnitsFinished {
  std::uint64_t units = 0;
  std::uint64_t items = 0;
};

/// Collective over run.comm(). `units` is rank 0's plan (ignored elsewhere); `progress` rank 0's
/// reporter (null elsewhere). `work` does one unit on this rank and must have made its results
/// durable when it returns: rank 0 journals the unit as soon as its rank reports it, so a journalled
/// unit is never lost whatever kills the run. A stop signal on any rank ends the hand-out once the
/// units in hand are done. An exception from `work` stops every rank at once (MPI_Abort) with this
/// rank's message and the error's exit code: unwinding instead would leave the other ranks, and
/// rank 0's dispatcher thread, waiting for a rank that never asks again.
UnitsFinished run_units(Lifecycle& run, std::vector<WorkUnit> units, ProgressReporter* progress,
                        const std::function<void(const WorkUnit&)>& work);

/// The same with `lanes` units in hand at once on this rank (1..WorkDispatcher::max_lanes; ranks
/// may differ): lane 0 on the calling thread, the others on threads of their own, each asking for
/// its next unit when it is done, so one lane's host work overlaps another's device work. `work`
/// is called concurrently from the lanes with the lane's index: what it shares (an HDF5 file, a
/// non-thread-safe library) it must guard itself.
UnitsFinished run_units(Lifecycle& run, std::vector<WorkUnit> units, ProgressReporter* progress, int lanes,
                        const std::function<void(const WorkUnit&, int lane)>& work);

/// After run_units: when a stop signal ended the hand-out before all `n_units` were done, `close`
/// closes the product (on every rank) and the run ends as interrupted (Lifecycle::interrupted, exit
/// 6), counting the earlier runs' work in `resumed`: "7 of 20 units done (350 of 1000 objects)".
/// `recorded` says what is kept ("its finished units are"). Returns when everything is done.
void stop_if_interrupted(Lifecycle& run, const UnitsFinished& finished, std::uint64_t n_units,
                         const JournalledItems& resumed, std::uint64_t n_items, const std::string& noun,
                         const std::function<void()>& close, const std::string& recorded);

}  // namespace astrosweep::run
