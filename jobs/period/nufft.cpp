// The type-1 NUFFT (see nufft.hpp): spreading, FFTW, deconvolution.

#include "nufft.hpp"

#include <fftw3.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <mutex>
#include <numbers>
#include <string>

#include "core/error.hpp"
#include "core/fftw_planner.hpp"

namespace astrosweep::period {

namespace {

constexpr double two_pi = 2 * std::numbers::pi;

// FFTW's two precisions behind one type. Buffers come from fftw_malloc (FFTW's SIMD alignment) and
// are freed by their owner; plans are made once per length and direction and kept to the end of
// the process (a period run uses a handful of lengths), shared by every thread: executing one plan
// on different arrays concurrently is safe, planning is not (hence the lock).
template <class T>
struct Fftw;

template <>
struct Fftw<double> {
  using Plan = fftw_plan;
  static Plan plan(int n, std::complex<double>* a, int sign) {
    auto* c = reinterpret_cast<fftw_complex*>(a);
    return fftw_plan_dft_1d(n, c, c, sign > 0 ? FFTW_BACKWARD : FFTW_FORWARD, FFTW_ESTIMATE);
  }
  static void run(Plan p, std::complex<double>* a) {
    auto* c = reinterpret_cast<fftw_complex*>(a);
    fftw_execute_dft(p, c, c);
  }
  static void destroy(Plan p) { fftw_destroy_plan(p); }
  static void* allocate(std::size_t bytes) { return fftw_malloc(bytes); }
  static void release(void* p) { fftw_free(p); }
  static int alignment_of(std::complex<double>* a) { return fftw_alignment_of(reinterpret_cast<double*>(a)); }
};

template <>
struct Fftw<float> {
  using Plan = fftwf_plan;
  static Plan plan(int n, std::complex<float>* a, int sign) {
    auto* c = reinterpret_cast<fftwf_complex*>(a);
    return fftwf_plan_dft_1d(n, c, c, sign > 0 ? FFTW_BACKWARD : FFTW_FORWARD, FFTW_ESTIMATE);
  }
  static void run(Plan p, std::complex<float>* a) {
    auto* c = reinterpret_cast<fftwf_complex*>(a);
    fftwf_execute_dft(p, c, c);
  }
  static void destroy(Plan p) { fftwf_destroy_plan(p); }
  static void* allocate(std::size_t bytes) { return fftwf_malloc(bytes); }
  static void release(void* p) { fftwf_free(p); }
  static int alignment_of(std::complex<float>* a) { return fftwf_alignment_of(reinterpret_cast<float*>(a)); }
};

/// A buffer of complex<T> with FFTW's alignment, zeroed on request.
template <class T>
class FftwBuffer {
 public:
  explicit FftwBuffer(std::size_t n)
      : data_(static_cast<std::complex<T>*>(Fftw<T>::allocate(sizeof(std::complex<T>) * std::max<std::size_t>(n, 1)))),
        size_(n) {
    AS_EXPECTS(data_ != nullptr, RuntimeError,
               "out of memory for a NUFFT grid of " + std::to_string(n) + " cells (" +
                   std::to_string(n * sizeof(std::complex<T>) >> 20) + " MiB)");
  }
  ~FftwBuffer() { Fftw<T>::release(data_); }
  FftwBuffer(const FftwBuffer&) = delete;
  FftwBuffer& operator=(const FftwBuffer&) = delete;
  [[nodiscard]] std::complex<T>* data() const noexcept { return data_; }
  [[nodiscard]] std::size_t size() const noexcept { return size_; }

