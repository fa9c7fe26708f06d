#include "spectrum_cuda.hpp"

#include <cufft.h>

#include <algorithm>
#include <cstdint>
#include <limits>

#include "core/error.hpp"
#include "cuda_memory.hpp"
#include "cufft_plan.hpp"
#include "deredden_launch.hpp"
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

/// The dereddening's blocks and ramps of a spectrum of K bins, in device memory.
struct DeviceLayout {
  std::size_t bins = 0;  ///< K they are for (0: none uploaded yet)
  std::size_t n_blocks = 0, n_ramps = 0;
  cuda::DeviceMemory blocks, ramps, levels;
};

}  // namespace

struct CudaSpectrum::Device {
  cuda::Stream stream;
  cuda::Event started, ready;
  cuda::DeviceMemory x, padded, transformed, spectrum, powers;
  std::size_t size = 0;  ///< bins of `spectrum`
  std::unique_ptr<RealPlan> plan;
  DeviceLayout layout;
  cuda::PinnedMemory host;  ///< download()'s copy
  std::size_t host_size = 0;
  bool host_pending = false;
};

CudaSpectrum::CudaSpectrum() : device_(std::make_unique<Device>()) {}
CudaSpectrum::~CudaSpectrum() = default;

std::size_t CudaSpectrum::device_bytes(std::size_t n_fft) {
  const std::size_t K = n_fft / 2;
  // samples, padded, transformed, the spectrum, its powers; the layout's tables are ~K / 40 entries.
  return n_fft * (sizeof(float) + sizeof(double)) + (K + 1) * sizeof(double2) + K * sizeof(float2) + K * sizeof(float) +
         K / 8;
}

void CudaSpectrum::transform_on_device(std::span<const float> x, std::size_t n_fft) {
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
  d.spectrum.reserve(n_out * sizeof(float2));
  if (!d.plan || d.plan->length() != n_fft) {
    d.plan.reset();
    d.plan = std::make_unique<RealPlan>(n_fft, s);
  }
  d.started.record(d.stream);
  AS_CUDA_TRY(cudaMemcpyAsync(d.x.as<float>(), x.data(), x.size() * sizeof(float), cudaMemcpyHostToDevice, s));
  launch_pad_with_mean(d.x.as<float>(), x.size(), mean, d.padded.as<double>(), n_fft, s);
  d.plan->run(d.padded.as<double>(), d.transformed.as<double2>());
  launch_round_to_float(d.transformed.as<double2>(), d.spectrum.as<float2>(), n_out, s);
  d.size = n_out;
}

std::vector<std::complex<float>> CudaSpectrum::transform(std::span<const float> x, std::size_t n_fft) {
  transform_on_device(x, n_fft);
  download();
  const auto copy = host_copy();
  return {copy.begin(), copy.end()};
}

void CudaSpectrum::load(std::span<const std::complex<float>> spectrum) {
  Device& d = *device_;
  d.spectrum.reserve(std::max<std::size_t>(spectrum.size(), 1) * sizeof(float2));
  AS_CUDA_TRY(cudaMemcpyAsync(d.spectrum.as<float2>(), spectrum.data(), spectrum.size() * sizeof(float2),
                              cudaMemcpyHostToDevice, d.stream.get()));
  d.stream.synchronize();
  d.size = spectrum.size();
}

