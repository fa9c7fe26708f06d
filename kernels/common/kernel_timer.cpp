#include "kernel_timer.hpp"

#include <algorithm>
#include <iterator>

namespace astrosweep::cuda {

void KernelTimer::start(const Stream& stream) {
  // A span left open (an exception between start and stop) starts again.
  if (pending_ == spans_.size()) spans_.push_back(std::make_unique<Span>());
  spans_[pending_]->begin.record(stream);
  open_ = true;
}

const Event& KernelTimer::stop(const Stream& stream) {
  AS_ASSERT(open_);
  Span& span = *spans_[pending_++];
  span.end.record(stream);
  open_ = false;
  return span.end;
}

void KernelTimer::collect() {
  std::size_t done = 0;
  for (; done < pending_ && spans_[done]->end.ready(); ++done)
    total_ms_ += static_cast<double>(spans_[done]->end.since(spans_[done]->begin));
  // The collected spans' events go behind the pending ones (and the open one), free for reuse.
  const auto first = spans_.begin();
  std::rotate(first, std::next(first, static_cast<std::ptrdiff_t>(done)),
              std::next(first, static_cast<std::ptrdiff_t>(pending_ + (open_ ? 1 : 0))));
  pending_ -= done;
}

void KernelTimer::reset() noexcept {
  pending_ = 0;
  open_ = false;
  total_ms_ = 0;
}

}  // namespace astrosweep::cuda
