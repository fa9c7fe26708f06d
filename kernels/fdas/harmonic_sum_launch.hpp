#pragma once
// Launchers of the harmonic-sum kernels (harmonic_sum.cu) for harmonic_sum_cuda.cpp; stream last.

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace astrosweep::fdas::kernels {

/// summed[row][k] = plane[row][first + k].
void launch_copy_columns(const float* plane, std::size_t plane_stride, std::int64_t first, float* summed,
                         std::size_t n_rows, std::size_t n_cols, cudaStream_t stream);
/// summed[row][k] += plane[rows[row]][cols[k] − i_first].
void launch_add_harmonic(const float* plane, std::size_t plane_stride, std::int64_t i_first, const int* rows,
                         const std::int64_t* cols, float* summed, std::size_t n_rows, std::size_t n_cols,
                         cudaStream_t stream);
/// The flat indices and powers of the cells with summed > powcut, in no order, up to `capacity`;
/// `count` receives how many there were.
void launch_above_threshold(const float* summed, std::size_t n, float powcut, unsigned long long* count,
                            unsigned long long capacity, unsigned long long* cells, float* powers, cudaStream_t stream);

}  // namespace astrosweep::fdas::kernels
