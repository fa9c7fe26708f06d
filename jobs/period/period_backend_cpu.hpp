#pragma once
#include <memory>

#include "period_backend.hpp"

namespace astrosweep::period {
std::unique_ptr<PeriodBackend> make_period_backend_cpu(const BackendOptions& options);
}  // namespace astrosweep::period
