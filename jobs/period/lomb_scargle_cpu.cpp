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

template <class T>
struct VectorOf {
  typedef T type __attribute__((vector_size(64)));
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

template <class T, bool FitMean>
[[gnu::always_inline]] inline void panel_sums(const CpuSeries<T>& k, double f_panel, PanelSums<T>& acc) {
  using V = typename VectorOf<T>::type;
  constexpr int L = CpuKernelShape<T>::lanes;
  constexpr int B = CpuKernelShape<T>::steps;
  alignas(64) V st_c[tile_points];
  alignas(64) V st_s[tile_points];
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
        st_c[jj][l] = static_cast<T>(c);
        st_s[jj][l] = static_cast<T>(s);
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
      V C{}, S{}, YC{}, YS{}, CC{}, CS{}, SS{};
      for (int jj = 0; jj < nj; ++jj) {
        const V c = st_c[jj];
        const V s = st_s[jj];
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
        st_c[jj] = c * cd[jj] - s * sd[jj];
        st_s[jj] = s * cd[jj] + c * sd[jj];
      }
      auto& a = acc.v[i];
      for (int l = 0; l < L; ++l) {
        a[0][l] += static_cast<double>(C[l]);
        a[1][l] += static_cast<double>(S[l]);
        a[2][l] += static_cast<double>(YC[l]);
        a[3][l] += static_cast<double>(YS[l]);
        a[4][l] += static_cast<double>(CC[l]);
        a[5][l] += static_cast<double>(CS[l]);
        a[6][l] += static_cast<double>(SS[l]);
      }
    }
  }
}

// Instruction-set clones: the loader picks AVX-512, AVX2+FMA or baseline x86-64 at run time, so one
// binary is fast on every node of a cluster. Results may differ in the last bits between clones
// (FMA contraction), never between ranks on the same kind of node.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define AS_CPU_CLONES [[gnu::target_clones("default", "arch=x86-64-v3", "arch=x86-64-v4")]]
#else
#define AS_CPU_CLONES
#endif

AS_CPU_CLONES void panel_sums_f64_mean(const CpuSeries<double>& k, double f, PanelSums<double>& acc) {
  panel_sums<double, true>(k, f, acc);
}
AS_CPU_CLONES void panel_sums_f64(const CpuSeries<double>& k, double f, PanelSums<double>& acc) {
  panel_sums<double, false>(k, f, acc);
}
AS_CPU_CLONES void panel_sums_f32_mean(const CpuSeries<float>& k, double f, PanelSums<float>& acc) {
  panel_sums<float, true>(k, f, acc);
}
AS_CPU_CLONES void panel_sums_f32(const CpuSeries<float>& k, double f, PanelSums<float>& acc) {
  panel_sums<float, false>(k, f, acc);
}

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
        const double p = raw_power(m, fit_mean, degenerate_eps<T>());
        out[kk - k_begin] = static_cast<T>(normalise_power(p, static_cast<int>(normalization), s.yy, s.psd_scale));
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
