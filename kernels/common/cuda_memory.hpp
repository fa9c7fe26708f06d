#pragma once
// RAII owners of CUDA handles (device and pinned buffers, streams, events) and AS_CUDA_TRY. The
// raw cudaMalloc/cudaFree calls live here and in cuda_memory.cpp only.

#include <cuda_runtime_api.h>

#include <cstddef>
#include <string>
#include <utility>

#include "core/error.hpp"

namespace astrosweep::cuda {

[[noreturn]] void throw_cuda_error(cudaError_t status, const char* call, const char* file, int line);

/// Throws RuntimeError (exit 5) naming the call and the CUDA error; out-of-memory hints at the budget.
#define AS_CUDA_TRY(call)                                                              \
  do {                                                                                 \
    const cudaError_t as_cuda_status = (call);                                         \
    if (as_cuda_status != cudaSuccess)                                                 \
      ::astrosweep::cuda::throw_cuda_error(as_cuda_status, #call, __FILE__, __LINE__); \
  } while (0)

/// Devices this process can use; 0 when there is no driver or no device (never throws).
int device_count() noexcept;

/// Bytes of device memory free and in total on the current device.
std::pair<std::size_t, std::size_t> memory_info();

void* device_allocate(std::size_t bytes);
void device_free(void* p) noexcept;
void* pinned_allocate(std::size_t bytes);
void pinned_free(void* p) noexcept;
/// Page-locks host memory the caller allocated (cudaHostRegister), so the DMA reads it directly;
/// for gigabytes, memory first touched on many threads (on huge pages where the kernel has them)
/// and registered costs a fraction of cudaMallocHost's page-by-page allocation on one thread.
void host_register(void* p, std::size_t bytes);
void host_unregister(void* p) noexcept;

/// Untyped owner of an allocation made by Alloc and returned by Free; grows, never shrinks.
template <void* (*Alloc)(std::size_t), void (*Free)(void*) noexcept>
class Allocation {
 public:
  Allocation() = default;
  Allocation(const Allocation&) = delete;
  Allocation& operator=(const Allocation&) = delete;
  Allocation(Allocation&& o) noexcept : p_(std::exchange(o.p_, nullptr)), bytes_(std::exchange(o.bytes_, 0)) {}
  Allocation& operator=(Allocation&& o) noexcept {
    std::swap(p_, o.p_);
    std::swap(bytes_, o.bytes_);
    return *this;
  }
  ~Allocation() { Free(p_); }

  /// Ensures room for `bytes`; the contents are lost when it grows.
  void reserve(std::size_t bytes) {
    if (bytes <= bytes_) return;
    Free(std::exchange(p_, nullptr));
    bytes_ = 0;
    p_ = Alloc(bytes);
    bytes_ = bytes;
  }
  template <class T>
  [[nodiscard]] T* as() const noexcept {
    return static_cast<T*>(p_);
  }
  [[nodiscard]] std::size_t bytes() const noexcept { return bytes_; }

 private:
  void* p_ = nullptr;
  std::size_t bytes_ = 0;
};

using DeviceMemory = Allocation<device_allocate, device_free>;
using PinnedMemory = Allocation<pinned_allocate, pinned_free>;

class Stream {
 public:
  Stream();
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  ~Stream();
  [[nodiscard]] cudaStream_t get() const noexcept { return s_; }
  void synchronize() const;

 private:
  cudaStream_t s_ = nullptr;
};

class Event {
 public:
  Event();
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  ~Event();
  [[nodiscard]] cudaEvent_t get() const noexcept { return e_; }
  void record(const Stream& stream);
  void synchronize() const;
  /// Whether the work captured by the last record() has completed (true before any record); does not wait.
  [[nodiscard]] bool ready() const;
  /// Milliseconds from `start` to this event (both recorded and complete).
  [[nodiscard]] float since(const Event& start) const;

 private:
  cudaEvent_t e_ = nullptr;
};

}  // namespace astrosweep::cuda
