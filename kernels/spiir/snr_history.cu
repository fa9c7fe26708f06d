// The SNR history's kernels (jobs/spiir/snr_history.hpp's ring on the device): a chunk written
// into the ring (a thread per sample of a template: consecutive threads write consecutive slots,
// coalesced but at the ring's wrap), converted to the ring's precision on the way, and reads
// gathered out of it for the host.
#include "cuda_memory.hpp"
#include "snr_history_launch.hpp"
#include "snr_ring.hpp"

namespace astrosweep::spiir::kernels {
namespace {

constexpr unsigned block = 256;

template <class Real>
struct alignas(2 * sizeof(Real)) Pair {
  Real re, im;
};

// A ring value from a chunk's: the host append's static_cast (snr_history.cpp), spelled out for
// double to float (round to nearest, even on ties; this build does not flush subnormals) so the
// device ring holds what the host's would, bit for bit.
__device__ float to_ring(double v, float) { return __double2float_rn(v); }
__device__ double to_ring(double v, double) { return v; }
__device__ float to_ring(float v, float) { return v; }
__device__ double to_ring(float v, double) { return static_cast<double>(v); }  // exact

template <class From, class Real>
__global__ void ring_write(const Pair<From>* __restrict__ z, std::size_t n_templates, std::size_t n,
                           Pair<Real>* __restrict__ ring, std::size_t length, std::int64_t at) {
  const std::size_t k = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (k >= n_templates * n) return;
  const std::size_t j = k / n, i = k % n;
  const Pair<From> v = z[k];
  ring[ring_slot(j, at + static_cast<std::int64_t>(i), length)] = {to_ring(v.re, Real{}), to_ring(v.im, Real{})};
}

template <class Real>
__global__ void ring_gather(const Pair<Real>* __restrict__ ring, std::size_t length,
                            const std::int64_t* __restrict__ row, const std::int64_t* __restrict__ first,
                            std::size_t n_reads, std::size_t n, Pair<Real>* __restrict__ out) {
  const std::size_t k = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (k >= n_reads * n) return;
  const std::size_t r = k / n, i = k % n;
  out[k] = ring[ring_slot(static_cast<std::size_t>(row[r]), first[r] + static_cast<std::int64_t>(i), length)];
}

unsigned blocks_for(std::size_t threads) {
  const std::size_t blocks = (threads + block - 1) / block;
  AS_ASSERT(blocks <= 0x7fffffffu);
  return static_cast<unsigned>(blocks);
}

}  // namespace

template <class From, class Real>
void launch_ring_write(const From* z, std::size_t n_templates, std::size_t n, Real* ring, std::size_t length,
                       std::int64_t at, cudaStream_t stream) {
  if (n == 0 || n_templates == 0) return;
  AS_ASSERT(n <= length);
  ring_write<From, Real><<<blocks_for(n_templates * n), block, 0, stream>>>(
      reinterpret_cast<const Pair<From>*>(z), n_templates, n, reinterpret_cast<Pair<Real>*>(ring), length, at);
  AS_CUDA_TRY(cudaGetLastError());
}

template <class Real>
void launch_ring_gather(const Real* ring, std::size_t length, const std::int64_t* row, const std::int64_t* first,
                        std::size_t n_reads, std::size_t n, Real* out, cudaStream_t stream) {
  if (n == 0 || n_reads == 0) return;
  ring_gather<Real><<<blocks_for(n_reads * n), block, 0, stream>>>(
      reinterpret_cast<const Pair<Real>*>(ring), length, row, first, n_reads, n, reinterpret_cast<Pair<Real>*>(out));
  AS_CUDA_TRY(cudaGetLastError());
}

// Every pair of precisions: a backend's SNRs (its precision, or the multi-rate sum's double) into
// a ring of either.
template void launch_ring_write<float, float>(const float*, std::size_t, std::size_t, float*, std::size_t, std::int64_t,
                                              cudaStream_t);
template void launch_ring_write<float, double>(const float*, std::size_t, std::size_t, double*, std::size_t,
                                               std::int64_t, cudaStream_t);
template void launch_ring_write<double, float>(const double*, std::size_t, std::size_t, float*, std::size_t,
                                               std::int64_t, cudaStream_t);
template void launch_ring_write<double, double>(const double*, std::size_t, std::size_t, double*, std::size_t,
                                                std::int64_t, cudaStream_t);
template void launch_ring_gather<float>(const float*, std::size_t, const std::int64_t*, const std::int64_t*,
                                        std::size_t, std::size_t, float*, cudaStream_t);
template void launch_ring_gather<double>(const double*, std::size_t, const std::int64_t*, const std::int64_t*,
                                         std::size_t, std::size_t, double*, cudaStream_t);

}  // namespace astrosweep::spiir::kernels
