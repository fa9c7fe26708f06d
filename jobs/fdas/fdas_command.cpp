#include "fdas_command.hpp"

#include "core/job.hpp"
#include "fdas_job.hpp"
#include "fdas_options.hpp"

namespace astrosweep::fdas {

int fdas_command(const std::vector<std::string>& args, MPI_Comm comm) {
  const auto options = parse_fdas_options(args, comm);
  if (!options) return 0;
  run_fdas_job(*options, comm);
  return 0;
}

}  // namespace astrosweep::fdas

namespace astrosweep::jobs {
const Job& fdas() {
  static const Job job{"fdas", "Fourier-domain acceleration search over dedispersed time series (pulsars)", false,
                       fdas::fdas_command};
  return job;
}
}  // namespace astrosweep::jobs