 private:
  std::complex<T>* data_;
  std::size_t size_;
};

/// The in-place plan of length n and direction sign, made on first use.
template <class T>
typename Fftw<T>::Plan cached_plan(std::uint64_t n, int sign) {
  struct Cache {
    std::map<std::pair<std::uint64_t, int>, typename Fftw<T>::Plan> plans;
    ~Cache() {
      for (auto& [key, plan] : plans) Fftw<T>::destroy(plan);
    }
  };
  static Cache cache;
  const std::scoped_lock hold(fftw_planner_lock());
  auto& plan = cache.plans[{n, sign}];
  if (!plan) {
    FftwBuffer<T> scratch(n);
    plan = Fftw<T>::plan(static_cast<int>(n), scratch.data(), sign);
    AS_EXPECTS(plan != nullptr, RuntimeError, "FFTW cannot plan a transform of length " + std::to_string(n));
  }
  return plan;
}

/// Nodes and weights of q-point Gauss-Legendre quadrature on [-1, 1], by Newton's method on the
/// Legendre polynomial P_q from the usual first guesses cos(pi (i - 1/4) / (q + 1/2)).
void gauss_legendre(int q, std::vector<double>& nodes, std::vector<double>& weights) {
  nodes.assign(static_cast<std::size_t>(q), 0.0);
  weights.assign(static_cast<std::size_t>(q), 0.0);
  for (int i = 0; i < (q + 1) / 2; ++i) {
    double z = std::cos(std::numbers::pi * (i + 0.75) / (q + 0.5));
    double derivative = 1;
    for (int iteration = 0; iteration < 100; ++iteration) {
      double p1 = 1, p0 = 0;  // P_j(z), P_{j-1}(z)
      for (int j = 1; j <= q; ++j) {
        const double p_prev = p0;
        p0 = p1;
        p1 = ((2 * j - 1) * z * p0 - (j - 1) * p_prev) / j;
      }
      derivative = q * (z * p1 - p0) / (z * z - 1);
      const double step = p1 / derivative;
      z -= step;
      if (std::abs(step) < 1e-16) break;
    }
    const double weight = 2 / ((1 - z * z) * derivative * derivative);
    nodes[static_cast<std::size_t>(i)] = -z;
    nodes[static_cast<std::size_t>(q - 1 - i)] = z;
    weights[static_cast<std::size_t>(i)] = weights[static_cast<std::size_t>(q - 1 - i)] = weight;
  }
}

double kernel(double z, double beta) { return std::exp(beta * (std::sqrt(std::max(0.0, 1 - z * z)) - 1)); }

/// Cells of padding on each side of the spreading grid: room for half a kernel beyond either end,
/// a multiple of 8 cells so that the grid proper keeps the buffer's (FFTW's) alignment.
int padding(int width) { return (width / 2 + 1 + 7) / 8 * 8; }

}  // namespace

std::uint64_t smooth_fft_length(std::uint64_t n) {
  std::uint64_t best = std::numeric_limits<std::uint64_t>::max();
  for (std::uint64_t p2 = 1; p2 < 2 * std::max<std::uint64_t>(n, 1); p2 *= 2)
    for (std::uint64_t p3 = p2; p3 < 2 * std::max<std::uint64_t>(n, 1); p3 *= 3)
      for (std::uint64_t p5 = p3; p5 < 2 * std::max<std::uint64_t>(n, 1); p5 *= 5)
        if (p5 >= n) best = std::min(best, p5);
  return best;
}

NufftShape nufft_shape(std::uint64_t modes, double tolerance, double sigma, int sign) {
  AS_EXPECTS(modes > 0, UsageError, "a NUFFT needs at least one mode");
  AS_EXPECTS(tolerance > 0 && tolerance < 1, UsageError,
             "the NUFFT tolerance must be in (0, 1), got " + std::to_string(tolerance));
  AS_EXPECTS(sigma == 2.0 || sigma == 1.25, UsageError,
             "the NUFFT oversampling factor must be 2 or 1.25, got " + std::to_string(sigma));
  AS_EXPECTS(sign == 1 || sign == -1, UsageError, "the NUFFT sign must be +1 or -1");
  NufftShape s;
  s.modes = modes;
  s.sigma = sigma;
  s.sign = sign;
  // The paper's rules, plus one cell: they aim at the tolerance, and measured errors came out up
  // to 7 times above it (w = 13, beta = 2.30 w, sigma 2: relative l2 errors of 1.8e-12 and single
  // modes off by 7e-12 of sum |c_j| for a requested 1e-12); one more cell is a factor of ~10.
  if (sigma == 2.0) {
    s.width = static_cast<int>(std::ceil(std::log10(1 / tolerance))) + 2;
  } else {
    s.width = static_cast<int>(std::ceil(std::log(1 / tolerance) / (std::numbers::pi * std::sqrt(1 - 1 / sigma)))) + 1;
  }
  s.width = std::clamp(s.width, nufft_min_width, nufft_max_width);
  s.beta = sigma == 2.0 ? 2.30 * s.width : 0.97 * std::numbers::pi * (1 - 1 / (2 * sigma)) * s.width;
  const auto wanted = static_cast<std::uint64_t>(std::ceil(sigma * static_cast<double>(modes)));
  // At least 2 w cells (no point's kernel wraps onto itself) and 32 (twice the largest padding).
  s.grid = smooth_fft_length(std::max({wanted, 2 * static_cast<std::uint64_t>(s.width), std::uint64_t{32}}));
  AS_EXPECTS(s.grid <= static_cast<std::uint64_t>(std::numeric_limits<int>::max()), UsageError,
             "a NUFFT of " + std::to_string(modes) + " modes needs a grid longer than FFTW's 2^31 cells",
             "split the modes into several transforms");
  return s;
}

std::vector<double> nufft_kernel_transform(const NufftShape& shape, std::int64_t m_first, std::uint64_t count) {
  // psi is smooth inside (-1, 1) with a square-root edge where it is below e^-beta: 3w + 2 nodes
  // integrate it to rounding at the modes a transform keeps (tests/period/test_nufft.cpp compares
  // with a trapezoid rule of 200,000 intervals).
  const int q = 3 * shape.width + 2;
  std::vector<double> z, g;
  gauss_legendre(q, z, g);
  const double alpha = shape.width * std::numbers::pi / static_cast<double>(shape.grid);
  std::vector<double> out(count, 0.0);
  // cos(m alpha z_n) by rotation from an exact value every `reseed` modes: count * q complex
  // multiplies instead of cosines, with rounding that cannot grow beyond reseed steps.
  constexpr std::uint64_t reseed = 64;
  for (int n = 0; n < q; ++n) {
    const double theta = alpha * z[static_cast<std::size_t>(n)];
    const double amplitude =
        alpha * g[static_cast<std::size_t>(n)] * kernel(z[static_cast<std::size_t>(n)], shape.beta);
    const std::complex<double> step = std::polar(1.0, theta);
    std::complex<double> e;
    for (std::uint64_t i = 0; i < count; ++i) {
      if (i % reseed == 0) e = std::polar(1.0, static_cast<double>(m_first + static_cast<std::int64_t>(i)) * theta);
      out[i] += amplitude * e.real();
      e *= step;
    }
  }
  return out;
}

std::vector<double> nufft_deconvolution(const NufftShape& shape) {
  // Mode m of the grid whose cell l sits at x = l h - pi: sum_l b_l exp(sign i m (l h - pi))
  // = (-1)^m FFT(b)[m mod M]; the kernel's transform and h = 2 pi / M divided out.
  const auto first_mode = -static_cast<std::int64_t>(shape.modes / 2);
  auto factor = nufft_kernel_transform(shape, first_mode, shape.modes);
  const double h = two_pi / static_cast<double>(shape.grid);
  for (std::uint64_t i = 0; i < shape.modes; ++i) {
    const std::int64_t m = first_mode + static_cast<std::int64_t>(i);
    factor[i] = (m % 2 == 0 ? h : -h) / factor[i];
  }
  return factor;
}

template <class T>
struct Nufft1<T>::Impl {
  explicit Impl(const NufftShape& s)
      : shape(s),
        pad(padding(s.width)),
        plan(cached_plan<T>(s.grid, s.sign)),
        first_mode(-static_cast<std::int64_t>(s.modes / 2)) {
    const auto factors = nufft_deconvolution(s);
    factor.assign(factors.begin(), factors.end());
  }

