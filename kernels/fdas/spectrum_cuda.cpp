#include "spectrum_cuda.hpp"

#include <cufft.h>

#include "core/error.hpp"
#include "cuda_memory.hpp"
#include "cufft_plan.hpp"
#include "spectrum.hpp"
#include "spectrum_launch.hpp"

namespace astrosweep::fdas::kernels {

namespace {

/// A real-to-complex double plan of one length, bound to a stream.
class RealPlan {
 public:
  RealPlan(std::size_t n, cudaStream_t stream) : plan_(n, 1, CUFFT_D2Z, stream) {}
  [[nodiscard]] std::size_t length() const noexcept { return plan_.length(); }
  void run(double* in, double2* out) const {
    cuda::cufft_try(cufftExecD2Z(plan_.get(), in, out), "executing a real transform");
  }

 private:
  cuda::FftPlan plan_;
};

}  // namespace

struct CudaSpectrum::Device {
  cuda::Stream stream;
  cuda::DeviceMemory x, padded, transformed, rounded;
  std::unique_ptr<RealPlan> plan;
};

CudaSpectrum::CudaSpectrum() : device_(std::make_unique<Device>()) {}
CudaSpectrum::~CudaSpectrum() = default;

std::size_t CudaSpectrum::device_bytes(std::size_t n_fft) {
  return n_fft * (sizeof(float) + sizeof(double)) + (n_fft / 2 + 1) * sizeof(double2) + n_fft / 2 * sizeof(float2);
}

std::vector<std::complex<float>> CudaSpectrum::transform(std::span<const float> x, std::size_t n_fft) {
  AS_EXPECTS(n_fft >= x.size() && n_fft >= 2, UsageError,
             "FFT length " + std::to_string(n_fft) + " is shorter than the series (" + std::to_string(x.size()) + ")");
  AS_EXPECTS(n_fft <= (std::size_t{1} << 31) - 1, UsageError, "a series longer than cuFFT's 2^31 - 1 points");
  const double mean = padding_mean(x, n_fft);
  Device& d = *device_;
  const cudaStream_t s = d.stream.get();
  const std::size_t n_out = n_fft / 2;
  d.x.reserve(std::max<std::size_t>(x.size(), 1) * sizeof(float));
  d.padded.reserve(n_fft * sizeof(double));
  d.transformed.reserve((n_fft / 2 + 1) * sizeof(double2));
  d.rounded.reserve(n_out * sizeof(float2));
  if (!d.plan || d.plan->length() != n_fft) {
    d.plan.reset();
    d.plan = std::make_unique<RealPlan>(n_fft, s);
  }
  AS_CUDA_TRY(cudaMemcpyAsync(d.x.as<float>(), x.data(), x.size() * sizeof(float), cudaMemcpyHostToDevice, s));
  launch_pad_with_mean(d.x.as<float>(), x.size(), mean, d.padded.as<double>(), n_fft, s);
  d.plan->run(d.padded.as<double>(), d.transformed.as<double2>());
  launch_round_to_float(d.transformed.as<double2>(), d.rounded.as<float2>(), n_out, s);
  std::vector<std::complex<float>> f(n_out);
  AS_CUDA_TRY(cudaMemcpyAsync(f.data(), d.rounded.as<float2>(), n_out * sizeof(float2), cudaMemcpyDeviceToHost, s));
  d.stream.synchronize();
  f[0] = 1;
  return f;
}

}  // namespace astrosweep::fdas::kernels
