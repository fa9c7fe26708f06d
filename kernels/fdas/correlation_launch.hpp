#pragma once
// Launchers of the correlation kernels (correlation.cu), for the host driver correlation_cuda.cpp.
// Complex values are float2 (cuFFT's cufftComplex); every launcher takes its stream last.

#include <cuda_runtime_api.h>

#include <cstddef>
#include <vector>

#include "cell_pool_view.hpp"

namespace astrosweep::fdas::kernels {

struct SegmentGeometry {
  std::size_t fft_length;  ///< L
  std::size_t numbetween;  ///< b
  std::size_t half_width;  ///< m
  std::size_t useful;      ///< U
  std::size_t step;        ///< U / b bins
  std::size_t in_bins;     ///< bins a segment reads: (L − 1) / b + 1
  std::size_t columns;     ///< plane columns a segment fills: 2·step (b = 1: powers and interbins)
};

/// inputs[s][b·k] = bins[s·step + k] · norm[s] for k < in_bins, zero elsewhere (s < segments).
void launch_spread(const float2* bins, const float* norm, float2* inputs, std::size_t segments,
                   const SegmentGeometry& g, cudaStream_t stream);

/// products[t][s][j] = inputs[s][j] · kernels[t][j] for t < templates, s < segments, j < L.
void launch_multiply(const float2* inputs, const float2* kernels, float2* products, std::size_t templates,
                     std::size_t segments, std::size_t fft_length, cudaStream_t stream);

/// Where a run of segments (segment_grid.hpp) puts its columns: its column c = s·C + u, while
/// c < columns, is the plane's column first_column + c, of row t at plane + t·row_stride (the
/// plane's rows hold every run's columns, and zeros where there is none).
struct PlaneColumns {
  float* plane = nullptr;
  std::size_t row_stride = 0;
  std::size_t first_column = 0;
  std::size_t columns = 0;
};

/// The run's column s·C + u (< out.columns; C = g.columns) of template t, into
/// out.plane[t·row_stride + first_column + s·C + u], from a = products[t·segment_stride + s][b·m + …]
/// (products of segment_stride segments a template): |a[u]|² · scale (b = 2), or for b = 1
/// |a[u/2]|² · scale at even u and the interbin |a[u/2] − a[u/2 + 1]|² · scale · π²/16 at odd u
/// (interbin.hpp).
void launch_extract_power(const float2* products, std::size_t segment_stride, const PlaneColumns& out,
                          std::size_t templates, std::size_t segments, float scale, const SegmentGeometry& g,
                          cudaStream_t stream);

/// Points a thread of the shared-memory FFT holds: 16 (radix-16 passes) from L = 1024, else 8.
constexpr int shared_fft_points(std::size_t fft_length) { return fft_length >= 1024 ? 16 : 8; }

/// The shared-memory FFTs' twiddle table (the correlation's and the FFT micro-benchmark's): for each
/// Stockham pass after the first, of Ns points so far and radix R, e^{+2πi rk/(Ns·R)} for r = 1 …
/// R − 1 and k < Ns, r-major, from entry Ns − P (P = shared_fft_points; shared_memory_fft.cuh's
/// pass_twiddle), L − P entries in all. Computed in double, then rounded, so the table adds no
/// error of its own.
std::vector<float2> shared_memory_fft_twiddles(std::size_t fft_length);

/// Whether launch_correlate_fused has an L-point transform (powers of two 256 … 4096).
bool fused_correlation_supports(std::size_t fft_length);

/// A search of one harmonic straight from the correlation (no plane): a run's powers at its own
/// columns [col_begin, col_end) above powcut go into the pool as stage 0's cells, entry
/// t·n_cols + column + entry_offset for template t (modulo 2^64: entry_offset is the run's first
/// column of the plane less the first kept one), as the harmonic sum would keep them from the plane
/// (the same float power, the same test). For a plane's kept columns [b, e) seen as one run from
/// the plane's column 0: col_begin b, col_end e, n_cols e − b, entry_offset −b.
struct KeepAbove {
  CellPoolView pool;
  float powcut = 0;
  std::size_t col_begin = 0, col_end = 0;
  std::size_t n_cols = 0;
  std::size_t entry_offset = 0;
};

/// A plane's KeepAbove (its kept columns seen as one run from the plane's column 0) for the run of
/// `columns` columns from the plane's column `first`: the kept columns that are the run's, in its
/// own columns (empty where it holds none), the same pool entries. Host code (correlate_bins).
KeepAbove keep_in_run(const KeepAbove& keep, std::size_t first, std::size_t columns);

/// multiply, inverse FFT and extract_power in one kernel, the FFTs in shared memory: the columns
/// launch_extract_power writes, from a = IFFT(inputs[s] · kernels[t]), for every template and
/// segment of the run, its columns < out.columns; with `keep` (the run's: keep_in_run), those
/// powers are tested and kept as KeepAbove says and the plane is not written (out.plane may be
/// null). `twiddle` holds e^{+2πi m/L}, m < L.
void launch_correlate_fused(const float2* inputs, const float2* kernels, const float2* twiddle, const PlaneColumns& out,
                            std::size_t templates, std::size_t segments, float scale, const SegmentGeometry& g,
                            const KeepAbove* keep, cudaStream_t stream);

}  // namespace astrosweep::fdas::kernels
