#pragma once
#include <memory>

#include "period_backend.hpp"

namespace astrosweep::period {
std::unique_ptr<PeriodBackend> make_openmp_backend(const BackendOptions& options);
}  // namespace astrosweep::period
