#include "core/job.hpp"

namespace astrosweep {

const Job* find_job(const std::string& name) {
  for (const Job* job : registered_jobs())
    if (job->name == name) return job;
  return nullptr;
}

}  // namespace astrosweep
