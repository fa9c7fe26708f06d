#pragma once
// cuFFT plans owned RAII-style, and cuFFT's status codes turned into RuntimeError (exit 5): the
// one place the jobs' GPU backends (fdas, period) make and destroy plans.

#include <cuda_runtime_api.h>
#include <cufft.h>

#include <cstdint>

namespace astrosweep::cuda {

/// Throws RuntimeError "cuFFT: WHAT: reason" unless `status` is CUFFT_SUCCESS; the hint names the
/// usual cause, device memory.
void cufft_try(cufftResult status, const char* what);

/// A plan of `batch` contiguous transforms of length n and `type` (CUFFT_C2C, CUFFT_Z2Z,
/// CUFFT_D2Z, ...), bound to `stream`.
class FftPlan {
 public:
  FftPlan(std::uint64_t n, std::uint64_t batch, cufftType type, cudaStream_t stream);
  ~FftPlan();
  FftPlan(const FftPlan&) = delete;
  FftPlan& operator=(const FftPlan&) = delete;

  [[nodiscard]] cufftHandle get() const noexcept { return plan_; }
  [[nodiscard]] std::uint64_t length() const noexcept { return n_; }
  [[nodiscard]] bool fits(std::uint64_t n, std::uint64_t batch) const noexcept { return n == n_ && batch == batch_; }

 private:
  cufftHandle plan_ = 0;
  std::uint64_t n_, batch_;
};

}  // namespace astrosweep::cuda
