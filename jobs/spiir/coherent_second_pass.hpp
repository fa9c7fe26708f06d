#pragma once
// The coherent stage's second pass (docs/spiir.md, "The coherent stage on many ranks"): the search
// reads every detector's SNR of the candidate's template in a window around the candidate, which
// the first pass did not keep. Rather than filter the whole bank over the whole strain again, the
// candidates are grouped per template into tasks: their windows sorted, and merged where the gap
// between two is shorter than the warm-up (filtering the gap costs less than a second warm-up).
// A task filters its one template through every detector from a warm-up before its interval (the
// work units' rule: the states then hold a continuous run's to the warm-up tolerance) to its end,
// both ends on a coarse grid (the granule), so that the tasks of one event share their range; tasks
// of one range run as one batch, one filter over a sub-bank of their templates (a GPU filters them
// at once). A template's SNRs do not depend on the others in its batch, and the grouping and the
// ranges depend on the candidates alone, never on the rank count, so every rank count and every
// batching captures the same windows bit for bit.
#include <complex>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "coherent_snr.hpp"
#include "coherent_triggers.hpp"
#include "multirate_filter.hpp"
#include "spiir_backend.hpp"

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

/// How a batch of templates is filtered, as the first pass filters its units (output-stream
/// samples: output sample s is strain sample s − latency).
struct SecondPassFilter {
  using Each = std::function<void(std::size_t first, std::size_t n, std::span<const std::complex<double>> z)>;
  std::size_t latency = 0;   ///< of the multi-rate stream (0 single-rate)
  std::size_t multiple = 1;  ///< runs start and end on multiples of this (the stream's chunk multiple)
  std::size_t warmup = 0;    ///< output samples filtered and discarded before an interval
  std::size_t n_stream = 0;  ///< output samples of a whole run
  /// Ranges start and end on multiples of this (a multiple of `multiple`; 0: `multiple`), so that
  /// the tasks of one event share ranges and run as one batch (second_pass_granule).
  std::size_t granule = 0;
  /// Filters templates `templates` (a sub-bank of those rows, in that order) of detector d over
  /// output samples [first, end) from zero states, handing each chunk's first output sample, length
  /// and SNRs (template-major: templates.size() rows of n) to `each`. A template's SNRs must not
  /// depend on the other rows (the backends' contract: docs/spiir.md). Called concurrently from
  /// `threads` threads when that is more than 1.
  std::function<void(std::size_t d, std::span<const std::size_t> templates, std::size_t first, std::size_t end,
                     const Each& each)>
      run_batch;
  int threads = 1;  ///< batches filtered at once (the CPU backend: one thread per template)
  /// The most templates in a batch (0: no limit): 1 on the CPU, whose backend filters a template on
  /// one thread, so batches of one run side by side; on a GPU the first pass's block of templates,
  /// whose SNR buffers are known to fit.
  std::size_t max_batch_templates = 0;

  /// The output samples [first, end) a task filters: from `warmup` before its interval (clamped at
  /// 0), the start rounded down and the end up to multiples of the granule (the end clamped at
  /// n_stream). Depends on the task alone.
  [[nodiscard]] std::pair<std::size_t, std::size_t> range(const SecondPassTask& task) const;
};

/// The granule of a warm-up: a quarter of it rounded down to `multiple`, at least `multiple`. A
/// task's range then grows by less than 2 granules (half a warm-up) over its interval and warm-up,
/// while the tasks of an event, whose candidates lie within a fraction of the warm-up of each
/// other, mostly fall on the same range.
std::size_t second_pass_granule(std::size_t warmup, std::size_t multiple);

/// Tasks filtered in one call: those with the same range, their templates a sub-bank.
struct SecondPassBatch {
  std::size_t first = 0, end = 0;      ///< output samples: the tasks' range
  std::vector<std::size_t> templates;  ///< distinct, ascending: the sub-bank's rows
  std::vector<std::size_t> tasks;      ///< indices into the tasks, ascending
  std::vector<std::size_t> rows;       ///< per task, its template's row in `templates`
};

/// The batches of `tasks` (indices into `all`): tasks with equal ranges together, a template that
/// has two tasks there filtered once, at most filter.max_batch_templates templates each (the
/// ascending templates cut in pieces). In order of range (first, then end), then of template.
/// Depends on the tasks alone, and no result depends on the batches.
std::vector<SecondPassBatch> batch_second_pass(std::span<const SecondPassTask> all, std::span<const std::size_t> tasks,
                                               const SecondPassFilter& filter);

/// Output samples the batches filter per detector (range × templates, summed): the second pass's cost.
std::uint64_t second_pass_samples(std::span<const SecondPassBatch> batches);

/// Filters the sub-bank `templates` of `bank` (template_rows) over output samples [first, end) of
/// `x` from zero states, in chunks of `chunk` samples (rounded to the stream's multiple): the
/// single-rate backend, or a multi-rate backend: `make_multirate`'s where given (the job's
/// make_multirate_backend: on a GPU the levels summed there), else MultirateStream over backends
/// from `make`. `each` as for SecondPassFilter::run_batch.
void filter_batch(const SpiirBank& bank, std::span<const std::size_t> templates, std::span<const double> x,
                  std::size_t first, std::size_t end, std::size_t chunk,
                  const std::function<std::unique_ptr<SpiirBackend>(const RateBank&)>& make,
                  const SecondPassFilter::Each& each,
                  const std::function<std::unique_ptr<MultirateBackend>(const SpiirBank&)>& make_multirate = {});

/// The windows of the candidates of `tasks` (indices into `all`), every detector's: rows in the
/// order of the tasks, then of each task's candidates (`rows` says which candidate each is),
/// plan.window_length() samples each; the tasks filtered in batches (batch_second_pass). Returns
/// the samples filtered (per detector, summed). With `stop_on_signal`, a stop signal
/// (interrupt::received), seen between batches, ends it early, returning with `stopped` set (the
/// rows of the batches not run stay zero).
struct CapturedWindows {
  NetworkSnr snr;
  std::vector<std::size_t> rows;  ///< candidate of each row
  std::uint64_t filtered_samples = 0;
  std::size_t batches = 0;  ///< filter calls per detector
  bool stopped = false;
};
CapturedWindows capture_windows(const CoherentStagePlan& plan, const std::vector<std::string>& ifos,
                                std::span<const SecondPassTask> all, std::span<const std::size_t> tasks,
                                const SecondPassFilter& filter, bool stop_on_signal = true);

}  // namespace astrosweep::spiir
