#pragma once
// A whole slab's worth of values on the host, not value-initialised: std::vector<T>(n) zero-fills
// n elements on one thread before the reader or the labeller overwrites them, and for a slab of
// a WALLABY cube that memset (and the kernel clearing every page it touches first) costs seconds.
// The buffer is either overwritten by its user (a reader that fills every element) or made
// zeroed(): calloc, which for a buffer this size maps pages the kernel hands out already zero, so
// pages nobody writes (most of a sparse label cube) are never cleared nor even backed.

#include <cstddef>
#include <cstdlib>
#include <memory>
#include <new>
#include <span>
#include <type_traits>

namespace astrosweep::scfind {

template <class T>
class SlabBuffer {
  static_assert(std::is_trivially_default_constructible_v<T> && std::is_trivially_destructible_v<T>);

 public:
  SlabBuffer() = default;
  /// `n` elements of indeterminate value: the caller writes every one before reading it.
  explicit SlabBuffer(std::size_t n) : data_(allocate(std::malloc(n * sizeof(T)), n)), size_(n) {}

  /// `n` elements of T{} (all bits zero for the arithmetic types it holds).
  static SlabBuffer zeroed(std::size_t n) {
    static_assert(std::is_arithmetic_v<T>);
    SlabBuffer b;
    b.data_.reset(allocate(std::calloc(n, sizeof(T)), n));
    b.size_ = n;
    return b;
  }

  [[nodiscard]] T* data() noexcept { return data_.get(); }
  [[nodiscard]] const T* data() const noexcept { return data_.get(); }
  [[nodiscard]] std::size_t size() const noexcept { return size_; }
  [[nodiscard]] T& operator[](std::size_t i) noexcept { return data_.get()[i]; }
  [[nodiscard]] const T& operator[](std::size_t i) const noexcept { return data_.get()[i]; }
  [[nodiscard]] T* begin() noexcept { return data(); }
  [[nodiscard]] T* end() noexcept { return data() + size_; }
  [[nodiscard]] const T* begin() const noexcept { return data(); }
  [[nodiscard]] const T* end() const noexcept { return data() + size_; }
  operator std::span<T>() noexcept { return {data(), size_}; }              // NOLINT(google-explicit-constructor)
  operator std::span<const T>() const noexcept { return {data(), size_}; }  // NOLINT(google-explicit-constructor)

 private:
  struct Free {
    void operator()(T* p) const noexcept { std::free(p); }
  };
  static T* allocate(void* p, std::size_t n) {
    if (p == nullptr && n > 0) throw std::bad_alloc();
    return static_cast<T*>(p);
  }

  std::unique_ptr<T, Free> data_;
  std::size_t size_ = 0;
};

}  // namespace astrosweep::scfind
