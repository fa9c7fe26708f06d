// The coherent stage's second pass and its spread over ranks (coherent_second_pass.hpp,
// coherent_distribution.hpp): the grouping of candidates into tasks, a task's filtered range (the
// warm-up, the stream's multiple and latency), the windows it captures against one run of the
// whole series from the start (the oracle: a double-precision one-pole filter per template), and
// the same bits whatever the tasks are captured with.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <random>
#include <vector>

#include "coherent_distribution.hpp"
#include "coherent_second_pass.hpp"
#include "core/error.hpp"
#include "filter_test_support.hpp"

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
  f.run = [&](std::size_t, std::size_t tmpl, std::size_t first, std::size_t end, const auto& each) {
    bank.run(tmpl, first, end, each);
  };
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
  f.run = [&](std::size_t, std::size_t tmpl, std::size_t first, std::size_t end, const auto& each) {
    bank.run(tmpl, first, end, each);
  };
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
  f.run = [](std::size_t, std::size_t tmpl, std::size_t, std::size_t, const auto&) {
    if (tmpl == 1) throw InputError("template 1 cannot be filtered");
  };
  const auto tasks = group_second_pass(plan.candidates, plan.before, plan.after, 4);
  EXPECT_THROW(capture_windows(plan, {"H1", "L1"}, tasks, std::vector<std::size_t>{0, 1}, f), InputError);
}

}  // namespace
}  // namespace astrosweep::spiir
