// The harmonic sum and threshold kernels (twin of jobs/fdas/harmonic_tables.cpp and
// candidates.cpp): streaming passes over the z-major summed plane.
#include <cstdint>

#include "cuda_memory.hpp"
#include "harmonic_sum_launch.hpp"

namespace astrosweep::fdas::kernels {

namespace {

constexpr int block = 256;

__global__ void copy_columns(const float* __restrict__ plane, std::size_t plane_stride, std::int64_t first,
                             float* __restrict__ summed, std::size_t n_rows, std::size_t n_cols) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (i >= n_rows * n_cols) return;
  const std::size_t row = i / n_cols, k = i % n_cols;
  summed[i] = plane[row * plane_stride + static_cast<std::size_t>(first) + k];
}

// summed[j][k] += plane[rows[j]][cols[k] − i_first]: one harmonic of one stage.
__global__ void add_harmonic(const float* __restrict__ plane, std::size_t plane_stride, std::int64_t i_first,
                             const int* __restrict__ rows, const std::int64_t* __restrict__ cols,
                             float* __restrict__ summed, std::size_t n_rows, std::size_t n_cols) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (i >= n_rows * n_cols) return;
  const std::size_t row = i / n_cols, k = i % n_cols;
  summed[i] += plane[static_cast<std::size_t>(rows[row]) * plane_stride + static_cast<std::size_t>(cols[k] - i_first)];
}

__global__ void above_threshold(const float* __restrict__ summed, std::size_t n, float powcut,
                                unsigned long long* __restrict__ count, unsigned long long capacity,
                                unsigned long long* __restrict__ cells, float* __restrict__ powers) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (i >= n || !(summed[i] > powcut)) return;
  const unsigned long long slot = atomicAdd(count, 1ULL);
  if (slot < capacity) {
    cells[slot] = i;
    powers[slot] = summed[i];
  }
}

unsigned blocks_for(std::size_t n) { return static_cast<unsigned>((n + block - 1) / block); }

}  // namespace

void launch_copy_columns(const float* plane, std::size_t plane_stride, std::int64_t first, float* summed,
                         std::size_t n_rows, std::size_t n_cols, cudaStream_t stream) {
  if (n_rows * n_cols == 0) return;
  copy_columns<<<blocks_for(n_rows * n_cols), block, 0, stream>>>(plane, plane_stride, first, summed, n_rows, n_cols);
  AS_CUDA_TRY(cudaGetLastError());
}

void launch_add_harmonic(const float* plane, std::size_t plane_stride, std::int64_t i_first, const int* rows,
                         const std::int64_t* cols, float* summed, std::size_t n_rows, std::size_t n_cols,
                         cudaStream_t stream) {
  if (n_rows * n_cols == 0) return;
  add_harmonic<<<blocks_for(n_rows * n_cols), block, 0, stream>>>(plane, plane_stride, i_first, rows, cols, summed,
                                                                  n_rows, n_cols);
  AS_CUDA_TRY(cudaGetLastError());
}

void launch_above_threshold(const float* summed, std::size_t n, float powcut, unsigned long long* count,
                            unsigned long long capacity, unsigned long long* cells, float* powers,
                            cudaStream_t stream) {
  if (n == 0) return;
  above_threshold<<<blocks_for(n), block, 0, stream>>>(summed, n, powcut, count, capacity, cells, powers);
  AS_CUDA_TRY(cudaGetLastError());
}

}  // namespace astrosweep::fdas::kernels
