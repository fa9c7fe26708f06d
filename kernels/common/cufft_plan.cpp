#include "cufft_plan.hpp"

#include <limits>
#include <string>

#include "core/error.hpp"

namespace astrosweep::cuda {

namespace {

const char* cufft_text(cufftResult r) {
  switch (r) {
    case CUFFT_SUCCESS: return "success";
    case CUFFT_INVALID_PLAN: return "invalid plan";
    case CUFFT_ALLOC_FAILED: return "allocation failed";
    case CUFFT_INVALID_VALUE: return "invalid value";
    case CUFFT_INTERNAL_ERROR: return "internal error";
    case CUFFT_EXEC_FAILED: return "execution failed";
    case CUFFT_SETUP_FAILED: return "setup failed";
    case CUFFT_INVALID_SIZE: return "invalid size";
    default: return "error";
  }
}

}  // namespace

void cufft_try(cufftResult status, const char* what) {
  AS_EXPECTS(status == CUFFT_SUCCESS, RuntimeError, std::string("cuFFT: ") + what + ": " + cufft_text(status),
             "the GPU may be out of memory: lower --gpu-memory-mb or run fewer ranks per GPU");
}

FftPlan::FftPlan(std::uint64_t n, std::uint64_t batch, cufftType type, cudaStream_t stream) : n_(n), batch_(batch) {
  AS_EXPECTS(n <= static_cast<std::uint64_t>(std::numeric_limits<int>::max()) &&
                 batch <= static_cast<std::uint64_t>(std::numeric_limits<int>::max()),
             RuntimeError,
             "cuFFT cannot plan " + std::to_string(batch) + " transforms of " + std::to_string(n) +
                 " points (more than 2^31)");
  int length = static_cast<int>(n);
  cufft_try(cufftPlanMany(&plan_, 1, &length, nullptr, 1, length, nullptr, 1, length, type, static_cast<int>(batch)),
            "planning a batched transform");
  const cufftResult bound = cufftSetStream(plan_, stream);
  if (bound != CUFFT_SUCCESS) cufftDestroy(plan_);
  cufft_try(bound, "binding a plan to its stream");
}

FftPlan::~FftPlan() { cufftDestroy(plan_); }

}  // namespace astrosweep::cuda
