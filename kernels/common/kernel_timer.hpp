#pragma once
// Kernel time of a CUDA backend: event pairs around the kernels it queues on a stream, added up
// once they have run, without waiting for them (no stream or device synchronisation here).

#include <cstddef>
#include <memory>
#include <vector>

#include "cuda_memory.hpp"

namespace astrosweep::cuda {

/// Spans of kernels, each between start() and stop() on one stream (spans do not nest); their
/// events are reused once collected. Create and use it on one device, the streams' device.
class KernelTimer {
 public:
  KernelTimer() = default;
  KernelTimer(const KernelTimer&) = delete;
  KernelTimer& operator=(const KernelTimer&) = delete;

  /// Records the start of a span after the work queued so far on `stream`; a span left open (by an
  /// exception between start and stop) starts again.
  void start(const Stream& stream);
  /// Records its end; the returned event is the span's end, for other streams to wait on (valid
  /// until collect() has added this span).
  const Event& stop(const Stream& stream);
  /// Adds the time of the finished spans, oldest first, up to the first one still running, and
  /// never waits: after the host has waited past a span (a synchronize on its stream, or on a
  /// stream that waited for its end), that span and every earlier one on the same stream count.
  void collect();
  /// Forgets the time collected and the spans not collected yet.
  void reset() noexcept;

  /// Time of the spans collected (since construction or reset()).
  [[nodiscard]] double milliseconds() const noexcept { return total_ms_; }
  [[nodiscard]] double seconds() const noexcept { return total_ms_ / 1e3; }

 private:
  struct Span {
    Event begin, end;
  };
  std::vector<std::unique_ptr<Span>> spans_;  ///< [0, pending_): recorded, oldest first; then free ones
  std::size_t pending_ = 0;
  bool open_ = false;  ///< spans_[pending_] is started and not stopped
  double total_ms_ = 0;
};

}  // namespace astrosweep::cuda
