#include "coherent_distribution.hpp"

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdint>
#include <exception>
#include <numeric>
#include <string>

#include "core/error.hpp"
#include "core/interrupt.hpp"
#include "core/mpi.hpp"

namespace astrosweep::spiir {

double second_pass_batch_cost(const SecondPassBatch& batch, std::span<const SecondPassTask> tasks, std::size_t n_det,
                              const std::function<std::size_t(std::size_t)>& n_filters, std::size_t trials,
                              std::size_t searched_pixels) {
  std::size_t longest = 1;
  for (const std::size_t t : batch.templates) longest = std::max(longest, n_filters(t));
  const double filtering = static_cast<double>(batch.end - batch.first) * static_cast<double>(n_det * longest);
  std::size_t candidates = 0;
  for (const std::size_t t : batch.tasks) candidates += tasks[t].candidates.size();
  const double search = static_cast<double>(candidates * trials * searched_pixels * n_det);
  return filtering + search;
}

std::vector<int> assign_tasks(std::span<const double> costs, int n_ranks) {
  AS_ASSERT(n_ranks >= 1);
  std::vector<std::size_t> order(costs.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return costs[a] > costs[b]; });
  std::vector<double> load(static_cast<std::size_t>(n_ranks), 0.0);
  std::vector<int> owner(costs.size(), 0);
  for (const std::size_t t : order) {
    const auto least = std::min_element(load.begin(), load.end()) - load.begin();  // the first of equals
    owner[t] = static_cast<int>(least);
    load[static_cast<std::size_t>(least)] += costs[t];
  }
  return owner;
}

namespace {

// A result as doubles (ints and offsets exactly): ρ_coh², ρ_null², pixel, Σχ², then per detector
// ζ's real and imaginary parts, χ², offset, delay.
std::size_t packed_size(std::size_t n_det) { return 4 + 5 * n_det; }

void pack(const CoherentResult& r, std::size_t n_det, double* out) {
  out[0] = r.coh_snr2;
  out[1] = r.null_snr2;
  out[2] = static_cast<double>(r.pixel);
  out[3] = r.network_chisq;
  for (std::size_t d = 0; d < n_det; ++d) {
    double* o = out + 4 + 5 * d;
    o[0] = r.snr[d].real();
    o[1] = r.snr[d].imag();
    o[2] = r.chisq[d];
    o[3] = r.offset[d];
    o[4] = r.delay[d];
  }
}

CoherentResult unpack(const double* in, std::size_t n_det) {
  CoherentResult r;
  r.coh_snr2 = in[0];
  r.null_snr2 = in[1];
  r.pixel = static_cast<std::int64_t>(in[2]);
  r.network_chisq = in[3];
  for (std::size_t d = 0; d < n_det; ++d) {
    const double* i = in + 4 + 5 * d;
    r.snr.emplace_back(i[0], i[1]);
    r.chisq.push_back(i[2]);
    r.offset.push_back(static_cast<std::int32_t>(i[3]));
    r.delay.push_back(i[4]);
  }
  return r;
}

int mpi_count(std::size_t n) {
  AS_ASSERT(n <= static_cast<std::size_t>(INT_MAX));  // gather_results checked the whole first
  return static_cast<int>(n);
}

}  // namespace

