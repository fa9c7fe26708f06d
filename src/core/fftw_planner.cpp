#include "core/fftw_planner.hpp"

namespace astrosweep {

std::mutex& fftw_planner_lock() noexcept {
  static std::mutex lock;
  return lock;
}

}  // namespace astrosweep
