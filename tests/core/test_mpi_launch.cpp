// The start-up check before MPI_Init: several srun tasks without a process-management interface
// are refused with what happened; every start MPI can handle passes.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "core/mpi_launch.hpp"

namespace astrosweep::mpi {
namespace {

std::optional<std::string> problem_with(const std::map<std::string, std::string>& variables) {
  return launch_problem([&](const char* name) -> std::optional<std::string> {
    const auto it = variables.find(name);
    if (it == variables.end()) return std::nullopt;
    return it->second;
  });
}

TEST(MpiLaunch, SeveralSrunTasksWithoutPmiAreAProblem) {
  const auto problem = problem_with({{"SLURM_STEP_ID", "0"}, {"SLURM_STEP_NUM_TASKS", "4"}, {"SLURM_PROCID", "2"}});
  ASSERT_TRUE(problem.has_value());
  EXPECT_NE(problem->find("srun started 4 tasks"), std::string::npos) << *problem;
  EXPECT_NE(problem->find("MpiDefault=none"), std::string::npos) << *problem;
  // Old Slurm names: SLURM_STEPID, and the job's task count.
  EXPECT_TRUE(problem_with({{"SLURM_STEPID", "1"}, {"SLURM_NTASKS", "2"}}).has_value());
}

TEST(MpiLaunch, StartsMpiCanJoinPass) {
  EXPECT_FALSE(problem_with({}).has_value());                                           // mpirun, or by hand
  EXPECT_FALSE(problem_with({{"SLURM_JOB_ID", "7"}, {"SLURM_NTASKS", "8"}}));           // batch shell, no step
  EXPECT_FALSE(problem_with({{"SLURM_STEP_ID", "0"}, {"SLURM_STEP_NUM_TASKS", "1"}}));  // one task: one rank
  for (const char* pmi : {"PMIX_RANK", "PMI_RANK", "PMI_FD", "PMI_SIZE", "OMPI_COMM_WORLD_SIZE"})
    EXPECT_FALSE(problem_with({{"SLURM_STEP_ID", "0"}, {"SLURM_STEP_NUM_TASKS", "4"}, {pmi, "0"}})) << pmi;
  // A task count that is not a number is not ours to judge.
  EXPECT_FALSE(problem_with({{"SLURM_STEP_ID", "0"}, {"SLURM_STEP_NUM_TASKS", "four"}}));
}

}  // namespace
}  // namespace astrosweep::mpi
