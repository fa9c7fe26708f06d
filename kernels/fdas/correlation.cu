// The overlap-save correlation's kernels (twin of jobs/fdas/correlation.cpp). Each is a plain
// streaming pass over global memory; the FFTs between them are cuFFT's.
#include "correlation_launch.hpp"
#include "cuda_memory.hpp"
#include "interbin.hpp"

namespace astrosweep::fdas::kernels {

namespace {

constexpr int block = 256;

unsigned blocks_for(std::size_t n) { return static_cast<unsigned>((n + block - 1) / block); }

__global__ void spread(const float2* __restrict__ bins, const float* __restrict__ norm, float2* __restrict__ inputs,
                       std::size_t segments, SegmentGeometry g) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (i >= segments * g.fft_length) return;
  const std::size_t s = i / g.fft_length;
  const std::size_t j = i % g.fft_length;
  float2 v = make_float2(0.0F, 0.0F);
  if (j % g.numbetween == 0) {
    const float2 f = bins[s * g.step + j / g.numbetween];
    v = make_float2(f.x * norm[s], f.y * norm[s]);
  }
  inputs[i] = v;
}

__global__ void multiply(const float2* __restrict__ inputs, const float2* __restrict__ kernels,
                         float2* __restrict__ products, std::size_t templates, std::size_t segments,
                         std::size_t fft_length) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  const std::size_t per_template = segments * fft_length;
  if (i >= templates * per_template) return;
  const std::size_t t = i / per_template;
  const std::size_t rest = i % per_template;
  const float2 a = inputs[rest];
  const float2 k = kernels[t * fft_length + rest % fft_length];
  products[i] = make_float2(a.x * k.x - a.y * k.y, a.x * k.y + a.y * k.x);
}

__global__ void extract_power(const float2* __restrict__ products, std::size_t segment_stride, PlaneColumns out,
                              std::size_t templates, std::size_t segments, float scale, float interbin_scale,
                              SegmentGeometry g) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  const std::size_t per_template = segments * g.columns;
  if (i >= templates * per_template) return;
  const std::size_t t = i / per_template;
  const std::size_t column = i % per_template;  // s·C + u
  if (column >= out.columns) return;
  const std::size_t s = column / g.columns;
  const std::size_t u = column % g.columns;
  // The segment's kept outputs; an interbin's second one is the output after (clean: useful_outputs).
  const float2* kept = products + (t * segment_stride + s) * g.fft_length + g.numbetween * g.half_width;
  float2 a = kept[interbin::first_output(u, g.numbetween)];
  const bool odd = interbin::interbinned(u, g.numbetween);
  if (odd) {
    const float2 next = kept[interbin::first_output(u, g.numbetween) + 1];
    a = make_float2(a.x - next.x, a.y - next.y);
  }
  out.plane[t * out.row_stride + out.first_column + column] = (a.x * a.x + a.y * a.y) * (odd ? interbin_scale : scale);
}

}  // namespace

void launch_spread(const float2* bins, const float* norm, float2* inputs, std::size_t segments,
                   const SegmentGeometry& g, cudaStream_t stream) {
  const std::size_t n = segments * g.fft_length;
  if (n == 0) return;
  spread<<<blocks_for(n), block, 0, stream>>>(bins, norm, inputs, segments, g);
  AS_CUDA_TRY(cudaGetLastError());
}

void launch_multiply(const float2* inputs, const float2* kernels, float2* products, std::size_t templates,
                     std::size_t segments, std::size_t fft_length, cudaStream_t stream) {
  const std::size_t n = templates * segments * fft_length;
  if (n == 0) return;
  multiply<<<blocks_for(n), block, 0, stream>>>(inputs, kernels, products, templates, segments, fft_length);
  AS_CUDA_TRY(cudaGetLastError());
}

void launch_extract_power(const float2* products, std::size_t segment_stride, const PlaneColumns& out,
                          std::size_t templates, std::size_t segments, float scale, const SegmentGeometry& g,
                          cudaStream_t stream) {
  const std::size_t n = templates * segments * g.columns;
  if (n == 0) return;
  extract_power<<<blocks_for(n), block, 0, stream>>>(products, segment_stride, out, templates, segments, scale,
                                                     interbin::scaled(scale), g);
  AS_CUDA_TRY(cudaGetLastError());
}

}  // namespace astrosweep::fdas::kernels
