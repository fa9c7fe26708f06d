#pragma once
// The coherent stage's second pass (docs/spiir.md, "The coherent stage on many ranks"): the search
// reads every detector's SNR of the candidate's template in a window around the candidate, which
// the first pass did not keep. Rather than filter the whole bank over the whole strain again, the
// candidates are grouped per template into tasks: their windows sorted, and merged where the gap
// between two is shorter than the warm-up (filtering the gap costs less than a second warm-up).
// A task filters its one template through every detector from a warm-up before its interval (the
// work units' rule: the states then hold a continuous run's to the warm-up tolerance) to its end.
// The grouping depends on the candidates alone, never on the rank count, so every rank count
// captures the same windows bit for bit.
#include <complex>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "coherent_snr.hpp"
#include "coherent_triggers.hpp"

namespace astrosweep::spiir {

/// One template's candidates whose windows are filtered in one run.
struct SecondPassTask {
  std::size_t tmpl = 0;
  std::int64_t first = 0;               ///< strain sample: the first of the candidates' windows
  std::int64_t last = 0;                ///< strain sample: the last of their windows (inclusive)
  std::vector<std::size_t> candidates;  ///< indices into the plan's candidates, by sample (then index)
};

/// The tasks of `candidates` with windows [sample − before, sample + after]: per template (in
/// ascending order) the windows sorted by start and merged while the gap to the next is below
/// `merge_gap` samples. In order of template, then interval.
std::vector<SecondPassTask> group_second_pass(std::span<const Candidate> candidates, std::int64_t before,
                                              std::int64_t after, std::int64_t merge_gap);

/// How a task's template is filtered, as the first pass filters its units (output-stream samples:
/// output sample s is strain sample s − latency).
struct SecondPassFilter {
  std::size_t latency = 0;   ///< of the multi-rate stream (0 single-rate)
  std::size_t multiple = 1;  ///< runs start and end on multiples of this (the stream's chunk multiple)
  std::size_t warmup = 0;    ///< output samples filtered and discarded before an interval
  std::size_t n_stream = 0;  ///< output samples of a whole run
  /// Filters template `tmpl` of detector d over output samples [first, end) from zero states,
  /// handing each chunk's first output sample, length and SNR (one row) to `each`. Called
  /// concurrently from `threads` threads when that is more than 1.
  std::function<void(
      std::size_t d, std::size_t tmpl, std::size_t first, std::size_t end,
      const std::function<void(std::size_t first, std::size_t n, std::span<const std::complex<double>>)>& each)>
      run;
  int threads = 1;  ///< tasks filtered at once (the CPU backend: one thread per template)

  /// The output samples [first, end) a task filters: from `warmup` before its interval (clamped at 0),
  /// both ends on multiples of `multiple`.
  [[nodiscard]] std::pair<std::size_t, std::size_t> range(const SecondPassTask& task) const;
};

/// Output samples the tasks filter per detector (their ranges summed): the second pass's cost.
std::uint64_t second_pass_samples(std::span<const SecondPassTask> tasks, const SecondPassFilter& filter);

/// The windows of the candidates of `tasks` (indices into `all`), every detector's: rows in the
/// order of the tasks, then of each task's candidates (`rows` says which candidate each is),
/// plan.window_length() samples each. Returns the samples filtered (per detector, summed).
/// With `stop_on_signal`, a stop signal (interrupt::received) ends it early, returning with
/// `stopped` set (the rows of the tasks not run stay zero).
struct CapturedWindows {
  NetworkSnr snr;
  std::vector<std::size_t> rows;  ///< candidate of each row
  std::uint64_t filtered_samples = 0;
  bool stopped = false;
};
CapturedWindows capture_windows(const CoherentStagePlan& plan, const std::vector<std::string>& ifos,
                                std::span<const SecondPassTask> all, std::span<const std::size_t> tasks,
                                const SecondPassFilter& filter, bool stop_on_signal = true);

}  // namespace astrosweep::spiir
