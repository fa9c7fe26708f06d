#include "coherent_second_pass.hpp"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <climits>
#include <cstdint>
#include <exception>
#include <numeric>
#include <tuple>

#include "core/error.hpp"
#include "core/interrupt.hpp"
#include "multirate_filter.hpp"
#include "spiir_units.hpp"

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
  const std::size_t step = granule > 0 ? granule : multiple;
  AS_ASSERT(multiple > 0 && step % multiple == 0);
  const std::size_t lo = static_cast<std::size_t>(task.first) + latency;
  std::size_t first = lo > warmup ? lo - warmup : 0;
  first = first / step * step;
  std::size_t end = static_cast<std::size_t>(task.last) + latency + 1;
  end = std::min(n_stream, (end + step - 1) / step * step);  // n_stream is a multiple of `multiple`
  AS_ASSERT(end >= static_cast<std::size_t>(task.last) + latency + 1);
  return {first, end};
}

std::size_t second_pass_granule(std::size_t warmup, std::size_t multiple) {
  AS_ASSERT(multiple > 0);
  return std::max(multiple, warmup / 4 / multiple * multiple);
}

std::vector<SecondPassBatch> batch_second_pass(std::span<const SecondPassTask> all, std::span<const std::size_t> tasks,
                                               const SecondPassFilter& filter) {
  // (range, template, task) sorted: a range's tasks together, by template within it.
  struct Entry {
    std::size_t first, end, tmpl, task;
  };
  std::vector<Entry> entries;
  for (const std::size_t t : tasks) {
    const auto [first, end] = filter.range(all[t]);
    entries.push_back({first, end, all[t].tmpl, t});
  }
  std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
    return std::tie(a.first, a.end, a.tmpl, a.task) < std::tie(b.first, b.end, b.tmpl, b.task);
  });
  const std::size_t most = filter.max_batch_templates > 0 ? filter.max_batch_templates : SIZE_MAX;
  std::vector<SecondPassBatch> batches;
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const Entry& e = entries[i];
    const bool same_range = i > 0 && entries[i - 1].first == e.first && entries[i - 1].end == e.end;
    const bool same_template = same_range && entries[i - 1].tmpl == e.tmpl;
    if (!same_range || (!same_template && batches.back().templates.size() == most)) {
      batches.push_back({e.first, e.end, {}, {}, {}});
    }
    SecondPassBatch& b = batches.back();
    if (!same_template) b.templates.push_back(e.tmpl);
    b.tasks.push_back(e.task);
    b.rows.push_back(b.templates.size() - 1);
  }
  // The tasks ascending within a batch (their rows with them).
  for (auto& b : batches) {
    std::vector<std::size_t> order(b.tasks.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) { return b.tasks[x] < b.tasks[y]; });
    std::vector<std::size_t> tasks_sorted, rows_sorted;
    for (const std::size_t k : order) {
      tasks_sorted.push_back(b.tasks[k]);
      rows_sorted.push_back(b.rows[k]);
    }
    b.tasks = std::move(tasks_sorted);
    b.rows = std::move(rows_sorted);
  }
  return batches;
}

std::uint64_t second_pass_samples(std::span<const SecondPassBatch> batches) {
  std::uint64_t n = 0;
  for (const auto& b : batches) n += static_cast<std::uint64_t>(b.end - b.first) * b.templates.size();
  return n;
}

void filter_batch(const SpiirBank& bank, std::span<const std::size_t> templates, std::span<const double> x,
                  std::size_t first, std::size_t end, std::size_t chunk,
                  const std::function<std::unique_ptr<SpiirBackend>(const RateBank&)>& make,
                  const SecondPassFilter::Each& each,
                  const std::function<std::unique_ptr<MultirateBackend>(const SpiirBank&)>& make_multirate) {
  AS_ASSERT(first <= end && end <= x.size());
  const SpiirBank sub = template_rows(bank, templates);
  const std::size_t nt = templates.size();
  std::function<void(std::span<const double>, std::span<std::complex<double>>)> run;
  std::size_t multiple = 1;
  std::unique_ptr<SpiirBackend> single;
  std::unique_ptr<MultirateBackend> stream;
  if (const RateBank* r = sub.single_rate()) {
    single = make(*r);
    run = [&](std::span<const double> in, std::span<std::complex<double>> z) { single->filter(in, z); };
  } else {
    stream = make_multirate ? make_multirate(sub) : std::make_unique<MultirateStream>(sub, make);
    multiple = stream->chunk_multiple();
    run = [&](std::span<const double> in, std::span<std::complex<double>> z) { stream->filter(in, z); };
  }
  AS_ASSERT(first % multiple == 0 && (end - first) % multiple == 0);
  chunk = std::max(multiple, chunk / multiple * multiple);
  std::vector<std::complex<double>> z;
  for (std::size_t c = first; c < end; c += chunk) {
    const std::size_t m = std::min(chunk, end - c);
    z.resize(nt * m);
    run(x.subspan(c, m), z);
    each(c, m, z);
  }
}

