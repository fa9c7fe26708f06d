// The history search's χ² on the GPU (jobs/spiir/coherent_history.hpp, the CUDA engine's
// search_histories): a thread per task and detector reads the pixel the sky search picked (on the
// device: no round trip), that detector's rounded offset there, ζ at the task's base plus the
// offset in the detector's ring, and the χ² over the 2K + 1 lags around it against the template's
// autocorrelation (history_chisq.hpp, the host's arithmetic). The lags run in order in one thread
// so that the sum is the CPU's, bit for bit. Neighbouring threads are a task's detectors and the
// next tasks: the trials of one candidate, whose reference window is the same and whose other
// windows lie a slide apart, so the reads are served mostly from L2.
#include "coherent_history_launch.hpp"
#include "cuda_memory.hpp"
#include "history_chisq.hpp"
#include "snr_ring.hpp"

namespace astrosweep::spiir::kernels {
namespace {

constexpr unsigned block = 128;

template <class Real>
struct RingRead {
  const Real* ring;
  std::size_t length, row;
  std::int64_t centre;
  __device__ history_chisq::Value operator()(int s) const {
    const std::size_t slot = ring_slot(row, centre + s, length);
    return {static_cast<double>(ring[slot * 2]), static_cast<double>(ring[slot * 2 + 1])};
  }
};

template <class Real>
__global__ void __launch_bounds__(block) history_chisq_kernel(const HistoryChisqLaunch<Real> k) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const auto n_det = static_cast<std::size_t>(k.n_det);
  if (i >= k.n_tasks * n_det) return;
  const std::size_t t = i / n_det, d = i % n_det;
  const auto ref = static_cast<std::size_t>(k.ref[t]);
  const auto pixel = static_cast<std::size_t>(k.pixel[t]);
  const std::int32_t offset = k.reads[(ref * static_cast<std::size_t>(k.n_pix) + pixel) * n_det + d];
  const RingRead<Real> load{k.ring[d], k.ring_length, static_cast<std::size_t>(k.tmpl[t]), k.base[i] + offset};
  const history_chisq::Value peak = load(0);
  k.zeta[2 * i] = static_cast<Real>(peak.re);  // exact: a value of Real widened
  k.zeta[2 * i + 1] = static_cast<Real>(peak.im);
  const std::size_t row = static_cast<std::size_t>(k.tmpl[t]) * n_det + d;  // the template's tables
  const double* r = k.r + row * static_cast<std::size_t>(2 * k.half + 1) * 2;
  k.chisq[i] = history_chisq::chisq(load, r, k.half, k.norms[row]);
}

}  // namespace

template <class Real>
void launch_history_chisq(const HistoryChisqLaunch<Real>& launch, cudaStream_t stream) {
  const std::size_t threads = launch.n_tasks * static_cast<std::size_t>(launch.n_det);
  if (threads == 0) return;
  AS_EXPECTS(launch.n_det == 2 || launch.n_det == 3, UsageError, "the history χ² needs 2 or 3 detectors");
  const std::size_t blocks = (threads + block - 1) / block;
  AS_ASSERT(blocks <= 0x7fffffffu);
  history_chisq_kernel<Real><<<static_cast<unsigned>(blocks), block, 0, stream>>>(launch);
  AS_CUDA_TRY(cudaGetLastError());
}

template void launch_history_chisq<float>(const HistoryChisqLaunch<float>&, cudaStream_t);
template void launch_history_chisq<double>(const HistoryChisqLaunch<double>&, cudaStream_t);

}  // namespace astrosweep::spiir::kernels