  /// The grids of `vectors` strength vectors, allocated once.
  void reserve(std::size_t vectors) {
    while (grids.size() < vectors)
      grids.push_back(std::make_unique<FftwBuffer<T>>(shape.grid + 2 * static_cast<std::uint64_t>(pad)));
  }

  NufftShape shape;
  int pad;
  typename Fftw<T>::Plan plan;
  std::int64_t first_mode;  // -floor(N/2): the modes the grid's transform centres on
  std::vector<T> factor;    // (-1)^m h / phi_hat(m), m = first_mode ..
  std::vector<std::unique_ptr<FftwBuffer<T>>> grids;
};

template <class T>
Nufft1<T>::Nufft1(const NufftShape& shape) : impl_(std::make_unique<Impl>(shape)) {}

template <class T>
Nufft1<T>::~Nufft1() = default;

template <class T>
const NufftShape& Nufft1<T>::shape() const noexcept {
  return impl_->shape;
}

template <class T>
void Nufft1<T>::execute(std::span<const double> x, std::span<const std::span<const std::complex<T>>> strengths,
                        std::int64_t k_first, std::span<const std::span<std::complex<T>>> out, int threads) {
  Impl& d = *impl_;
  const NufftShape& s = d.shape;
  const std::size_t vectors = strengths.size();
  AS_ASSERT(vectors >= 1 && out.size() == vectors && threads >= 1);
  for (std::size_t v = 0; v < vectors; ++v) AS_ASSERT(strengths[v].size() == x.size() && out[v].size() == s.modes);
  d.reserve(vectors);
  const auto M = static_cast<std::int64_t>(s.grid);
  const int w = s.width;
  const double half = 0.5 * w;
  const double to_cells = static_cast<double>(s.grid) / two_pi;
  const std::int64_t shift = k_first - d.first_mode;
  const auto cells = static_cast<std::int64_t>(d.grids[0]->size());

  // Spreading: every point adds its strength times the kernel to the w cells around it. The
  // buffer's cells [lo, hi) take the contributions that fall there, point after point in the
  // given order, each cell's kernel value computed alone: a cell gets the same additions in the
  // same order however the buffer is cut, so several threads (each its own range, no atomics,
  // no reduction) give the bits of one.
  auto spread = [&](std::int64_t lo, std::int64_t hi) {
    for (std::size_t v = 0; v < vectors; ++v)
      std::fill(d.grids[v]->data() + lo, d.grids[v]->data() + hi, std::complex<T>(0, 0));
    T weights[nufft_max_width];
    for (std::size_t j = 0; j < x.size(); ++j) {
      double u = (x[j] + std::numbers::pi) * to_cells;  // in cells from -pi
      if (!(u >= 0 && u < static_cast<double>(M))) {
        u -= std::floor(u / static_cast<double>(M)) * static_cast<double>(M);
        if (u >= static_cast<double>(M)) u -= static_cast<double>(M);
      }
      const auto l0 = static_cast<std::int64_t>(std::ceil(u - half));
      const std::int64_t p0 = d.pad + l0;  // the first cell in the buffer
      const int first = static_cast<int>(std::clamp<std::int64_t>(lo - p0, 0, w));
      const int last = static_cast<int>(std::clamp<std::int64_t>(hi - p0, 0, w));
      if (first >= last) continue;
      for (int i = first; i < last; ++i) weights[i] = static_cast<T>(kernel((l0 + i - u) / half, s.beta));
      std::complex<T> phase(1, 0);
      if (shift != 0) phase = std::complex<T>(std::polar(1.0, s.sign * static_cast<double>(shift) * x[j]));
      for (std::size_t v = 0; v < vectors; ++v) {
        const std::complex<T> c = strengths[v][j] * phase;
        std::complex<T>* cell = d.grids[v]->data() + p0;
        for (int i = first; i < last; ++i) cell[i] += c * weights[i];
      }
    }
  };
  if (threads == 1) {
    spread(0, cells);
  } else {
#pragma omp parallel num_threads(threads)
    {
      const auto t = static_cast<std::int64_t>(omp_get_thread_num()),
                 n = static_cast<std::int64_t>(omp_get_num_threads());
      spread(cells * t / n, cells * (t + 1) / n);
    }
  }
  for (std::size_t v = 0; v < vectors; ++v) {
    std::complex<T>* buffer = d.grids[v]->data();
    std::complex<T>* grid = buffer + d.pad;
    // The padding is the periodic grid's other end.
    for (int i = 0; i < d.pad; ++i) {
      grid[M - d.pad + i] += buffer[i];
      grid[i] += grid[M + i];
    }
    AS_ASSERT(Fftw<T>::alignment_of(grid) == 0);
    Fftw<T>::run(d.plan, grid);
    std::complex<T>* o = out[v].data();
    const std::int64_t m0 = d.first_mode;
    for (std::uint64_t i = 0; i < s.modes; ++i) {
      std::int64_t r = m0 + static_cast<std::int64_t>(i);
      if (r < 0) r += M;
      o[i] = grid[r] * d.factor[i];
    }
  }
}

template <class T>
void Nufft1<T>::execute(std::span<const double> x, std::span<const std::complex<T>> strengths, std::int64_t k_first,
                        std::span<std::complex<T>> out, int threads) {
  const std::span<const std::complex<T>> in[1] = {strengths};
  const std::span<std::complex<T>> to[1] = {out};
  execute(x, in, k_first, to, threads);
}

std::vector<std::complex<double>> nudft1_reference(std::span<const double> x,
                                                   std::span<const std::complex<double>> strengths,
                                                   std::int64_t k_first, std::uint64_t modes, int sign) {
  std::vector<std::complex<double>> f(modes);
  for (std::uint64_t i = 0; i < modes; ++i) {
    const double k = static_cast<double>(k_first + static_cast<std::int64_t>(i));
    std::complex<double> sum = 0;
    for (std::size_t j = 0; j < x.size(); ++j)
      sum += strengths[j] * std::polar(1.0, sign * std::fmod(k * x[j], two_pi));
    f[i] = sum;
  }
  return f;
}

template class Nufft1<float>;
template class Nufft1<double>;

}  // namespace astrosweep::period
