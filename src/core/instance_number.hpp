#pragma once
// A number unique to the object that holds it for the process's life, for caches keyed by an
// object: an address is not such a key (a new object may come at a freed one's address, with the
// same sizes), this is. A copy or an assignment takes a fresh number, since the values it brings
// are not the ones any cache saw under the old number; a move renumbers its source too, whose
// values are gone.
#include <atomic>
#include <cstdint>

namespace astrosweep {

class InstanceNumber {
 public:
  InstanceNumber() : value_(next()) {}
  InstanceNumber(const InstanceNumber& /*other*/) : value_(next()) {}
  InstanceNumber(InstanceNumber&& from) noexcept : value_(next()) { from.value_ = next(); }
  InstanceNumber& operator=(const InstanceNumber& /*other*/) {
    value_ = next();
    return *this;
  }
  InstanceNumber& operator=(InstanceNumber&& from) noexcept {
    value_ = next();
    from.value_ = next();
    return *this;
  }
  ~InstanceNumber() = default;

  /// ≥ 1, never the same for two objects.
  [[nodiscard]] std::uint64_t value() const { return value_; }

 private:
  static std::uint64_t next() {
    static std::atomic<std::uint64_t> last{0};
    return last.fetch_add(1, std::memory_order_relaxed) + 1;
  }
  std::uint64_t value_;
};

}  // namespace astrosweep