void CudaSpectrum::deredden() {
  Device& d = *device_;
  const cudaStream_t s = d.stream.get();
  DeviceLayout& l = d.layout;
  if (l.bins != d.size) {
    // The blocks and ramps depend on K alone: taken on the host (the CPU's own deredden_layout)
    // once per length.
    const DereddenLayout layout = deredden_layout(d.size);
    AS_EXPECTS(d.size <= std::numeric_limits<std::uint32_t>::max(), UsageError,
               "a spectrum of more than 2^32 - 1 bins for the device's dereddening");
    std::vector<DeviceBlock> blocks;
    for (const DereddenBlock& b : layout.blocks) {
      AS_EXPECTS(b.length <= 200, RuntimeError, "a dereddening block longer than 200 bins");
      blocks.push_back({static_cast<std::uint32_t>(b.first), static_cast<std::uint32_t>(b.length)});
    }
    std::vector<DeviceRamp> ramps;
    for (const LevelRampPlan& r : layout.ramps)
      ramps.push_back({static_cast<std::uint32_t>(r.begin), static_cast<std::uint32_t>(r.end),
                       static_cast<std::uint32_t>(r.level_block), static_cast<std::uint32_t>(r.slope_block)});
    l.blocks.reserve(std::max<std::size_t>(blocks.size(), 1) * sizeof(DeviceBlock));
    l.ramps.reserve(std::max<std::size_t>(ramps.size(), 1) * sizeof(DeviceRamp));
    l.levels.reserve(std::max<std::size_t>(blocks.size(), 1) * sizeof(float));
    AS_CUDA_TRY(cudaMemcpyAsync(l.blocks.as<DeviceBlock>(), blocks.data(), blocks.size() * sizeof(DeviceBlock),
                                cudaMemcpyHostToDevice, s));
    AS_CUDA_TRY(cudaMemcpyAsync(l.ramps.as<DeviceRamp>(), ramps.data(), ramps.size() * sizeof(DeviceRamp),
                                cudaMemcpyHostToDevice, s));
    d.stream.synchronize();  // the tables' host vectors go out of scope
    l.n_blocks = blocks.size();
    l.n_ramps = ramps.size();
    l.bins = d.size;
  }
  if (l.n_blocks == 0) return;  // too short to estimate a level: left as it is, as on the host
  d.powers.reserve(d.size * sizeof(float));
  launch_bin_powers(d.spectrum.as<float2>(), d.powers.as<float>(), d.size, s);
  launch_block_levels(d.powers.as<float>(), l.blocks.as<DeviceBlock>(), l.n_blocks, l.levels.as<float>(), s);
  launch_apply_ramps(d.spectrum.as<float2>(), l.ramps.as<DeviceRamp>(), l.n_ramps, l.blocks.as<DeviceBlock>(),
                     l.levels.as<float>(), s);
}

void CudaSpectrum::scale(float factor) {
  Device& d = *device_;
  if (d.size > 1) launch_scale_bins(d.spectrum.as<float2>(), 1, d.size - 1, factor, d.stream.get());
}

void CudaSpectrum::zero(std::span<const BinRange> ranges) {
  Device& d = *device_;
  for (const BinRange& r : ranges) {
    AS_EXPECTS(r.first <= r.end && r.end <= d.size, UsageError, "birdie bins outside the spectrum");
    // All bits zero: +0 in both parts, as the host's std::complex<float>{}.
    AS_CUDA_TRY(
        cudaMemsetAsync(d.spectrum.as<float2>() + r.first, 0, (r.end - r.first) * sizeof(float2), d.stream.get()));
  }
}

CudaSpectrum::OnDevice CudaSpectrum::on_device() {
  Device& d = *device_;
  d.ready.record(d.stream);
  return {reinterpret_cast<const std::complex<float>*>(d.spectrum.as<float2>()), d.size, &d.ready};
}

float CudaSpectrum::device_ms_to_ready() const { return device_->ready.since(device_->started); }

void CudaSpectrum::download() {
  Device& d = *device_;
  if (d.host_pending) d.stream.synchronize();  // no copy still landing in a buffer reserve() may replace
  d.host.reserve(std::max<std::size_t>(d.size, 1) * sizeof(float2));
  AS_CUDA_TRY(cudaMemcpyAsync(d.host.as<float2>(), d.spectrum.as<float2>(), d.size * sizeof(float2),
                              cudaMemcpyDeviceToHost, d.stream.get()));
  d.host_size = d.size;
  d.host_pending = true;
}

std::span<const std::complex<float>> CudaSpectrum::host_copy() {
  Device& d = *device_;
  if (d.host_pending) d.stream.synchronize();
  d.host_pending = false;
  return {reinterpret_cast<const std::complex<float>*>(d.host.as<float2>()), d.host_size};
}

std::vector<std::complex<float>> deredden_cuda(std::span<const std::complex<float>> spectrum) {
  CudaSpectrum s;
  s.load(spectrum);
  s.deredden();
  s.download();
  const auto copy = s.host_copy();
  return {copy.begin(), copy.end()};
}

}  // namespace astrosweep::fdas::kernels
