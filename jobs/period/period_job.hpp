#pragma once
// The period job end to end: open the catalog on every rank, choose the grid and plan the work on
// rank 0 (with --resume: only what the journal of an interrupted run does not record), create or
// reopen the product collectively, then compute and write work units handed out dynamically,
// journal each once its rows are durable, and finish the product. A stop signal ends the hand-out
// and the job with ExitCode::interrupted, leaving a product --resume continues.

#include <mpi.h>

#include <string>

#include "frequency_grid.hpp"
#include "io/catalog.hpp"
#include "period_backend.hpp"
#include "period_config.hpp"
#include "run/common_options.hpp"

namespace astrosweep::period {

struct PeriodOptions : run::CommonOptions {
  io::CatalogOptions catalog;
  GridRequest grid;
  PeriodConfig config;      ///< grid filled in by the job
  int units_in_flight = 0;  ///< --units-in-flight (run/units_in_flight.hpp); 0: automatic
};

/// Collective over `comm`; returns normally on success (or when --resume finds the product
/// complete), throws astrosweep::Error otherwise (interrupt::Interrupted after a stop signal).
void run_period_job(const PeriodOptions& options, MPI_Comm comm);

}  // namespace astrosweep::period