CapturedWindows capture_windows(const CoherentStagePlan& plan, const std::vector<std::string>& ifos,
                                std::span<const SecondPassTask> all, std::span<const std::size_t> tasks,
                                const SecondPassFilter& filter, bool stop_on_signal) {
  const std::size_t n_det = ifos.size();
  const std::size_t width = plan.window_length();
  CapturedWindows out;
  // Each task's first row, by its index into `all`.
  std::vector<std::size_t> first_row(all.size(), SIZE_MAX);
  for (const std::size_t t : tasks) {
    AS_ASSERT(t < all.size() && first_row[t] == SIZE_MAX);
    first_row[t] = out.rows.size();
    const auto& members = all[t].candidates;
    out.rows.insert(out.rows.end(), members.begin(), members.end());
  }
  out.snr = NetworkSnr{ifos, out.rows.size(), width,
                       std::vector<std::vector<std::complex<double>>>(
                           n_det, std::vector<std::complex<double>>(out.rows.size() * width))};
  const std::vector<SecondPassBatch> batches = batch_second_pass(all, tasks, filter);
  std::atomic<bool> stop{false};
  std::exception_ptr failure;
  std::uint64_t filtered = 0;
  const auto n_batches = static_cast<std::int64_t>(batches.size());
  // Batches write disjoint rows; the stop check between batches lets a signal end the stage early.
#pragma omp parallel for schedule(dynamic, 1) num_threads(std::max(1, filter.threads)) reduction(+ : filtered)
  for (std::int64_t i = 0; i < n_batches; ++i) {
    if (stop.load() || (stop_on_signal && interrupt::received() != 0)) {
      stop = true;
      continue;
    }
    try {
      const SecondPassBatch& batch = batches[static_cast<std::size_t>(i)];
      for (std::size_t d = 0; d < n_det; ++d) {
        filter.run_batch(d, batch.templates, batch.first, batch.end,
                         [&](std::size_t first, std::size_t n, std::span<const std::complex<double>> z) {
                           AS_ASSERT(z.size() == batch.templates.size() * n);
                           // Output sample `first` is strain sample first − latency.
                           const auto s0 = static_cast<std::int64_t>(first) - static_cast<std::int64_t>(filter.latency);
                           const std::int64_t s1 = s0 + static_cast<std::int64_t>(n);
                           for (std::size_t j = 0; j < batch.tasks.size(); ++j) {
                             const SecondPassTask& task = all[batch.tasks[j]];
                             const std::complex<double>* row = z.data() + batch.rows[j] * n;
                             std::complex<double>* rows = out.snr.z[d].data() + first_row[batch.tasks[j]] * width;
                             for (std::size_t k = 0; k < task.candidates.size(); ++k) {
                               const std::int64_t w0 = plan.candidates[task.candidates[k]].sample - plan.before;
                               const std::int64_t lo = std::max(s0, w0);
                               const std::int64_t hi = std::min(s1, w0 + static_cast<std::int64_t>(width));
                               for (std::int64_t s = lo; s < hi; ++s)
                                 rows[k * width + static_cast<std::size_t>(s - w0)] =
                                     row[static_cast<std::size_t>(s - s0)];
                             }
                           }
                         });
      }
      filtered += static_cast<std::uint64_t>(batch.end - batch.first) * batch.templates.size() * n_det;
    } catch (...) {
#pragma omp critical(astrosweep_second_pass_failure)
      if (!failure) failure = std::current_exception();
      stop = true;
    }
  }
  if (failure) std::rethrow_exception(failure);
  out.filtered_samples = filtered;
  out.batches = batches.size();
  out.stopped = stop.load();
  return out;
}

}  // namespace astrosweep::spiir