std::vector<CoherentResult> gather_results(MPI_Comm comm, std::size_t n_candidates, std::size_t trials,
                                           std::size_t n_det, std::span<const std::size_t> rows,
                                           std::span<const CoherentResult> results) {
  AS_ASSERT(results.size() == rows.size() * trials);
  int rank = 0, size = 1;
  AS_MPI_TRY(MPI_Comm_rank(comm, &rank));
  AS_MPI_TRY(MPI_Comm_size(comm, &size));
  const std::size_t per = packed_size(n_det);
  // Every rank knows the whole size: all refuse together (MPI counts are int), none waits.
  if (n_candidates * trials * per > static_cast<std::size_t>(INT_MAX))
    throw mpi::SharedError(ExitCode::usage,
                           "the coherent stage's results (" + std::to_string(n_candidates) + " candidates x " +
                               std::to_string(trials) + " trials) exceed what one MPI gather carries",
                           "raise --threshold or lower --n-slides");
  std::vector<double> mine(results.size() * per);
  for (std::size_t i = 0; i < results.size(); ++i) pack(results[i], n_det, mine.data() + i * per);
  std::vector<std::uint64_t> my_rows(rows.begin(), rows.end());
  int n_rows = mpi_count(my_rows.size());
  std::vector<int> counts(static_cast<std::size_t>(size)), offsets(static_cast<std::size_t>(size));
  AS_MPI_TRY(MPI_Gather(&n_rows, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, comm));
  std::vector<std::uint64_t> all_rows;
  std::vector<double> all;
  if (rank == 0) {
    std::size_t total = 0;
    for (int r = 0; r < size; ++r) {
      offsets[static_cast<std::size_t>(r)] = mpi_count(total);
      total += static_cast<std::size_t>(counts[static_cast<std::size_t>(r)]);
    }
    AS_ASSERT(total == n_candidates);
    all_rows.resize(total);
  }
  AS_MPI_TRY(MPI_Gatherv(my_rows.data(), n_rows, MPI_UINT64_T, all_rows.data(), counts.data(), offsets.data(),
                         MPI_UINT64_T, 0, comm));
  // The same again for the results, trials × per doubles per row.
  const std::size_t row_doubles = trials * per;
  std::vector<int> value_counts(counts.size()), value_offsets(counts.size());
  if (rank == 0) {
    for (std::size_t r = 0; r < counts.size(); ++r) {
      value_counts[r] = mpi_count(static_cast<std::size_t>(counts[r]) * row_doubles);
      value_offsets[r] = mpi_count(static_cast<std::size_t>(offsets[r]) * row_doubles);
    }
    all.resize(n_candidates * row_doubles);
  }
  AS_MPI_TRY(MPI_Gatherv(mine.data(), mpi_count(mine.size()), MPI_DOUBLE, all.data(), value_counts.data(),
                         value_offsets.data(), MPI_DOUBLE, 0, comm));
  std::vector<CoherentResult> out;
  if (rank != 0) return out;
  out.resize(n_candidates * trials);
  std::vector<bool> seen(n_candidates, false);
  for (std::size_t i = 0; i < all_rows.size(); ++i) {
    const auto c = static_cast<std::size_t>(all_rows[i]);
    AS_ASSERT(c < n_candidates && !seen[c]);
    seen[c] = true;
    for (std::size_t t = 0; t < trials; ++t) out[c * trials + t] = unpack(all.data() + (i * trials + t) * per, n_det);
  }
  return out;
}

NetworkSnr windows_on_root(const RankCoherentStage& stage, const CoherentStagePlan& plan,
                           const std::vector<std::string>& ifos, std::span<const SecondPassTask> tasks,
                           const SecondPassFilter& filter, std::span<const std::size_t> kept) {
  const std::size_t n_det = ifos.size();
  std::vector<std::size_t> task_of(plan.candidates.size());
  for (std::size_t t = 0; t < tasks.size(); ++t)
    for (const std::size_t c : tasks[t].candidates) task_of[c] = t;
  std::vector<std::size_t> again_tasks;
  for (const std::size_t c : kept)
    if (!std::binary_search(stage.root_tasks.begin(), stage.root_tasks.end(), task_of[c]))
      again_tasks.push_back(task_of[c]);
  std::sort(again_tasks.begin(), again_tasks.end());
  again_tasks.erase(std::unique(again_tasks.begin(), again_tasks.end()), again_tasks.end());
  const CapturedWindows again = capture_windows(plan, ifos, tasks, again_tasks, filter, false);
  // Each candidate's row, per detector, in whichever capture holds it.
  const std::size_t width = plan.window_length();
  std::vector<const std::complex<double>*> row_of(plan.candidates.size() * n_det, nullptr);
  for (const CapturedWindows* w : {&stage.root_windows, &again})
    for (std::size_t r = 0; r < w->rows.size(); ++r)
      for (std::size_t d = 0; d < n_det; ++d) row_of[w->rows[r] * n_det + d] = w->snr.z[d].data() + r * width;
  NetworkSnr out{ifos, kept.size(), width, std::vector<std::vector<std::complex<double>>>(n_det)};
  for (std::size_t d = 0; d < n_det; ++d)
    for (const std::size_t c : kept) {
      const std::complex<double>* row = row_of[c * n_det + d];
      AS_ASSERT(row != nullptr);
      out.z[d].insert(out.z[d].end(), row, row + width);
    }
  return out;
}

