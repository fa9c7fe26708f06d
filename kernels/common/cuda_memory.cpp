#include "cuda_memory.hpp"

#include <cstdio>

namespace astrosweep::cuda {

void throw_cuda_error(cudaError_t status, const char* call, const char* file, int line) {
  std::string what = std::string("CUDA error ") + cudaGetErrorName(status) + " (" + cudaGetErrorString(status) +
                     ") in " + call + " at " + file + ":" + std::to_string(line);
  if (status == cudaErrorMemoryAllocation)
    throw RuntimeError(what, "lower --gpu-memory-mb, or run fewer ranks per GPU");
  throw RuntimeError(what, "check the GPU with nvidia-smi; --backend cpu runs without it");
}

int device_count() noexcept {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    (void)cudaGetLastError();  // no driver or no device: clear the error so later calls start clean
    return 0;
  }
  return n;
}

std::pair<std::size_t, std::size_t> memory_info() {
  std::size_t free = 0, total = 0;
  AS_CUDA_TRY(cudaMemGetInfo(&free, &total));
  return {free, total};
}

void* device_allocate(std::size_t bytes) {
  void* p = nullptr;
  AS_CUDA_TRY(cudaMalloc(&p, bytes));
  return p;
}
void device_free(void* p) noexcept {
  if (p) (void)cudaFree(p);
}
void* pinned_allocate(std::size_t bytes) {
  void* p = nullptr;
  AS_CUDA_TRY(cudaMallocHost(&p, bytes));
  return p;
}
void pinned_free(void* p) noexcept {
  if (p) (void)cudaFreeHost(p);
}
void host_register(void* p, std::size_t bytes) { AS_CUDA_TRY(cudaHostRegister(p, bytes, cudaHostRegisterDefault)); }
void host_unregister(void* p) noexcept {
  if (p) (void)cudaHostUnregister(p);
}

Stream::Stream() { AS_CUDA_TRY(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking)); }
Stream::~Stream() {
  if (s_) (void)cudaStreamDestroy(s_);
}
void Stream::synchronize() const { AS_CUDA_TRY(cudaStreamSynchronize(s_)); }

Event::Event() { AS_CUDA_TRY(cudaEventCreate(&e_)); }
Event::~Event() {
  if (e_) (void)cudaEventDestroy(e_);
}
void Event::record(const Stream& stream) { AS_CUDA_TRY(cudaEventRecord(e_, stream.get())); }
void Event::synchronize() const { AS_CUDA_TRY(cudaEventSynchronize(e_)); }
bool Event::ready() const {
  const cudaError_t status = cudaEventQuery(e_);
  if (status == cudaErrorNotReady) {
    // Not an error: keep it from the next launch check, AS_CUDA_TRY(cudaGetLastError()).
    (void)cudaGetLastError();
    return false;
  }
  AS_CUDA_TRY(status);
  return true;
}
float Event::since(const Event& start) const {
  float ms = 0;
  AS_CUDA_TRY(cudaEventElapsedTime(&ms, start.get(), e_));
  return ms;
}

}  // namespace astrosweep::cuda
