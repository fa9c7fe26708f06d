// Candidate peaks per periodogram chunk; see peaks_cuda.hpp. Local maxima follow peaks.hpp
// exactly (p[i] > p[i-1] and p[i] >= p[i+1], compared in the run's precision).

#include <cstdint>

#include "cuda_memory.hpp"
#include "peaks_cuda.hpp"

namespace astrosweep::period::kernels {

namespace {

// A block per chunk; 1024 threads keep enough loads in flight when a pass has only as many chunks
// as SMs (the fast method's: 256 threads took 103 us per pass of 128 chunks on an H100, at 4 % of
// the memory bandwidth). The histogram's bins are summed in 256 groups for the threshold walk.
constexpr int peak_threads = 1024;
constexpr int key_bits = 12;
constexpr int bins = 1 << key_bits;
constexpr int groups = 256;
constexpr int bins_per_group = bins / groups;
static_assert(groups <= peak_threads);

// Order-preserving map of a float's bits to an unsigned integer; its top bits are the bin.
__device__ inline std::uint32_t bin_of(float x) {
  const std::uint32_t b = __float_as_uint(x);
  const std::uint32_t key = (b & 0x80000000u) ? ~b : (b | 0x80000000u);
  return key >> (32 - key_bits);
}

template <class T>
__device__ inline bool is_local_max(const T* p, std::uint32_t i) {
  return p[i] > p[i - 1] && p[i] >= p[i + 1];
}

template <class T>
__global__ void __launch_bounds__(peak_threads)
    chunk_candidates_kernel(const T* power, const Segment* segments, const ChunkRef* chunks, std::uint64_t chunk_length,
                            std::uint32_t keep, CandidateSlots slots) {
  __shared__ std::uint32_t histogram[bins];
  __shared__ std::uint32_t partial[groups];
  __shared__ std::uint32_t threshold_bin;
  __shared__ std::uint32_t found;
  const ChunkRef ref = chunks[blockIdx.x];
  const Segment seg = segments[ref.segment];
  const std::uint64_t first = static_cast<std::uint64_t>(ref.index) * chunk_length;
  const T* p = power + seg.offset + first;
  const auto n = static_cast<std::uint32_t>(min(chunk_length, seg.n - first));
  const int tid = static_cast<int>(threadIdx.x);

  for (int b = tid; b < bins; b += peak_threads) histogram[b] = 0;
  if (tid == 0) found = 0;
  __syncthreads();
  for (std::uint32_t i = 1 + tid; i + 1 < n; i += peak_threads)
    if (is_local_max(p, i)) atomicAdd(&histogram[bin_of(static_cast<float>(p[i]))], 1u);
  __syncthreads();
  if (tid < groups) {
    std::uint32_t sum = 0;
    for (int b = 0; b < bins_per_group; ++b) sum += histogram[tid * bins_per_group + b];
    partial[tid] = sum;
  }
  __syncthreads();
  if (tid == 0) {
    // Walk down from the strongest bin until `keep` maxima are covered; bin 0 keeps them all.
    std::uint32_t covered = 0, bin = 0;
    for (int t = groups - 1; t >= 0 && bin == 0; --t) {
      if (covered + partial[t] < keep) {
        covered += partial[t];
        continue;
      }
      for (int b = (t + 1) * bins_per_group - 1; b >= t * bins_per_group; --b) {
        covered += histogram[b];
        if (covered >= keep) {
          bin = static_cast<std::uint32_t>(b);
          break;
        }
      }
    }
    threshold_bin = bin;
  }
  __syncthreads();
  const std::uint64_t slot0 = static_cast<std::uint64_t>(blockIdx.x) * slots.capacity;
  for (std::uint32_t i = 1 + tid; i + 1 < n; i += peak_threads) {
    if (!is_local_max(p, i) || bin_of(static_cast<float>(p[i])) < threshold_bin) continue;
    const std::uint32_t slot = atomicAdd(&found, 1u);
    if (slot < slots.capacity) {
      slots.offset[slot0 + slot] = i;
      slots.power[slot0 + slot] = static_cast<double>(p[i]);
    }
  }
  __syncthreads();
  if (tid == 0) {
    slots.count[blockIdx.x] = found;
    double* e = slots.edge + 4 * static_cast<std::uint64_t>(blockIdx.x);
    e[0] = static_cast<double>(p[0]);
    e[1] = static_cast<double>(p[n >= 2 ? 1 : 0]);
    e[2] = static_cast<double>(p[n >= 2 ? n - 2 : 0]);
    e[3] = static_cast<double>(p[n - 1]);
  }
}

}  // namespace

template <class T>
void chunk_candidates(const T* power, const Segment* segments, const ChunkRef* chunks, std::uint32_t n_chunks,
                      std::uint64_t chunk_length, std::uint32_t keep, const CandidateSlots& slots,
                      cudaStream_t stream) {
  if (n_chunks == 0) return;
  chunk_candidates_kernel<T><<<n_chunks, peak_threads, 0, stream>>>(power, segments, chunks, chunk_length, keep, slots);
  AS_CUDA_TRY(cudaGetLastError());
}

template void chunk_candidates<float>(const float*, const Segment*, const ChunkRef*, std::uint32_t, std::uint64_t,
                                      std::uint32_t, const CandidateSlots&, cudaStream_t);
template void chunk_candidates<double>(const double*, const Segment*, const ChunkRef*, std::uint32_t, std::uint64_t,
                                       std::uint32_t, const CandidateSlots&, cudaStream_t);

}  // namespace astrosweep::period::kernels
