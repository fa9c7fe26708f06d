#pragma once
// How the coherent stage's second pass and search are spread over the ranks (docs/spiir.md, "The
// coherent stage on many ranks"): each batch of second-pass tasks (coherent_second_pass.hpp) goes to
// one rank by a static assignment balanced by cost; a rank captures its tasks' windows and searches
// their candidates; the results, a few numbers per candidate and trial, are gathered to rank 0 in
// candidate order. Where a task runs changes no bit of its results.
#include <mpi.h>

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "coherent_second_pass.hpp"
#include "coherent_snr.hpp"

namespace astrosweep::spiir {

/// A batch's estimated cost: its filtering (range × detectors × the most filters of its templates:
/// they run side by side, a thread each on the CPU, a thread block each on a GPU, so the longest
/// template sets the time) plus its search (candidates × trials × pixels searched × detectors).
/// `n_filters` gives a template's filters summed over the rates.
double second_pass_batch_cost(const SecondPassBatch& batch, std::span<const SecondPassTask> tasks, std::size_t n_det,
                              const std::function<std::size_t(std::size_t)>& n_filters, std::size_t trials,
                              std::size_t searched_pixels);

/// The owner of each task (here: each batch, whose tasks stay together) among `n_ranks`: the
/// costliest first, each to the least loaded rank (ties: the lower index, the lower rank).
/// Deterministic; balance only, never results.
std::vector<int> assign_tasks(std::span<const double> costs, int n_ranks);

/// What the distributed stage leaves: rank 0 every candidate's results; every rank its own share.
struct RankCoherentStage {
  std::vector<CoherentResult> results;  ///< rank 0: candidate-major, trials each (empty elsewhere)
  std::size_t my_tasks = 0, my_candidates = 0;
  std::size_t my_batches = 0;             ///< the filter calls per detector this rank made (its backend's batches)
  std::uint64_t my_filtered_samples = 0;  ///< template-samples × detectors this rank filtered
  double my_seconds = 0;                  ///< this rank's second pass and search
  bool interrupted = false;               ///< a stop signal on any rank: no results
  /// Rank 0 with settings.skymaps: its own tasks' windows (the /skymaps of their triggers need no
  /// second filtering); `root_tasks` are those tasks.
  CapturedWindows root_windows;
  std::vector<std::size_t> root_tasks;
};

/// Collective: the tasks spread by assign_tasks, each rank capturing its tasks' windows and
/// searching their candidates, the results gathered to rank 0. A failure on any rank stops every
/// rank with that rank's message (mpi::on_every_rank_then_share_failure); a stop signal on any rank
/// returns `interrupted` on every rank, the results dropped (--resume redoes the stage).
RankCoherentStage run_coherent_stage_on_ranks(MPI_Comm comm, const SpiirBank& bank, const CoherentStageInput& input,
                                              const CoherentStageSettings& settings, const CoherentStagePlan& plan,
                                              std::span<const SecondPassTask> tasks, const SecondPassFilter& filter,
                                              CoherentSkyMaps& maps);

/// Rank 0, for /skymaps: the windows of candidates `kept` (rows in that order), from its own
/// tasks' windows kept in `stage` or, for the tasks other ranks ran, by filtering those tasks again
/// (the same tasks, so the same windows bit for bit; not stopped by a signal).
NetworkSnr windows_on_root(const RankCoherentStage& stage, const CoherentStagePlan& plan,
                           const std::vector<std::string>& ifos, std::span<const SecondPassTask> tasks,
                           const SecondPassFilter& filter, std::span<const std::size_t> kept);

/// Collective: every rank's results (`trials` per row, row r the candidate rows[r]) to rank 0,
/// which returns all `n_candidates` × `trials`, candidate-major; the other ranks return nothing.
std::vector<CoherentResult> gather_results(MPI_Comm comm, std::size_t n_candidates, std::size_t trials,
                                           std::size_t n_det, std::span<const std::size_t> rows,
                                           std::span<const CoherentResult> results);

}  // namespace astrosweep::spiir
