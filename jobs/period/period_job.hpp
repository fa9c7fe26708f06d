#pragma once
// The period job end to end: open the catalog on every rank, choose the grid and plan the work on
// rank 0, create the product collectively, then compute and write work units handed out
// dynamically, and finish the product.

#include <mpi.h>

#include <string>

#include "frequency_grid.hpp"
#include "io/catalog.hpp"
#include "period_backend.hpp"
#include "period_config.hpp"

namespace astrosweep::period {

struct PeriodOptions {
  io::CatalogOptions catalog;
  std::string output;
  bool overwrite = false;
  GridRequest grid;
  PeriodConfig config;  ///< grid filled in by the job
  BackendOptions backend;
  double progress_interval = 10;  ///< seconds between progress lines
  bool quiet = false;             ///< no result table
  std::string command_line;
};

/// Collective over `comm`; returns normally on success, throws astrosweep::Error otherwise.
void run_period_job(const PeriodOptions& options, MPI_Comm comm);

}  // namespace astrosweep::period