RankCoherentStage run_coherent_stage_on_ranks(MPI_Comm comm, const SpiirBank& bank, const CoherentStageInput& input,
                                              const CoherentStageSettings& settings, const CoherentStagePlan& plan,
                                              std::span<const SecondPassTask> tasks, const SecondPassFilter& filter,
                                              CoherentSkyMaps& maps) {
  int rank = 0, size = 1;
  AS_MPI_TRY(MPI_Comm_rank(comm, &rank));
  AS_MPI_TRY(MPI_Comm_size(comm, &size));
  const std::size_t n_det = input.ifos.size();
  const auto trials = static_cast<std::size_t>(plan.trials());
  const std::size_t n_pix = 12 * (std::size_t{1} << (2 * settings.sky_order));
  const std::size_t searched =
      (n_pix + static_cast<std::size_t>(settings.sky_stride) - 1) / static_cast<std::size_t>(settings.sky_stride);
  // Batches go whole to a rank, cut as every rank cuts them: ranks may resolve other backends
  // (auto: the GPU where a rank sees one; a CPU rank cuts batches to one template), and the
  // assignment must be the same on all, so the smallest cut wins. A rank batches its tasks again
  // by its own rule in capture_windows; no result depends on it.
  std::uint64_t most = filter.max_batch_templates > 0 ? filter.max_batch_templates : UINT64_MAX;
  AS_MPI_TRY(MPI_Allreduce(MPI_IN_PLACE, &most, 1, MPI_UINT64_T, MPI_MIN, comm));
  SecondPassFilter spread = filter;
  spread.max_batch_templates = most == UINT64_MAX ? 0 : static_cast<std::size_t>(most);
  std::vector<std::size_t> every(tasks.size());
  std::iota(every.begin(), every.end(), std::size_t{0});
  const std::vector<SecondPassBatch> batches = batch_second_pass(tasks, every, spread);
  const auto n_filters = [&](std::size_t tmpl) {
    std::size_t n = 0;
    for (const auto& r : bank.rates) n += static_cast<std::size_t>(r.n_filters[tmpl]);
    return n;
  };
  std::vector<double> costs;
  for (const auto& b : batches) costs.push_back(second_pass_batch_cost(b, tasks, n_det, n_filters, trials, searched));
  const std::vector<int> owners = assign_tasks(costs, size);
  std::vector<std::size_t> mine;
  RankCoherentStage stage;
  for (std::size_t b = 0; b < batches.size(); ++b)
    if (owners[b] == rank) mine.insert(mine.end(), batches[b].tasks.begin(), batches[b].tasks.end());
  std::sort(mine.begin(), mine.end());  // windows_on_root searches root_tasks
  stage.my_tasks = mine.size();
  std::vector<std::size_t> rows;
  std::vector<CoherentResult> results;
  mpi::on_every_rank_then_share_failure(comm, [&] {
    const auto t0 = std::chrono::steady_clock::now();
    CapturedWindows captured = capture_windows(plan, input.ifos, tasks, mine, filter);
    stage.my_filtered_samples = captured.filtered_samples;
    stage.my_batches = captured.batches;
    stage.my_candidates = captured.rows.size();
    if (captured.stopped) return;  // a stop signal: any_rank below tells every rank
    results = search_candidates(bank, input, settings, plan, captured.rows, captured.snr, maps, search_batch_candidates,
                                true);
    rows = captured.rows;
    if (rank == 0 && settings.skymaps) {
      stage.root_windows = std::move(captured);
      stage.root_tasks = mine;
    }
    stage.my_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  });
  if (interrupt::any_rank(comm)) {
    stage.interrupted = true;
    return stage;
  }
  stage.results = gather_results(comm, plan.candidates.size(), trials, n_det, rows, results);
  return stage;
}

}  // namespace astrosweep::spiir
