#pragma once
// Several work units in hand at once on a rank ("lanes", run::run_units with lanes): the option
// every job with a unit loop shares, --units-in-flight N, with one meaning (docs/user-guide.md,
// "Units in flight"), and each lane's share of the rank's resources. A job makes one backend per
// lane from lane_share(...) and serialises what its lanes share (HDF5, CFITSIO) itself.

#include <boost/program_options.hpp>

#include "core/backend.hpp"

namespace astrosweep::run {

/// The most --units-in-flight a rank may ask for (each lane holds a backend with its share of the
/// budgets).
inline constexpr int max_units_in_flight = 8;

/// The "Work in flight" group of a job's --help: --units-in-flight (default 0, automatic).
boost::program_options::options_description units_in_flight_options();

/// Reads and checks --units-in-flight: 0 (automatic) … max_units_in_flight, UsageError otherwise.
int read_units_in_flight(const boost::program_options::variables_map& vm);

/// --units-in-flight with 0 resolved for a rank whose backend is `resolved` (resolve_backend's
/// answer, never automatic): three lanes on a GPU rank, so that the units' host work (reading,
/// preparing, selecting or polishing candidates, writing) overlaps the kernels; one on a CPU rank,
/// whose threads are all busy computing anyway. (period, 10^5 TESS-like curves on an H200: 7.97 s
/// with one lane, 6.58 with two, 5.50 with three, 5.48 with four; docs/performance.md.)
int lanes_for(int units_in_flight, BackendKind resolved) noexcept;

/// A lane's share of the rank's resources: its threads (at least one), host buffers and GPU
/// memory; `lanes` recorded so that a GPU backend divides its device's free memory among them.
BackendOptions lane_share(BackendOptions options, int lanes);

}  // namespace astrosweep::run
