// End to end through the bank and the correlation: a noiseless signal with a linear frequency
// drift (spec §13 item 3 without noise or harmonics) is found at its (r, z) with the power the
// response predicts, in float (the CPU backend) and in double (the FP64 pipeline).
#include <fftw3.h>
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <numbers>
#include <vector>

#include "correlation.hpp"
#include "template_bank.hpp"

namespace astrosweep::fdas {
namespace {

// F_k = Σ x_n e^{−2πikn/N}, k < N/2, from FFTW's real transform in double.
std::vector<std::complex<float>> spectrum_of(const std::vector<double>& x) {
  const int n = static_cast<int>(x.size());
  std::vector<double> in(x);
  std::vector<std::complex<double>> out(x.size() / 2 + 1);
  fftw_plan plan = fftw_plan_dft_r2c_1d(n, in.data(), reinterpret_cast<fftw_complex*>(out.data()), FFTW_ESTIMATE);
  fftw_execute(plan);
  fftw_destroy_plan(plan);
  std::vector<std::complex<float>> f(x.size() / 2);
  for (std::size_t k = 0; k < f.size(); ++k) f[k] = std::complex<float>(out[k]);
  return f;
}

struct Chirp {
  double r;  // mean frequency, bins
  double z;  // drift over the series, bins
};

class PlaneRecovers : public ::testing::TestWithParam<Chirp> {};

TEST_P(PlaneRecovers, TheDriftingToneAtItsCellWithItsPower) {
  const Chirp c = GetParam();
  constexpr std::size_t n = 1 << 15;
  constexpr double amplitude = 0.01;
  std::vector<double> x(n);
  for (std::size_t i = 0; i < n; ++i) {
    const double u = static_cast<double>(i) / n;
    x[i] = amplitude * std::cos(2 * std::numbers::pi * ((c.r - c.z / 2) * u + c.z / 2 * u * u) * 1.0);
  }
  const auto spectrum = spectrum_of(x);
  const TemplateBank bank = make_template_bank(40, 2, Accuracy::low);
  const double expected = std::pow(n * amplitude / 2, 2);
  const auto r_lo = static_cast<std::size_t>(c.r) - 30;
  const auto r_hi = static_cast<std::size_t>(c.r) + 30;
  const PowerPlane planes[] = {correlate(spectrum, transform_kernels<float>(bank.taps, bank.layout.fft_length),
                                         bank.layout, r_lo, r_hi, {false, 2}),
                               correlate(spectrum, transform_kernels<double>(bank.taps, bank.layout.fft_length),
                                         bank.layout, r_lo, r_hi, {false, 2})};
  for (const PowerPlane& plane : planes) {
    std::size_t best_z = 0, best_i = 0;
    for (std::size_t t = 0; t < plane.n_z; ++t)
      for (std::size_t i = 0; i < plane.n_r; ++i)
        if (plane.at(t, i) > plane.at(best_z, best_i)) {
          best_z = t;
          best_i = i;
        }
    // On the grid (half bins, Δz = 2): within a quarter bin and one z step of the truth.
    EXPECT_NEAR(plane.r_of(best_i), c.r, 0.25 + 1e-9);
    EXPECT_NEAR(bank.grid.z(best_z), c.z, 1.0 + 1e-9);
    // At the true cell when it is on the grid: the full power, less what the ±m(z)-bin kernel leaves
    // out: at a half-bin offset with z = 0, the sinc beyond ±16 bins holds 1.27 % of the energy,
    // so 2.5 % of the power (the spec's "≈ 1.2 %" is of the amplitude). Off the grid at least the
    // spec's worst case (0.77).
    const bool on_grid = std::fmod(c.r * 2, 1.0) == 0 && std::fmod(c.z, 2.0) == 0;
    if (on_grid) {
      const auto i = static_cast<std::size_t>((c.r - static_cast<double>(r_lo)) * 2);
      const auto t = static_cast<std::size_t>((c.z + bank.grid.z_max) / 2);
      const double ratio = static_cast<double>(plane.at(t, i)) / expected;
      EXPECT_GT(ratio, 0.97);
      EXPECT_LT(ratio, 1.0 + 1e-4);
    } else {
      EXPECT_GT(static_cast<double>(plane.at(best_z, best_i)) / expected, 0.77);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Signals, PlaneRecovers,
                         ::testing::Values(Chirp{1000, 0}, Chirp{1000.5, 0}, Chirp{1234, 12}, Chirp{2345.5, -30},
                                           Chirp{3001.3, 17.3}, Chirp{4000.75, -37.6}));

}  // namespace
}  // namespace astrosweep::fdas
