#pragma once
// The causal 2× interpolation of a multi-rate level's summed SNR (MultirateStream, spec §4), one
// output sample at a time, alone: plain C++ without the standard library's newer headers, so the
// host stream (multirate_filter.cpp) and the CUDA kernel (kernels/spiir/spiir_multirate.cu,
// compiled as C++17) share it; __host__ __device__ under nvcc.
//
// Bit for bit on both: every product and sum is rounded on its own (__dmul_rn/__dadd_rn on the
// device, which nvcc never contracts into an FMA; the host build does not contract either, see
// sample_max_rule.hpp), in the same order (taps ascending, then the level's own SNR plus the sum).
// So the device's summed SNRs are the host's over the same levels' SNRs.
#include <cstddef>

#include "core/host_device.hpp"
#include "core/rounded.hpp"

namespace astrosweep::spiir::multirate_upsample_rule {

using rounded::add;
using rounded::mul;

/// Output sample i of a level's chunk interpolated from the level below, zero-stuffed and low-passed
/// with gain 2 by the half-band taps h_0 … h_2K (causal: output i reads the stuffed positions
/// i − 2K … i): the sum, over j ≡ i (mod 2) ascending, of (2 h_j) · e[K + 1 + (i − j)/2], where
/// e[q] = read(q) is the last K + 1 samples from below before this chunk followed by this chunk's
/// (so the index is never negative). `read(q, re, im)` gives e[q].
template <class Read>
AS_HOST_DEVICE inline void interpolate(const double* taps, std::size_t k, std::size_t i, const Read& read, double& re,
                                       double& im) {
  re = 0;
  im = 0;
  for (std::size_t j = i % 2; j <= 2 * k; j += 2) {
    const double c = mul(2.0, taps[j]);
    double er = 0, ei = 0;
    read((2 * k + 2 + i - j) / 2, er, ei);  // K + 1 + (i − j)/2, kept unsigned: j ≤ 2K
    re = add(re, mul(c, er));
    im = add(im, mul(c, ei));
  }
}

}  // namespace astrosweep::spiir::multirate_upsample_rule
