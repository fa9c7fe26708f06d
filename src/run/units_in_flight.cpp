#include "run/units_in_flight.hpp"

#include <algorithm>
#include <string>

#include "core/cpu_affinity.hpp"
#include "core/error.hpp"

namespace astrosweep::run {

namespace po = boost::program_options;

po::options_description units_in_flight_options() {
  po::options_description d("Work in flight");
  d.add_options()("units-in-flight", po::value<int>()->default_value(0),
                  "work units a rank works on at once, each on its own thread (0: 3 on a GPU rank, so that the "
                  "units' host work overlaps the kernels; 1 on a CPU rank)");
  return d;
}

int read_units_in_flight(const po::variables_map& vm) {
  const int n = vm["units-in-flight"].as<int>();
  AS_EXPECTS(n >= 0 && n <= max_units_in_flight, UsageError,
             "--units-in-flight must be between 0 (automatic) and " + std::to_string(max_units_in_flight));
  return n;
}

int lanes_for(int units_in_flight, BackendKind resolved) noexcept {
  if (units_in_flight > 0) return units_in_flight;
  return resolved == BackendKind::cuda ? 3 : 1;
}

BackendOptions lane_share(BackendOptions options, int lanes) {
  if (lanes == 1) return options;
  const int threads = options.threads > 0 ? options.threads : affinity::default_threads();
  options.threads = std::max(1, threads / lanes);
  options.host_memory_budget /= static_cast<std::uint64_t>(lanes);
  options.device_memory_budget /= static_cast<std::uint64_t>(lanes);
  options.lanes = lanes;
  return options;
}

}  // namespace astrosweep::run
