#include "io/light_curve_sink.hpp"

namespace astrosweep::io {

void ObjectBatcher::flush() {
  if (block_.n_objects() == 0) return;
  sink_.append(block_);
  passed_ += block_.n_objects();
  block_.truncate(0);
}

void ObjectBatcher::truncate(std::uint64_t n_objects) {
  if (n_objects >= passed_) {
    block_.truncate(static_cast<std::size_t>(n_objects - passed_));
    return;
  }
  block_.truncate(0);
  sink_.truncate(n_objects);
  passed_ = n_objects;
}

}  // namespace astrosweep::io
