#include "fft.hpp"

#include <fftw3.h>

#include <mutex>
#include <string>

#include "core/error.hpp"
#include "core/fftw_planner.hpp"

namespace astrosweep::spiir {

void fft_in_place(std::vector<std::complex<double>>& data, FftDirection direction) {
  if (data.empty()) return;
  auto* buffer = reinterpret_cast<fftw_complex*>(data.data());
  const int sign = direction == FftDirection::forward ? FFTW_FORWARD : FFTW_BACKWARD;
  fftw_plan plan = nullptr;
  {
    const std::scoped_lock lock(fftw_planner_lock());
    plan = fftw_plan_dft_1d(static_cast<int>(data.size()), buffer, buffer, sign, FFTW_ESTIMATE);
  }
  AS_EXPECTS(plan != nullptr, RuntimeError, "FFTW cannot plan a transform of length " + std::to_string(data.size()));
  fftw_execute(plan);
  const std::scoped_lock lock(fftw_planner_lock());
  fftw_destroy_plan(plan);
}

std::uint64_t next_power_of_two(std::uint64_t n) {
  std::uint64_t p = 1;
  while (p < n) p <<= 1;
  return p;
}

}  // namespace astrosweep::spiir
