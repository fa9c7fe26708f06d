#pragma once
// Launcher of the history search's χ² kernel (coherent_history.cu) for coherent_sky_cuda.cpp: per
// task and detector, ζ at the pixel the sky search picked and the autocorrelation χ² around it,
// read from the detector's SNR history on the device. Its arithmetic is jobs/spiir/
// history_chisq.hpp's, bit for bit autocorrelation_chisq.

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace astrosweep::spiir::kernels {

template <class Real>
struct HistoryChisqLaunch {
  const Real* ring[3] = {nullptr, nullptr, nullptr};  ///< per detector (snr_ring.hpp's layout)
  std::size_t ring_length = 0;
  int n_det = 0;
  int n_pix = 0;
  const std::int32_t* reads = nullptr;  ///< rounded offsets, [(ref · n_pix + p) · n_det + d]
  std::size_t n_tasks = 0;
  const std::int32_t* tmpl = nullptr;   ///< per task: the ring's row and the χ² tables'
  const std::int32_t* ref = nullptr;    ///< per task
  const std::int64_t* base = nullptr;   ///< per [t · n_det + d]: the base sample, absolute
  const std::int32_t* pixel = nullptr;  ///< per task: the sky search's pick (on the device)
  const double* r = nullptr;            ///< SkyChisqTables::r
  const double* norms = nullptr;        ///< SkyChisqTables::norms
  int half = 0;                         ///< K
  Real* zeta = nullptr;                 ///< per [t · n_det + d]: (re, im)
  double* chisq = nullptr;              ///< per [t · n_det + d]
};

/// A thread per task and detector; nothing is launched for no tasks.
template <class Real>
void launch_history_chisq(const HistoryChisqLaunch<Real>& launch, cudaStream_t stream);

}  // namespace astrosweep::spiir::kernels
