#pragma once
// A one-dimensional type-1 non-uniform FFT of our own (FINUFFT is not packaged for Debian), after
// Barnett, Magland & af Klinteberg 2019, "A parallel non-uniform fast Fourier transform library
// based on an exponential of semicircle kernel" (SIAM J. Sci. Comput. 41, C479):
//
//   f_k = sum_j c_j exp(sign i k x_j),  k = k_first .. k_first + N - 1,  x_j in [-pi, pi).
//
// Each point is spread onto an oversampled periodic grid of M >= sigma N cells with the
// "exponential of semicircle" kernel psi(z) = exp(beta (sqrt(1 - z^2) - 1)), |z| <= 1, w cells
// wide; the grid is transformed with FFTW; each mode is divided by the kernel's Fourier transform
// (Gauss-Legendre quadrature of psi). Width and shape follow the paper's rules from the requested
// tolerance eps, with one cell more than they give (the rules aim at eps and land within a factor
// of ~7 of it; one cell is a factor of ~10): for sigma = 2, w = ceil(log10(1/eps)) + 1 (+1) and
// beta = 2.30 w; for sigma = 1.25, w = ceil(ln(1/eps) / (pi sqrt(1 - 1/sigma))) (+1) and
// beta = 0.97 pi (1 - 1/(2 sigma)) w.
//
// Positions are taken in double in both precisions: the kernel's argument (the distance of a
// point from its grid cells) is formed in double and only the kernel's value and the strengths
// are rounded to T. A float position would carry an absolute error of 2e-7 rad, which mode k
// multiplies into a phase error of k * 2e-7: the cause of FP32 NUFFT periodograms that move the
// best frequency.
//
// The result of a transform depends only on its inputs and its shape, never on the thread that
// runs it: FFTW plans are made with FFTW_ESTIMATE (no timing runs) and executed on buffers of one
// alignment, and points are spread in their given order.

#include <complex>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

namespace astrosweep::period {

/// The shape of one type-1 transform: modes, fine grid and kernel.
struct NufftShape {
  std::uint64_t modes = 0;  ///< N
  std::uint64_t grid = 0;   ///< M: the fine grid, a product of 2, 3 and 5, >= sigma N and >= 2 w
  int width = 0;            ///< w: grid cells each point is spread to
  double beta = 0;          ///< the kernel's shape parameter
  double sigma = 2;         ///< oversampling factor
  int sign = +1;            ///< the exponent's sign
};

/// Smallest kernel width the rules allow (and the paper's lower limit, 2) to the largest (16).
inline constexpr int nufft_min_width = 2;
inline constexpr int nufft_max_width = 16;

/// The shape that reaches `tolerance` for N modes (relative l2 error over the modes; the error of
/// any one mode stays within 3 tolerances of sum |c_j|): sigma 2 (or 1.25); widths beyond
/// nufft_max_width are clamped, so tolerances below about 1e-14 cannot be met. Throws UsageError for N = 0, tolerance
/// outside (0, 1) or another sigma.
NufftShape nufft_shape(std::uint64_t modes, double tolerance, double sigma = 2.0, int sign = +1);

/// Smallest product of 2, 3 and 5 that is >= n: an FFT length FFTW does fast.
std::uint64_t smooth_fft_length(std::uint64_t n);

/// The kernel's Fourier transform at integer frequencies m = m_first .. m_first + count - 1 of a
/// grid of M cells: int psi(y / alpha) exp(i m y) dy, alpha = w pi / M, by Gauss-Legendre
/// quadrature. Exposed for the tests.
std::vector<double> nufft_kernel_transform(const NufftShape& shape, std::int64_t m_first, std::uint64_t count);

/// The factors that turn the fine grid's FFT into the modes: for mode m = i - floor(N/2) (i < N),
/// (-1)^m h / psi_hat(m) with h = 2 pi / M (the grid's cell l sits at x = l h - pi, so its
/// transform carries (-1)^m; psi_hat, the kernel's transform, is divided out). Shared with the GPU.
std::vector<double> nufft_deconvolution(const NufftShape& shape);

/// One type-1 transform of a fixed shape, in float or double, reusable: its grid buffers and
/// deconvolution factors are kept between executions. Not for concurrent use; one per thread.
template <class T>
class Nufft1 {
 public:
  explicit Nufft1(const NufftShape& shape);
  ~Nufft1();
  Nufft1(const Nufft1&) = delete;
  Nufft1& operator=(const Nufft1&) = delete;

  [[nodiscard]] const NufftShape& shape() const noexcept;

  /// Transforms strength vectors that share the points x (one kernel evaluation for all of them):
  /// out[v][i] = sum_j strengths[v][j] exp(sign i (k_first + i) x_j), i < N. Points outside
  /// [-pi, pi) are taken modulo 2 pi. A k_first other than -floor(N/2) costs a phase factor per
  /// point, computed from k x_j in double: callers with large offsets fold them into the strengths.
  /// `threads` > 1 spreads on that many OpenMP threads, each owning a block of the grid (the same
  /// bits as one thread); the FFT runs on one (a multi-threaded FFTW plan may round otherwise).
  void execute(std::span<const double> x, std::span<const std::span<const std::complex<T>>> strengths,
               std::int64_t k_first, std::span<const std::span<std::complex<T>>> out, int threads = 1);

  /// One vector.
  void execute(std::span<const double> x, std::span<const std::complex<T>> strengths, std::int64_t k_first,
               std::span<std::complex<T>> out, int threads = 1);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// The direct sum f_k = sum_j c_j exp(sign i k x_j) in double: the oracle of the tests.
std::vector<std::complex<double>> nudft1_reference(std::span<const double> x,
                                                   std::span<const std::complex<double>> strengths,
                                                   std::int64_t k_first, std::uint64_t modes, int sign = +1);

}  // namespace astrosweep::period
