// Fuzz target: the SoFiA-2 parameter-file parser (jobs/scfind/sofia_parameter_file.cpp) and what
// `astrosweep scfind --par FILE` makes of it: the values turned into scfind parameters and
// checked (jobs/scfind/scfind_command.cpp, jobs/scfind/scfind_config.cpp), without running the job.
#include <algorithm>
#include <cmath>

#include "fuzz_harness.hpp"
#include "scfind_command.hpp"
#include "sofia_parameter_file.hpp"

using namespace astrosweep;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = fuzz::scratch_file("input.par", data, size);
  fuzz::expect_rejection_or_success([&] { scfind::read_sofia_parameter_file(path); });
  fuzz::expect_rejection_or_success([&] {
    const auto options = scfind::parse_scfind_options({"--par", path}, MPI_COMM_SELF);
    fuzz::require(options.has_value(), "no --help, so options");
    const auto& p = options->parameters;
    fuzz::require(!p.kernels_xy.empty() && !p.kernels_z.empty(), "kernels on both axes");
    fuzz::require(std::is_sorted(p.kernels_xy.begin(), p.kernels_xy.end()) &&
                      std::is_sorted(p.kernels_z.begin(), p.kernels_z.end()),
                  "kernels sorted as SoFiA-2 runs them");
    fuzz::require(std::isfinite(p.threshold) && p.threshold > 0 && std::isfinite(p.replacement),
                  "threshold and replacement checked");
    fuzz::require(!options->input.empty() && !options->output.empty(), "an input and an output");
  });
  return 0;
}
