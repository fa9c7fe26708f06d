// The vectorised CPU kernel. Lanes of one 512-bit vector hold `lanes` frequencies spaced `steps`
// grid points apart; each point's sin/cos is seeded once per panel (one sin/cos in double, the
// other lanes by rotation) and then advanced along the grid by the angle-addition recurrence:
// per point and frequency 4 multiplies/FMAs for the rotation and 7 for the sums, no sin/cos.
// Seeding in double keeps FP32 phases exact at MJD/BJD-scale times.

#include <algorithm>
#include <cmath>
#include <numbers>

#include "lomb_scargle.hpp"
#include "lomb_scargle_power.hpp"

namespace astrosweep::period {

namespace {

// A vector of T that is `bytes` wide. The panel's lanes (one 512-bit row) are processed in
// 64 / bytes parts, each the width the instruction set's registers hold: a 512-bit generic vector
// compiled for AVX2 or SSE2 is lowered through the stack, which measured 20-40x slower on an AVX2
// node than the same arithmetic on 256-bit vectors.
template <class T, int bytes>
struct VectorOf {
  typedef T type __attribute__((vector_size(bytes)));
};

double reduced_angle(double f, double t) {
  const double cycles = f * t;
  return 2 * std::numbers::pi * (cycles - std::floor(cycles));
}

constexpr int tile_points = 128;  // sin/cos state of a tile stays in L1: 2 x 128 x 64 B

template <class T>
struct PanelSums {
  double v[CpuKernelShape<T>::steps][7][CpuKernelShape<T>::lanes];
};

// Parts: how many register-wide vectors make up the panel's 512-bit row of lanes (1 on AVX-512,
// 2 on AVX2, 4 on SSE2).
template <class T, bool FitMean, int Parts>
[[gnu::always_inline]] inline void panel_sums(const CpuSeries<T>& k, double f_panel, PanelSums<T>& acc) {
  using V = typename VectorOf<T, 64 / Parts>::type;
  constexpr int L = CpuKernelShape<T>::lanes;
  constexpr int B = CpuKernelShape<T>::steps;
  constexpr int PL = L / Parts;  // lanes per part
  // The sin/cos state of point jj, part h, is st_c/st_s[jj * Parts + h].
  alignas(64) V st_c[tile_points * Parts];
  alignas(64) V st_s[tile_points * Parts];
  const auto& t = k.series->t;
  const std::size_t n = t.size();
  for (auto& row : acc.v)
    for (auto& sum : row) std::fill(std::begin(sum), std::end(sum), 0.0);

  for (std::size_t j0 = 0; j0 < n; j0 += tile_points) {
    const int nj = static_cast<int>(std::min<std::size_t>(tile_points, n - j0));
    for (int jj = 0; jj < nj; ++jj) {
      const std::size_t j = j0 + static_cast<std::size_t>(jj);
      const double a = reduced_angle(f_panel, t[j]);
      double c = std::cos(a), s = std::sin(a);
      for (int l = 0; l < L; ++l) {
        st_c[jj * Parts + l / PL][l % PL] = static_cast<T>(c);
        st_s[jj * Parts + l / PL][l % PL] = static_cast<T>(s);
        const double cn = c * k.lane_cos[j] - s * k.lane_sin[j];
        s = s * k.lane_cos[j] + c * k.lane_sin[j];
        c = cn;
      }
    }
    const T* w = k.w.data() + j0;
    const T* wy = k.wy.data() + j0;
    const T* cd = k.step_cos.data() + j0;
    const T* sd = k.step_sin.data() + j0;
    for (int i = 0; i < B; ++i) {
      auto& a = acc.v[i];
      for (int h = 0; h < Parts; ++h) {
        V C{}, S{}, YC{}, YS{}, CC{}, CS{}, SS{};
        for (int jj = 0; jj < nj; ++jj) {
          V& state_c = st_c[jj * Parts + h];
          V& state_s = st_s[jj * Parts + h];
          const V c = state_c;
          const V s = state_s;
          const V wc = w[jj] * c;
          const V ws = w[jj] * s;
          if constexpr (FitMean) {
            C += wc;
            S += ws;
          }
          YC += wy[jj] * c;
          YS += wy[jj] * s;
          CC += wc * c;
          CS += wc * s;
          SS += ws * s;
          state_c = c * cd[jj] - s * sd[jj];
          state_s = s * cd[jj] + c * sd[jj];
        }
        for (int l = 0; l < PL; ++l) {
          const int lane = h * PL + l;
          a[0][lane] += static_cast<double>(C[l]);
          a[1][lane] += static_cast<double>(S[l]);
          a[2][lane] += static_cast<double>(YC[l]);
          a[3][lane] += static_cast<double>(YS[l]);
          a[4][lane] += static_cast<double>(CC[l]);
          a[5][lane] += static_cast<double>(CS[l]);
          a[6][lane] += static_cast<double>(SS[l]);
        }
      }
    }
  }
}

// Instruction-set versions: with GCC the loader picks the AVX-512, AVX2+FMA or baseline x86-64
// body at run time (function multiversioning), so one binary is fast on every node of a cluster,
// each version on vectors as wide as its registers. Results may differ in the last bits between
// versions (FMA contraction), never between ranks on the same kind of node. Other compilers build
// the one version the compile flags allow.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define AS_PANEL_VERSIONS(name, T, mean)                                                            \
  [[gnu::target("default")]] void name(const CpuSeries<T>& k, double f, PanelSums<T>& acc) {        \
    panel_sums<T, mean, 4>(k, f, acc);                                                              \
  }                                                                                                 \
  [[gnu::target("arch=x86-64-v3")]] void name(const CpuSeries<T>& k, double f, PanelSums<T>& acc) { \
    panel_sums<T, mean, 2>(k, f, acc);                                                              \
  }                                                                                                 \
  [[gnu::target("arch=x86-64-v4")]] void name(const CpuSeries<T>& k, double f, PanelSums<T>& acc) { \
    panel_sums<T, mean, 1>(k, f, acc);                                                              \
  }
#else
#if defined(__AVX512F__)
constexpr int native_parts = 1;
#elif defined(__AVX__)
constexpr int native_parts = 2;
#else
constexpr int native_parts = 4;
#endif
#define AS_PANEL_VERSIONS(name, T, mean) \
  void name(const CpuSeries<T>& k, double f, PanelSums<T>& acc) { panel_sums<T, mean, native_parts>(k, f, acc); }
#endif

AS_PANEL_VERSIONS(panel_sums_f64_mean, double, true)
AS_PANEL_VERSIONS(panel_sums_f64, double, false)
AS_PANEL_VERSIONS(panel_sums_f32_mean, float, true)
AS_PANEL_VERSIONS(panel_sums_f32, float, false)
#undef AS_PANEL_VERSIONS

void dispatch_panel(const CpuSeries<double>& k, double f, bool fit_mean, PanelSums<double>& acc) {
  fit_mean ? panel_sums_f64_mean(k, f, acc) : panel_sums_f64(k, f, acc);
}
void dispatch_panel(const CpuSeries<float>& k, double f, bool fit_mean, PanelSums<float>& acc) {
  fit_mean ? panel_sums_f32_mean(k, f, acc) : panel_sums_f32(k, f, acc);
}

}  // namespace

template <class T>
CpuSeries<T>::CpuSeries(const PreparedSeries& s, const FrequencyGrid& grid) : series(&s) {
  const std::size_t n = s.t.size();
  w.resize(n);
  wy.resize(n);
  step_cos.resize(n);
  step_sin.resize(n);
  lane_cos.resize(n);
  lane_sin.resize(n);
  const double lane_df = CpuKernelShape<T>::steps * grid.df;
  for (std::size_t j = 0; j < n; ++j) {
    w[j] = static_cast<T>(s.w[j]);
    wy[j] = static_cast<T>(s.w[j] * s.y[j]);
    const double a = reduced_angle(grid.df, s.t[j]);
    step_cos[j] = static_cast<T>(std::cos(a));
    step_sin[j] = static_cast<T>(std::sin(a));
    const double b = reduced_angle(lane_df, s.t[j]);
    lane_cos[j] = std::cos(b);
    lane_sin[j] = std::sin(b);
  }
}

template <class T>
void lomb_scargle_cpu(const CpuSeries<T>& k, const FrequencyGrid& grid, Model model, Normalization normalization,
                      std::uint64_t k_begin, std::span<T> out) {
  constexpr std::uint64_t P = CpuKernelShape<T>::panel;
  constexpr int L = CpuKernelShape<T>::lanes;
  constexpr int B = CpuKernelShape<T>::steps;
  const bool fit_mean = model == Model::generalized;
  const std::uint64_t k_end = k_begin + out.size();
  const auto& s = *k.series;
  PanelSums<T> acc;
  for (std::uint64_t p0 = k_begin / P * P; p0 < k_end; p0 += P) {
    dispatch_panel(k, grid.at(p0), fit_mean, acc);
    for (int l = 0; l < L; ++l) {
      for (int i = 0; i < B; ++i) {
        const std::uint64_t kk = p0 + static_cast<std::uint64_t>(l * B + i);
        if (kk < k_begin || kk >= k_end) continue;
        const auto& a = acc.v[i];
        const TrigSums m{a[0][l], a[1][l], a[2][l], a[3][l], a[4][l], a[5][l], a[6][l]};
        out[kk - k_begin] = static_cast<T>(
            power_from_sums(m, fit_mean, degenerate_eps<T>(), static_cast<int>(normalization), s.yy, s.psd_scale));
      }
    }
  }
}

template struct CpuSeries<float>;
template struct CpuSeries<double>;
template void lomb_scargle_cpu<float>(const CpuSeries<float>&, const FrequencyGrid&, Model, Normalization,
                                      std::uint64_t, std::span<float>);
template void lomb_scargle_cpu<double>(const CpuSeries<double>&, const FrequencyGrid&, Model, Normalization,
                                       std::uint64_t, std::span<double>);

}  // namespace astrosweep::period
