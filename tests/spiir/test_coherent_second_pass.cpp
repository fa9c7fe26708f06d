// The coherent stage's second pass and its spread over ranks (coherent_second_pass.hpp,
// coherent_distribution.hpp): the grouping of candidates into tasks, a task's filtered range (the
// warm-up, the stream's multiple and latency), the windows it captures against one run of the
// whole series from the start (the oracle: a double-precision one-pole filter per template), and
// the same bits whatever the tasks are captured with; the ranges on the granule's grid, the batches
// of equal ranges, and a template's SNRs in a batch (the OpenMP backend, single- and multi-rate)
// bit for bit those of the template alone.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <random>
#include <vector>

#include "coherent_distribution.hpp"
#include "coherent_second_pass.hpp"
#include "core/error.hpp"
#include "filter_test_support.hpp"
#include "second_pass_test_support.hpp"
#include "spiir_units.hpp"

namespace astrosweep::spiir {
namespace {

TEST(SecondPassTasks, WindowsOfATemplateMergeWhileTheGapIsBelowTheWarmup) {
  // Windows [s - 10, s + 5]; merge gap 20: the gap between [90, 105] and [120, 135] is 14 (merged),
  // to [190, 205] it is 54 (a new task); template 1's candidate is a task of its own.
  const std::vector<Candidate> candidates = {{0, 0, 200}, {1, 1, 100}, {0, 0, 130}, {1, 0, 100}, {2, 0, 130}};
  const auto tasks = group_second_pass(candidates, 10, 5, 20);
  ASSERT_EQ(tasks.size(), 3u);
  EXPECT_EQ(tasks[0].tmpl, 0u);
  EXPECT_EQ(tasks[0].first, 90);
  EXPECT_EQ(tasks[0].last, 135);
  EXPECT_EQ(tasks[0].candidates, (std::vector<std::size_t>{3, 2, 4}));  // by sample, then index
  EXPECT_EQ(tasks[1].tmpl, 0u);
  EXPECT_EQ(tasks[1].first, 190);
  EXPECT_EQ(tasks[1].last, 205);
  EXPECT_EQ(tasks[1].candidates, (std::vector<std::size_t>{0}));
  EXPECT_EQ(tasks[2].tmpl, 1u);
  EXPECT_EQ(tasks[2].candidates, (std::vector<std::size_t>{1}));
  // A gap of exactly the merge gap is not below it: two tasks; one less: one.
  EXPECT_EQ(group_second_pass(std::vector<Candidate>{{0, 0, 100}, {0, 0, 136}}, 10, 5, 20).size(), 2u);
  EXPECT_EQ(group_second_pass(std::vector<Candidate>{{0, 0, 100}, {0, 0, 135}}, 10, 5, 20).size(), 1u);
  EXPECT_TRUE(group_second_pass(std::vector<Candidate>{}, 10, 5, 20).empty());
}

TEST(SecondPassTasks, RangeStartsAWarmupEarlierOnTheStreamsMultiple) {
  SecondPassFilter f;
  f.latency = 7;
  f.multiple = 8;
  f.warmup = 40;
  f.n_stream = 400;
  SecondPassTask t{0, 100, 150, {}};
  // Output samples of the interval: 107 … 157; from 107 - 40 = 67 down to 64; to 158 up to 160.
  EXPECT_EQ(f.range(t), (std::pair<std::size_t, std::size_t>{64, 160}));
  t.first = 10;  // the warm-up would start before the strain: from 0
  EXPECT_EQ(f.range(t).first, 0u);
  t.last = 392;  // 400 rounded up would pass the stream's end: clamped there
  EXPECT_EQ(f.range(t).second, 400u);
}

// One pole per template (a = 0.9 + 0.01 t), the output late by `latency` samples: y[s] is the
// filter's value at input sample s − latency.
struct OnePoleBank {
  std::vector<double> x;
  std::size_t latency = 0;
  [[nodiscard]] double pole(std::size_t tmpl) const { return 0.9 + 0.01 * static_cast<double>(tmpl); }
  // From zero states at output sample `first`: what a fresh filter started there gives.
  void run(std::size_t tmpl, std::size_t first, std::size_t end,
           const std::function<void(std::size_t, std::size_t, std::span<const std::complex<double>>)>& each) const {
    std::complex<double> y = 0;
    const std::complex<double> a = std::polar(pole(tmpl), 0.3);
    const std::size_t chunk = 16;
    for (std::size_t c = first; c < end; c += chunk) {
      const std::size_t n = std::min(chunk, end - c);
      std::vector<std::complex<double>> z(n);
      for (std::size_t i = 0; i < n; ++i) {
        const std::size_t s = c + i;
        const double in = s >= latency && s - latency < x.size() ? x[s - latency] : 0.0;
        y = a * y + in;
        z[i] = y;
      }
      each(c, n, z);
    }
  }
  // The batch: each template run alone, its chunks laid out template-major.
  void run_batch(std::span<const std::size_t> templates, std::size_t first, std::size_t end,
                 const SecondPassFilter::Each& each) const {
    const std::size_t nt = templates.size();
    std::vector<std::vector<std::complex<double>>> rows(nt);
    for (std::size_t r = 0; r < nt; ++r)
      run(templates[r], first, end, [&](std::size_t, std::size_t, std::span<const std::complex<double>> z) {
        rows[r].insert(rows[r].end(), z.begin(), z.end());
      });
    const std::size_t chunk = 16;
    for (std::size_t c = first; c < end; c += chunk) {
      const std::size_t n = std::min(chunk, end - c);
      std::vector<std::complex<double>> z(nt * n);
      for (std::size_t r = 0; r < nt; ++r)
        std::copy_n(rows[r].begin() + static_cast<std::ptrdiff_t>(c - first), n,
                    z.begin() + static_cast<std::ptrdiff_t>(r * n));
      each(c, n, z);
    }
  }
};

TEST(SecondPassWindows, EqualAWholeRunToTheWarmupToleranceAndTheSameBitsHoweverSplit) {
  OnePoleBank bank{white_noise(3000, 11), 5};
  const std::size_t n_templates = 3;
  CoherentStagePlan plan;
  plan.before = 30;
  plan.after = 12;
  plan.candidates = {{0, 1, 400}, {1, 1, 430}, {0, 2, 1200}, {1, 0, 2900}, {0, 1, 2000}, {0, 0, 100}};
  SecondPassFilter f;
  f.latency = bank.latency;
  f.multiple = 4;
  f.warmup = 400;  // 0.93^400 ≈ 3e-13 of what came before stays in the state
  f.n_stream = 3008;
  f.run_batch = [&](std::size_t, std::span<const std::size_t> templates, std::size_t first, std::size_t end,
                    const auto& each) { bank.run_batch(templates, first, end, each); };
  const std::vector<std::string> ifos = {"H1", "L1"};
  const auto tasks = group_second_pass(plan.candidates, plan.before, plan.after, static_cast<std::int64_t>(f.warmup));
  std::vector<std::size_t> every(tasks.size());
  for (std::size_t i = 0; i < every.size(); ++i) every[i] = i;
  const CapturedWindows all = capture_windows(plan, ifos, tasks, every, f);
  ASSERT_EQ(all.rows.size(), plan.candidates.size());
  EXPECT_FALSE(all.stopped);
  // The oracle: every template filtered from the start of the stream.
  const std::size_t width = plan.window_length();
  for (std::size_t tmpl = 0; tmpl < n_templates; ++tmpl) {
    std::vector<std::complex<double>> whole(f.n_stream);
    bank.run(tmpl, 0, f.n_stream, [&](std::size_t first, std::size_t, std::span<const std::complex<double>> z) {
      std::copy(z.begin(), z.end(), whole.begin() + static_cast<std::ptrdiff_t>(first));
    });
    for (std::size_t r = 0; r < all.rows.size(); ++r) {
      const Candidate& c = plan.candidates[all.rows[r]];
      if (c.tmpl != tmpl) continue;
      for (std::size_t d = 0; d < ifos.size(); ++d)
        for (std::size_t i = 0; i < width; ++i) {
          // Window sample i is strain sample c.sample − before + i: output sample + latency.
          const auto out = static_cast<std::size_t>(c.sample - plan.before) + i + bank.latency;
          const std::complex<double> got = all.snr.z[d][r * width + i];
          EXPECT_NEAR(std::abs(got - whole[out]), 0.0, 1e-9 * (1 + std::abs(whole[out])))
              << "candidate " << all.rows[r] << " sample " << i;
        }
    }
  }
  // The tasks captured one at a time, on two threads, in another order: the same bits.
  f.threads = 2;
  for (std::size_t t = tasks.size(); t-- > 0;) {
    const CapturedWindows one = capture_windows(plan, ifos, tasks, std::vector<std::size_t>{t}, f);
    for (std::size_t r = 0; r < one.rows.size(); ++r) {
      std::size_t row = 0;
      while (all.rows[row] != one.rows[r]) ++row;
      for (std::size_t d = 0; d < ifos.size(); ++d)
        for (std::size_t i = 0; i < width; ++i) EXPECT_EQ(one.snr.z[d][r * width + i], all.snr.z[d][row * width + i]);
    }
  }
  // Filtered: per task and detector its range, far less than the templates x the whole stream.
  std::uint64_t expected = 0;
  for (const auto& t : tasks) expected += (f.range(t).second - f.range(t).first) * ifos.size();
  EXPECT_EQ(all.filtered_samples, expected);
  EXPECT_EQ(all.batches, tasks.size());  // no two ranges alike on the stream's multiple

  // On a coarse granule, tasks share ranges and run in batches: the same bits again, whether the
  // batches are whole, cut to one template, or run on two threads.
  f.granule = 800;
  for (const std::size_t most : {0, 1, 2}) {
    f.max_batch_templates = most;
    f.threads = most == 1 ? 2 : 1;
    const CapturedWindows batched = capture_windows(plan, ifos, tasks, every, f);
    if (most != 1) {
      EXPECT_LT(batched.batches, tasks.size()) << most;  // templates 0 and 1 share [0, 800)
    }
    ASSERT_EQ(batched.rows, all.rows);
    // Only the warm-up differs (it starts earlier): to the warm-up tolerance of the runs above.
    for (std::size_t d = 0; d < ifos.size(); ++d)
      for (std::size_t i = 0; i < batched.snr.z[d].size(); ++i)
        EXPECT_NEAR(std::abs(batched.snr.z[d][i] - all.snr.z[d][i]), 0.0, 1e-9 * (1 + std::abs(all.snr.z[d][i])));
    if (most == 0) {
      f.max_batch_templates = 1;
      const CapturedWindows single = capture_windows(plan, ifos, tasks, every, f);
      EXPECT_EQ(single.snr.z, batched.snr.z);
    }
  }
}

TEST(SecondPassTasks, RangesLieOnTheGranulesGrid) {
  SecondPassFilter f;
  f.latency = 7;
  f.multiple = 8;
  f.warmup = 40;
  f.n_stream = 1000;
  f.granule = 32;
  SecondPassTask t{0, 100, 150, {}};
  // Output samples 107 … 157: from 107 - 40 = 67 down to 64 (a multiple of 32); to 158 up to 160.
  EXPECT_EQ(f.range(t), (std::pair<std::size_t, std::size_t>{64, 160}));
  t.first = 130;  // 137 - 40 = 97: down to 96
  EXPECT_EQ(f.range(t).first, 96u);
  t.last = 160;  // 168 up to 192
  EXPECT_EQ(f.range(t).second, 192u);
  t.last = 985;  // 993 up to 1024: past the stream's end, clamped there
  EXPECT_EQ(f.range(t).second, 1000u);
  // Everywhere: the start a warm-up or more before the interval, both ends on the grid (or the
  // end at the stream's end), the interval inside, at most a granule more on either side.
  for (std::int64_t first = 0; first < 900; first += 7)
    for (std::int64_t length : {0, 1, 31, 32, 77}) {
      const SecondPassTask task{0, first, first + length, {}};
      const auto [lo, hi] = f.range(task);
      const std::size_t start = static_cast<std::size_t>(first) + f.latency;
      const std::size_t stop = static_cast<std::size_t>(first + length) + f.latency + 1;
      EXPECT_EQ(lo % f.granule, 0u) << first;
      EXPECT_TRUE(hi % f.granule == 0 || hi == f.n_stream) << first;
      EXPECT_LE(lo + f.warmup, std::max(start, f.warmup)) << first;
      EXPECT_LT(std::max(start, f.warmup) - lo, f.warmup + f.granule) << first;
      EXPECT_GE(hi, stop);
      EXPECT_LT(hi, stop + f.granule);
    }
  // The granule: a quarter of the warm-up on the multiple, at least the multiple.
  EXPECT_EQ(second_pass_granule(40, 8), 8u);
  EXPECT_EQ(second_pass_granule(4096, 64), 1024u);
  EXPECT_EQ(second_pass_granule(4160, 64), 1024u);  // 1040 down to the multiple
  EXPECT_EQ(second_pass_granule(100, 64), 64u);
}

TEST(SecondPassTasks, BatchesGroupExactlyTheEqualRanges) {
  SecondPassFilter f;
  f.multiple = 4;
  f.warmup = 20;
  f.granule = 40;
  f.n_stream = 1000;
  // Ranges: tasks 0, 2, 3: [40, 120); task 1: [40, 160); task 4: [120, 200); task 5 (template 2,
  // like task 3): [40, 120) again, a second interval of its template there.
  const std::vector<SecondPassTask> tasks = {{5, 70, 90, {}}, {1, 70, 130, {}},  {2, 61, 119, {}},
                                             {2, 80, 85, {}}, {0, 150, 160, {}}, {2, 95, 96, {}}};
  std::vector<std::size_t> every = {0, 1, 2, 3, 4, 5};
  for (std::size_t t = 0; t < tasks.size(); ++t) ASSERT_EQ(f.range(tasks[t]).first % 40, 0u);
  const auto batches = batch_second_pass(tasks, every, f);
  ASSERT_EQ(batches.size(), 3u);
  EXPECT_EQ(batches[0].first, 40u);
  EXPECT_EQ(batches[0].end, 120u);
  EXPECT_EQ(batches[0].templates, (std::vector<std::size_t>{2, 5}));  // template 2 once
  EXPECT_EQ(batches[0].tasks, (std::vector<std::size_t>{0, 2, 3, 5}));
  EXPECT_EQ(batches[0].rows, (std::vector<std::size_t>{1, 0, 0, 0}));
  EXPECT_EQ(batches[1].end, 160u);
  EXPECT_EQ(batches[1].tasks, (std::vector<std::size_t>{1}));
  EXPECT_EQ(batches[2].first, 120u);
  EXPECT_EQ(batches[2].tasks, (std::vector<std::size_t>{4}));
  EXPECT_EQ(second_pass_samples(batches), 80u * 2 + 120u + 80u);
  // At most one template a batch: template 2's tasks still together, filtered once.
  f.max_batch_templates = 1;
  const auto single = batch_second_pass(tasks, every, f);
  ASSERT_EQ(single.size(), 4u);
  EXPECT_EQ(single[0].templates, (std::vector<std::size_t>{2}));
  EXPECT_EQ(single[0].tasks, (std::vector<std::size_t>{2, 3, 5}));
  EXPECT_EQ(single[1].templates, (std::vector<std::size_t>{5}));
  // A subset of the tasks: their batches alone, in the same order.
  const auto some = batch_second_pass(tasks, std::vector<std::size_t>{4, 3}, f);
  ASSERT_EQ(some.size(), 2u);
  EXPECT_EQ(some[0].tasks, (std::vector<std::size_t>{3}));
  EXPECT_EQ(some[1].tasks, (std::vector<std::size_t>{4}));
  EXPECT_TRUE(batch_second_pass(tasks, std::vector<std::size_t>{}, f).empty());
}

TEST(SecondPassBatches, TemplateRowsPickTheRowsOfEveryRate) {
  const SpiirBank bank = second_pass_test::random_spiir_bank(true, 3);
  const std::vector<std::size_t> rows = {4, 1, 1, 5};
  const SpiirBank sub = template_rows(bank, rows);
  ASSERT_EQ(sub.n_templates(), rows.size());
  ASSERT_EQ(sub.rates.size(), bank.rates.size());
  for (std::size_t r = 0; r < bank.rates.size(); ++r) {
    EXPECT_EQ(sub.rates[r].rate, bank.rates[r].rate);
    EXPECT_EQ(sub.rates[r].n_templates, rows.size());
    for (std::size_t i = 0; i < rows.size(); ++i) {
      EXPECT_EQ(sub.rates[r].n_filters[i], bank.rates[r].n_filters[rows[i]]);
      for (std::size_t l = 0; l < bank.rates[r].width; ++l) {
        const IirFilter a = sub.rates[r].filter(i, l), b = bank.rates[r].filter(rows[i], l);
        EXPECT_EQ(a.a1, b.a1);
        EXPECT_EQ(a.b0, b.b0);
        EXPECT_EQ(a.delay, b.delay);
      }
    }
  }
  for (std::size_t i = 0; i < rows.size(); ++i) EXPECT_EQ(sub.templates[i].mass1, bank.templates[rows[i]].mass1);
  // A contiguous block is template_block's.
  const SpiirBank block = template_block(bank, 2, 3);
  const SpiirBank picked = template_rows(bank, std::vector<std::size_t>{2, 3, 4});
  for (std::size_t r = 0; r < bank.rates.size(); ++r) {
    EXPECT_EQ(block.rates[r].a1, picked.rates[r].a1);
    EXPECT_EQ(block.rates[r].delay, picked.rates[r].delay);
  }
}

// The OpenMP backend: a template's SNRs do not depend on its batch (its row, its neighbours, a
// duplicate of it), in FP32 and FP64, single- and multi-rate.
TEST(SecondPassBatches, ATemplatesSnrInABatchIsItsSnrAloneBitForBitOnTheCpu) {
  for (const bool multirate : {false, true})
    for (const Precision precision : {Precision::fp32, Precision::fp64}) {
      SCOPED_TRACE(std::string(multirate ? "multi-rate" : "single-rate") +
                   (precision == Precision::fp32 ? " fp32" : " fp64"));
      BackendOptions options;
      options.kind = BackendKind::cpu;
      options.threads = 3;
      second_pass_test::expect_batches_bit_identical(
          second_pass_test::random_spiir_bank(multirate, 5),
          [&](const RateBank& r) { return make_spiir_backend_cpu(r, precision, options); });
    }
}

TEST(SecondPassWindows, SkymapWindowsOnRankZeroAreItsOwnOrFilteredAgainTheSame) {
  OnePoleBank bank{white_noise(2000, 12), 3};
  CoherentStagePlan plan;
  plan.before = 20;
  plan.after = 8;
  plan.candidates = {{0, 0, 300}, {1, 1, 900}, {0, 2, 1500}, {1, 0, 1700}};
  SecondPassFilter f;
  f.latency = bank.latency;
  f.warmup = 300;
  f.n_stream = 2003;
  f.run_batch = [&](std::size_t, std::span<const std::size_t> templates, std::size_t first, std::size_t end,
                    const auto& each) { bank.run_batch(templates, first, end, each); };
  const std::vector<std::string> ifos = {"H1", "L1", "V1"};
  const auto tasks = group_second_pass(plan.candidates, plan.before, plan.after, static_cast<std::int64_t>(f.warmup));
  ASSERT_EQ(tasks.size(), 4u);
  // Rank 0 ran tasks 1 and 3; the triggers kept are candidates 3, 0, 2 (in that order).
  RankCoherentStage stage;
  stage.root_tasks = {1, 3};
  stage.root_windows = capture_windows(plan, ifos, tasks, stage.root_tasks, f);
  const std::vector<std::size_t> kept = {3, 0, 2};
  const NetworkSnr got = windows_on_root(stage, plan, ifos, tasks, f, kept);
  const CapturedWindows all = capture_windows(plan, ifos, tasks, std::vector<std::size_t>{0, 1, 2, 3}, f);
  const std::size_t width = plan.window_length();
  ASSERT_EQ(got.n_templates, kept.size());
  for (std::size_t k = 0; k < kept.size(); ++k) {
    std::size_t row = 0;
    while (all.rows[row] != kept[k]) ++row;
    for (std::size_t d = 0; d < ifos.size(); ++d)
      for (std::size_t i = 0; i < width; ++i) EXPECT_EQ(got.z[d][k * width + i], all.snr.z[d][row * width + i]);
  }
}

TEST(SecondPassWindows, AFailingTaskThrowsItsError) {
  CoherentStagePlan plan;
  plan.before = 2;
  plan.after = 2;
  plan.candidates = {{0, 0, 10}, {0, 1, 10}};
  SecondPassFilter f;
  f.warmup = 4;
  f.n_stream = 32;
  f.threads = 2;
  f.run_batch = [](std::size_t, std::span<const std::size_t> templates, std::size_t, std::size_t, const auto&) {
    if (std::find(templates.begin(), templates.end(), 1) != templates.end())
      throw InputError("template 1 cannot be filtered");
  };
  const auto tasks = group_second_pass(plan.candidates, plan.before, plan.after, 4);
  EXPECT_THROW(capture_windows(plan, {"H1", "L1"}, tasks, std::vector<std::size_t>{0, 1}, f), InputError);
}

}  // namespace
}  // namespace astrosweep::spiir
