#include "coherent_second_pass.hpp"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <exception>
#include <numeric>

#include "core/error.hpp"
#include "core/interrupt.hpp"

namespace astrosweep::spiir {

std::vector<SecondPassTask> group_second_pass(std::span<const Candidate> candidates, std::int64_t before,
                                              std::int64_t after, std::int64_t merge_gap) {
  std::vector<std::size_t> order(candidates.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    const Candidate &x = candidates[a], &y = candidates[b];
    if (x.tmpl != y.tmpl) return x.tmpl < y.tmpl;
    if (x.sample != y.sample) return x.sample < y.sample;
    return a < b;
  });
  std::vector<SecondPassTask> tasks;
  for (const std::size_t c : order) {
    const Candidate& x = candidates[c];
    const std::int64_t first = x.sample - before, last = x.sample + after;
    // Windows start in ascending order within a template, so a window joins the last task or
    // opens the next: the gap to the task's end is what filtering on costs instead of a warm-up.
    if (tasks.empty() || tasks.back().tmpl != x.tmpl || first - tasks.back().last - 1 >= merge_gap) {
      tasks.push_back({x.tmpl, first, last, {c}});
    } else {
      tasks.back().last = std::max(tasks.back().last, last);
      tasks.back().candidates.push_back(c);
    }
  }
  return tasks;
}

std::pair<std::size_t, std::size_t> SecondPassFilter::range(const SecondPassTask& task) const {
  AS_ASSERT(task.first >= 0 && task.last >= task.first);
  const std::size_t lo = static_cast<std::size_t>(task.first) + latency;
  std::size_t first = lo > warmup ? lo - warmup : 0;
  first = first / multiple * multiple;
  std::size_t end = static_cast<std::size_t>(task.last) + latency + 1;
  end = std::min(n_stream, (end + multiple - 1) / multiple * multiple);
  AS_ASSERT(end >= static_cast<std::size_t>(task.last) + latency + 1);
  return {first, end};
}

std::uint64_t second_pass_samples(std::span<const SecondPassTask> tasks, const SecondPassFilter& filter) {
  std::uint64_t n = 0;
  for (const auto& t : tasks) {
    const auto [first, end] = filter.range(t);
    n += end - first;
  }
  return n;
}

CapturedWindows capture_windows(const CoherentStagePlan& plan, const std::vector<std::string>& ifos,
                                std::span<const SecondPassTask> all, std::span<const std::size_t> tasks,
                                const SecondPassFilter& filter, bool stop_on_signal) {
  const std::size_t n_det = ifos.size();
  const std::size_t width = plan.window_length();
  CapturedWindows out;
  std::vector<std::size_t> first_row(tasks.size());
  for (std::size_t i = 0; i < tasks.size(); ++i) {
    first_row[i] = out.rows.size();
    const auto& members = all[tasks[i]].candidates;
    out.rows.insert(out.rows.end(), members.begin(), members.end());
  }
  out.snr = NetworkSnr{ifos, out.rows.size(), width,
                       std::vector<std::vector<std::complex<double>>>(
                           n_det, std::vector<std::complex<double>>(out.rows.size() * width))};
  std::atomic<bool> stop{false};
  std::exception_ptr failure;
  std::uint64_t filtered = 0;
  const auto n_tasks = static_cast<std::int64_t>(tasks.size());
  // Tasks write disjoint rows; the stop check between tasks lets a signal end the stage early.
#pragma omp parallel for schedule(dynamic, 1) num_threads(std::max(1, filter.threads)) reduction(+ : filtered)
  for (std::int64_t i = 0; i < n_tasks; ++i) {
    if (stop.load() || (stop_on_signal && interrupt::received() != 0)) {
      stop = true;
      continue;
    }
    try {
      const SecondPassTask& task = all[tasks[static_cast<std::size_t>(i)]];
      const auto [begin, end] = filter.range(task);
      for (std::size_t d = 0; d < n_det; ++d) {
        std::complex<double>* rows = out.snr.z[d].data() + first_row[static_cast<std::size_t>(i)] * width;
        filter.run(d, task.tmpl, begin, end,
                   [&](std::size_t first, std::size_t n, std::span<const std::complex<double>> z) {
                     // Output sample `first` is strain sample first − latency.
                     const auto s0 = static_cast<std::int64_t>(first) - static_cast<std::int64_t>(filter.latency);
                     const std::int64_t s1 = s0 + static_cast<std::int64_t>(n);
                     for (std::size_t k = 0; k < task.candidates.size(); ++k) {
                       const std::int64_t w0 = plan.candidates[task.candidates[k]].sample - plan.before;
                       const std::int64_t lo = std::max(s0, w0);
                       const std::int64_t hi = std::min(s1, w0 + static_cast<std::int64_t>(width));
                       for (std::int64_t s = lo; s < hi; ++s)
                         rows[k * width + static_cast<std::size_t>(s - w0)] = z[static_cast<std::size_t>(s - s0)];
                     }
                   });
      }
      filtered += static_cast<std::uint64_t>(end - begin) * n_det;
    } catch (...) {
#pragma omp critical(astrosweep_second_pass_failure)
      if (!failure) failure = std::current_exception();
      stop = true;
    }
  }
  if (failure) std::rethrow_exception(failure);
  out.filtered_samples = filtered;
  out.stopped = stop.load();
  return out;
}

}  // namespace astrosweep::spiir
