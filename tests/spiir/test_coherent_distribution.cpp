// The coherent stage over the ranks (coherent_distribution.hpp), on any rank count (run on 1 and 3):
// the static assignment of tasks, the gather of every rank's results to rank 0 in candidate order,
// and a failure on one rank reaching every rank as that rank's error, none waiting; the search's
// batches of candidates, which must not change any result; the second pass's batches, cut alike
// or differently on the ranks, which must not either.
#include <gtest/gtest.h>
#include <mpi.h>

#include <random>
#include <vector>

#include "coherent_distribution.hpp"
#include "coherent_test_support.hpp"
#include "coherent_triggers.hpp"
#include "core/error.hpp"
#include "core/mpi.hpp"
#include "spiir_units.hpp"
#include "test_data.hpp"

namespace astrosweep::spiir {
namespace {

TEST(SecondPassTasks, AssignmentIsBalancedAndDependsOnTheCostsAlone) {
  const std::vector<double> costs = {5, 1, 4, 4, 2, 8};
  // Costliest first to the least loaded: 8 -> rank 0, 5 -> 1, 4 -> 1 (9), 4 -> 0 (12), 2 -> 1 (11),
  // 1 -> 1 (12).
  EXPECT_EQ(assign_tasks(costs, 2), (std::vector<int>{1, 1, 1, 0, 1, 0}));
  EXPECT_EQ(assign_tasks(costs, 1), (std::vector<int>(6, 0)));
  const auto three = assign_tasks(costs, 3);
  std::vector<double> load(3, 0);
  for (std::size_t t = 0; t < costs.size(); ++t) load[static_cast<std::size_t>(three[t])] += costs[t];
  EXPECT_EQ(load, (std::vector<double>{8, 8, 8}));
  EXPECT_EQ(assign_tasks(costs, 7).size(), costs.size());  // more ranks than tasks
}

// A result whose every field says which candidate and trial it is.
CoherentResult result_of(std::size_t c, std::size_t t, std::size_t n_det) {
  CoherentResult r;
  r.coh_snr2 = 100.0 * static_cast<double>(c) + static_cast<double>(t) + 0.25;
  r.null_snr2 = -r.coh_snr2;
  r.pixel = static_cast<std::int64_t>(c * 7 + t);
  r.network_chisq = 1.0 / (1.0 + r.coh_snr2);
  for (std::size_t d = 0; d < n_det; ++d) {
    r.snr.emplace_back(r.coh_snr2 + static_cast<double>(d), -static_cast<double>(d) - 0.5);
    r.chisq.push_back(static_cast<double>(d) * 0.125);
    r.offset.push_back(static_cast<std::int32_t>(d) - static_cast<std::int32_t>(t));
    r.delay.push_back(static_cast<double>(r.offset.back()) + 0.375);
  }
  return r;
}

TEST(CoherentDistribution, ResultsGatherToRankZeroInCandidateOrder) {
  const std::size_t n_candidates = 11, trials = 3, n_det = 3;
  const int rank = test::world_rank(), size = test::world_size();
  // Candidates dealt out backwards and unevenly: rank r holds c with (c * 5) mod size == r.
  std::vector<std::size_t> rows;
  std::vector<CoherentResult> mine;
  for (std::size_t c = n_candidates; c-- > 0;)
    if (static_cast<int>((c * 5) % static_cast<std::size_t>(size)) == rank) {
      rows.push_back(c);
      for (std::size_t t = 0; t < trials; ++t) mine.push_back(result_of(c, t, n_det));
    }
  const auto all = gather_results(MPI_COMM_WORLD, n_candidates, trials, n_det, rows, mine);
  if (rank != 0) {
    EXPECT_TRUE(all.empty());
    return;
  }
  ASSERT_EQ(all.size(), n_candidates * trials);
  for (std::size_t c = 0; c < n_candidates; ++c)
    for (std::size_t t = 0; t < trials; ++t) {
      const CoherentResult& got = all[c * trials + t];
      const CoherentResult want = result_of(c, t, n_det);
      EXPECT_EQ(got.coh_snr2, want.coh_snr2);
      EXPECT_EQ(got.null_snr2, want.null_snr2);
      EXPECT_EQ(got.pixel, want.pixel);
      EXPECT_EQ(got.network_chisq, want.network_chisq);
      EXPECT_EQ(got.snr, want.snr);
      EXPECT_EQ(got.chisq, want.chisq);
      EXPECT_EQ(got.offset, want.offset);
      EXPECT_EQ(got.delay, want.delay);
    }
}

TEST(CoherentDistribution, AFailureOnTheLastRankStopsEveryRankWithItsMessage) {
  const int rank = test::world_rank(), size = test::world_size();
  EXPECT_NO_THROW(mpi::on_every_rank_then_share_failure(MPI_COMM_WORLD, [] {}));
  try {
    mpi::on_every_rank_then_share_failure(MPI_COMM_WORLD, [&] {
      if (rank == size - 1) throw InputError("the last rank's template cannot be filtered", "a hint");
    });
    FAIL() << "no rank threw";
  } catch (const mpi::SharedError& e) {
    EXPECT_EQ(e.code(), ExitCode::input);
    const std::string expected = (size > 1 ? "rank " + std::to_string(size - 1) + ": " : std::string()) +
                                 "the last rank's template cannot be filtered";
    EXPECT_EQ(std::string(e.what()), expected);
    EXPECT_EQ(e.hint(), "a hint");
  }
  // Two ranks fail: the lower one speaks.
  try {
    mpi::on_every_rank_then_share_failure(MPI_COMM_WORLD, [&] {
      if (rank >= size - 2) throw OutputError("failed on rank " + std::to_string(rank));
    });
    FAIL() << "no rank threw";
  } catch (const mpi::SharedError& e) {
    EXPECT_EQ(e.code(), ExitCode::output);
    EXPECT_NE(std::string(e.what()).find("failed on rank " + std::to_string(std::max(0, size - 2))), std::string::npos);
  }
}

// 12 candidates (4 peaks per detector of H1, L1, V1, two of them in a second 1800-s block) with
// random windows, searched whole, one at a time and 5 at a time: every result the same bits.
TEST(CoherentSearchBatches, ResultsDoNotDependOnTheBatch) {
  const SpiirBank& bank = coherent_test::network().bank;
  CoherentStageInput input{"test bank", coherent_test::hlv, 1187008882, 400000000, 2048, 2048 * 4000, {}, {}};
  CoherentStageSettings settings;
  settings.sky_order = 2;
  settings.n_slides = 3;
  settings.slide_seconds = 0.01;
  settings.precision = Precision::fp64;
  for (std::size_t d = 0; d < 3; ++d) {
    input.peak_samples.push_back({20000, 90000 + 37 * static_cast<std::int64_t>(d), 2048 * 1900, 2048 * 3000});
    input.peak_templates.push_back({0, 0, 0, 0});
  }
  const CoherentStagePlan plan = plan_coherent_stage(bank, input, settings);
  ASSERT_EQ(plan.candidates.size(), 12u);
  std::vector<std::size_t> members(plan.candidates.size());
  for (std::size_t m = 0; m < members.size(); ++m) members[m] = m;
  NetworkSnr windows{input.ifos, members.size(), plan.window_length(), {}};
  std::mt19937_64 rng(5);
  std::normal_distribution<double> g;
  for (std::size_t d = 0; d < 3; ++d) {
    windows.z.emplace_back(members.size() * plan.window_length());
    for (auto& z : windows.z.back()) z = {g(rng), g(rng)};
  }
  CoherentSkyMaps maps(input, settings, plan);
  const auto whole = search_candidates(bank, input, settings, plan, members, windows, maps, 1000);
  ASSERT_EQ(whole.size(), members.size() * static_cast<std::size_t>(plan.trials()));
  for (const std::size_t batch : {std::size_t{1}, std::size_t{5}}) {
    const auto cut = search_candidates(bank, input, settings, plan, members, windows, maps, batch);
    ASSERT_EQ(cut.size(), whole.size());
    for (std::size_t i = 0; i < whole.size(); ++i) {
      EXPECT_EQ(cut[i].pixel, whole[i].pixel) << "batch " << batch << " result " << i;
      EXPECT_EQ(cut[i].coh_snr2, whole[i].coh_snr2) << "batch " << batch << " result " << i;
      EXPECT_EQ(cut[i].null_snr2, whole[i].null_snr2) << "batch " << batch << " result " << i;
      EXPECT_EQ(cut[i].network_chisq, whole[i].network_chisq) << "batch " << batch << " result " << i;
      EXPECT_EQ(cut[i].offset, whole[i].offset) << "batch " << batch << " result " << i;
    }
  }
}

// The whole distributed stage over a bank of three copies of one template, its candidates' tasks
// sharing ranges (a coarse granule), their windows a made-up SNR of (template, detector, sample)
// alone: with batches of any size, and with ranks that cut batches differently (a CPU rank cuts
// them to one template, a GPU rank does not: --backend auto on a mixed allocation), every
// candidate's results reach rank 0, the same bits.
TEST(CoherentDistribution, RanksThatBatchDifferentlyGiveTheSameResults) {
  const int rank = test::world_rank();
  const SpiirBank bank = template_rows(coherent_test::network().bank, std::vector<std::size_t>{0, 0, 0});
  CoherentStageInput input{"test bank", coherent_test::hlv, 1187008882, 400000000, 2048, 2048 * 64, {}, {}};
  CoherentStageSettings settings;
  settings.sky_order = 1;
  settings.n_slides = 2;
  settings.slide_seconds = 0.01;
  settings.precision = Precision::fp64;
  for (std::size_t d = 0; d < 3; ++d) {
    const auto s = static_cast<std::int64_t>(d);
    input.peak_samples.push_back({20000 + s, 20400 + s, 20800 + s, 90000 + 37 * s, 90100 + s});
    input.peak_templates.push_back({0, 1, 2, 1, 2});
  }
  const CoherentStagePlan plan = plan_coherent_stage(bank, input, settings);
  SecondPassFilter filter;
  filter.warmup = 2048;
  filter.granule = 8192;
  filter.n_stream = input.n_samples;
  filter.run_batch = [](std::size_t d, std::span<const std::size_t> templates, std::size_t first, std::size_t end,
                        const SecondPassFilter::Each& each) {
    const std::size_t n = end - first;
    std::vector<std::complex<double>> z(templates.size() * n);
    for (std::size_t r = 0; r < templates.size(); ++r)
      for (std::size_t i = 0; i < n; ++i) {
        const auto s = static_cast<double>(first + i);
        z[r * n + i] = std::polar(3.0 + std::sin(s * 0.01 * static_cast<double>(templates[r] + 1)),
                                  s * 0.003 * static_cast<double>(d + 1));
      }
    each(first, n, z);
  };
  const auto tasks = group_second_pass(plan.candidates, plan.before, plan.after, 2048);
  std::vector<std::size_t> every(tasks.size());
  for (std::size_t t = 0; t < every.size(); ++t) every[t] = t;
  ASSERT_LT(batch_second_pass(tasks, every, filter).size(), tasks.size());  // batches of several templates
  const auto run = [&](std::size_t most) {
    filter.max_batch_templates = most;
    CoherentSkyMaps maps(input, settings, plan);
    return run_coherent_stage_on_ranks(MPI_COMM_WORLD, bank, input, settings, plan, tasks, filter, maps);
  };
  const RankCoherentStage whole = run(0);
  const RankCoherentStage mixed = run(rank % 2 == 0 ? 1 : 0);
  const RankCoherentStage single = run(1);
  if (rank != 0) return;
  const std::size_t n = plan.candidates.size() * static_cast<std::size_t>(plan.trials());
  ASSERT_EQ(whole.results.size(), n);
  for (const RankCoherentStage* other : {&mixed, &single}) {
    ASSERT_EQ(other->results.size(), n);
    for (std::size_t i = 0; i < n; ++i) {
      EXPECT_EQ(other->results[i].pixel, whole.results[i].pixel) << i;
      EXPECT_EQ(other->results[i].coh_snr2, whole.results[i].coh_snr2) << i;
      EXPECT_EQ(other->results[i].snr, whole.results[i].snr) << i;
    }
  }
}

}  // namespace
}  // namespace astrosweep::spiir
